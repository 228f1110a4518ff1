// Queries run as chunk tasks (issue 18): stored chunks are scanned by tasks
// that filter on bytes and count per step, in whatever order a pool finishes
// them. These tests compare the answers with the reading before issue 18
// (every entry decoded and run through the pipeline on this thread) on seeded
// random data — sub-millisecond timestamps, equal timestamps, out-of-order
// writes, heads, chunks being written and stored chunks — through this
// thread's runner and through a pool-like runner that clones inputs and
// results and finishes tasks out of order.
import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/apps/logstore/core/chunks.ts";
import { runLogQuery, runMetricQuery, selectStreams, stepsOf, type Series, type Source } from "../../src/apps/logstore/core/logql/evaluate.ts";
import { parseLogQL, type LogQuery, type MetricQuery, type RangeAggregation } from "../../src/apps/logstore/core/logql/parse.ts";
import { runPipeline } from "../../src/apps/logstore/core/logql/pipeline.ts";
import { labelText } from "../../src/apps/logstore/core/push-decode.ts";
import { logTasks } from "../../src/apps/logstore/core/scan-tasks.ts";
import { openLogStore, type LogStore } from "../../src/apps/logstore/core/store.ts";
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import type { TaskRunner } from "../../src/lib/tasks.ts";
import { mulberry32 } from "../helpers/rng.ts";

/** like a worker pool: inputs and results cloned, `size` tasks at once, finished in a random order */
function poolLike(size: number, rand: () => number): TaskRunner {
  return {
    size,
    async run<T>(name: string, input: unknown, options: { signal?: AbortSignal | undefined } = {}): Promise<T> {
      const copy = structuredClone(input);
      await new Promise((r) => (rand() < 0.5 ? setImmediate(r) : setTimeout(r, 1)));
      options.signal?.throwIfAborted();
      const out = logTasks[name]!(copy, { cancelled: () => options.signal?.aborted ?? false });
      return structuredClone(out.result) as T;
    },
    async close() {},
  };
}

/** the range aggregation before issue 18: every entry through the pipeline, grouped, windows over sorted timestamps */
async function referenceRange(store: LogStore, src: Source, r: RangeAggregation, steps: number[]): Promise<Series[]> {
  const groups = new Map<string, { labels: Record<string, string>; ts: number[]; bytes: number[] }>();
  const from = BigInt(steps[0]! - r.rangeMs) * 1_000_000n + 1n;
  const to = BigInt(steps.at(-1)!) * 1_000_000n + 1n;
  for (const s of selectStreams(src, r.query)) {
    await store.scan(s.stream, from, to, false, (e: Entry) => {
      const p = runPipeline(r.query.stages, e.line, s.labels);
      if (!p) return true;
      const key = labelText(p.labels);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { labels: p.labels, ts: [], bytes: [] }));
      g.ts.push(Number(e.ts / 1_000_000n));
      g.bytes.push(Buffer.byteLength(e.line));
      return true;
    });
  }
  const seconds = r.rangeMs / 1000;
  const out: Series[] = [];
  for (const g of groups.values()) {
    const order = g.ts.map((_, i) => i).sort((a, b) => g.ts[a]! - g.ts[b]!);
    const ts = order.map((i) => g.ts[i]!);
    const bytes = order.map((i) => g.bytes[i]!);
    const points = new Map<number, number>();
    let lo = 0;
    let hi = 0;
    let sum = 0;
    for (const t of steps) {
      while (hi < ts.length && ts[hi]! <= t) sum += bytes[hi++]!;
      while (lo < hi && ts[lo]! <= t - r.rangeMs) sum -= bytes[lo++]!;
      const count = hi - lo;
      if (!count) continue;
      points.set(t, r.op === "count_over_time" ? count : r.op === "rate" ? count / seconds : r.op === "bytes_over_time" ? sum : sum / seconds);
    }
    if (points.size) out.push({ metric: g.labels, points });
  }
  return out;
}

/** a sum by (labels) of the reference's series, step by step */
function referenceSum(inner: Series[], by: string[] | undefined): Series[] {
  const groups = new Map<string, Series>();
  for (const s of inner) {
    const metric: Record<string, string> = {};
    for (const k of by ?? []) if (s.metric[k] !== undefined) metric[k] = s.metric[k]!;
    const key = labelText(metric);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { metric, points: new Map() }));
    for (const [t, v] of s.points) g.points.set(t, (g.points.get(t) ?? 0) + v);
  }
  return [...groups.values()];
}

const byLabels = (series: Series[]) => plain([...series].sort((a, b) => (labelText(a.metric) < labelText(b.metric) ? -1 : 1)));
const plain = (series: Series[]) => series.map((s) => ({ metric: s.metric, points: [...s.points].sort((a, b) => a[0] - b[0]) }));

const LOG_QUERIES = ['{job="m"}', '{job="m"} |= "keep"', '{job="m", app=~"a|c"} != "drop"', '{job="m"} | logfmt | n > 3', '{job="m"} |~ "k(e|x)+p" | line_format "{{.app}} {{__line__}}"'];
const RANGE_QUERIES = [
  'count_over_time({job="m"}[20ms])',
  'bytes_over_time({job="m"} |= "keep"[35ms])',
  'rate({job="m"} != "drop"[50ms])',
  'count_over_time({job="m"} | logfmt | n > 3[20ms])',
  'count_over_time({job="m"} | logfmt[15ms])',
];
const SUM_QUERIES: Array<[string, string, string[] | undefined]> = [
  ['sum(count_over_time({job="m"}[20ms]))', 'count_over_time({job="m"}[20ms])', undefined],
  ['sum by (app) (bytes_over_time({job="m"} |= "keep"[35ms]))', 'bytes_over_time({job="m"} |= "keep"[35ms])', ["app"]],
  ['sum by (word) (count_over_time({job="m"} | logfmt[25ms]))', 'count_over_time({job="m"} | logfmt[25ms])', ["word"]],
];

describe("log store: queries as chunk tasks give the answers of reading every entry on this thread", () => {
  it("random pushes (sub-ms and equal timestamps, out of order): log and metric queries, this thread's runner and a pool-like one", async () => {
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const now = Date.UTC(2026, 0, 1);
      let store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now, chunkTargetBytes: 600 });
      const rand = mulberry32(18);
      const baseMs = now;
      const base = BigInt(baseMs) * 1_000_000n;
      const names = ["a", "b", "c"];
      for (const app of names) await store.stream("t", { job: "m", app });
      let seq = 0;
      for (let push = 0; push < 400; push++) {
        const app = names[Math.floor(rand() * 3)]!;
        const stream = store.find("t", { job: "m", app })!;
        const entries: Entry[] = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => {
          const word = rand() < 0.1 ? "keep" : rand() < 0.5 ? "drop" : "other";
          // nanosecond timestamps over 400 ms: many within one ms, some right at a ms boundary
          const ns = rand() < 0.2 ? BigInt(Math.floor(rand() * 400)) * 1_000_000n : BigInt(Math.floor(rand() * 400_000_000));
          return { ts: base + ns, line: `n=${Math.floor(rand() * 8)} word=${word} seq=${seq++}` };
        });
        store.append("t", [{ stream, entries }]);
        if (rand() < 0.05) await store.flush();
      }
      const check = async (when: string) => {
        for (const [label, runner] of [["this thread", undefined], ["pool-like", poolLike(3, mulberry32(7))]] as const) {
          const src: Source = { store, tenants: ["t"], runner };
          for (const text of LOG_QUERIES) {
            const q = parseLogQL(text) as LogQuery;
            // the same query object copied: no text to send, so stored chunks are read on this thread as before
            const before = { ...q };
            for (const backward of [true, false]) {
              for (const limit of [1, 7, 5000]) {
                for (const [lo, hi] of [[0, 400], [120, 260]] as const) {
                  const from = base + BigInt(lo) * 1_000_000n;
                  const to = base + BigInt(hi) * 1_000_000n;
                  const got = await runLogQuery(src, q, from, to, limit, backward);
                  const want = await runLogQuery({ store, tenants: ["t"] }, before, from, to, limit, backward);
                  expect({ when, label, text, backward, limit, lo, got }).toEqual({ when, label, text, backward, limit, lo, got: want });
                }
              }
            }
          }
          for (const [start, end, step] of [[0, 400, 7], [50, 300, 1], [399, 399, 1]] as const) {
            const steps = stepsOf(baseMs + start, baseMs + end, step);
            for (const text of RANGE_QUERIES) {
              const q = parseLogQL(text) as RangeAggregation;
              const got = plain(await runMetricQuery(src, q, steps));
              const want = plain(await referenceRange(store, src, q, steps));
              expect({ when, label, text, start, got }).toEqual({ when, label, text, start, got: want });
            }
            // a sum pushed down into the scans holds only its groups: the values are the same, the groups' order may not be
            // (before, a group came where its first member series with a point did)
            for (const [text, innerText, by] of SUM_QUERIES) {
              const got = byLabels(await runMetricQuery(src, parseLogQL(text) as MetricQuery, steps));
              const want = byLabels(referenceSum(await referenceRange(store, src, parseLogQL(innerText) as RangeAggregation, steps), by));
              expect({ when, label, text, start, got }).toEqual({ when, label, text, start, got: want });
            }
          }
        }
      };
      await check("heads, pending and stored chunks");
      await store.close();
      store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now, chunkTargetBytes: 600 });
      await check("reopened");
      await store.close();
    } finally {
      await db.close();
    }
  }, 240_000);

  it("an aborted query stops: it throws the signal's reason and its tasks see cancelled()", async () => {
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const now = Date.UTC(2026, 0, 1);
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now, chunkTargetBytes: 2000 });
      const stream = await store.stream("t", { job: "x" });
      const base = BigInt(now) * 1_000_000n;
      for (let k = 0; k < 50; k++) store.append("t", [{ stream, entries: Array.from({ length: 200 }, (_, i) => ({ ts: base + BigInt(k * 200 + i), line: `line ${k * 200 + i}` })) }]);
      await store.flush(true);
      const ctl = new AbortController();
      let tasks = 0;
      const runner: TaskRunner = {
        size: 2,
        async run<T>(name: string, input: unknown, options: { signal?: AbortSignal | undefined } = {}): Promise<T> {
          if (++tasks === 3) ctl.abort(new Error("stopped"));
          options.signal?.throwIfAborted();
          return logTasks[name]!(input, { cancelled: () => options.signal?.aborted ?? false }).result as T;
        },
        async close() {},
      };
      const q = parseLogQL('{job="x"} |= "nothing like this"') as LogQuery;
      await expect(runLogQuery({ store, tenants: ["t"], runner, signal: ctl.signal }, q, base, base + 10_000n, 100, true)).rejects.toThrow("stopped");
      // the scans not yet started never were
      expect(stream.chunks.length).toBeGreaterThan(10);
      expect(tasks).toBeLessThan(stream.chunks.length);
      await store.close();
    } finally {
      await db.close();
    }
  }, 60_000);

  it("a chunk whose scan fails with ChunkCorruptError is skipped and reported; the other chunks answer", async () => {
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const now = Date.UTC(2026, 0, 1);
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now, chunkTargetBytes: 200 });
      const stream = await store.stream("t", { job: "c" });
      const base = BigInt(now) * 1_000_000n;
      for (let k = 0; k < 10; k++) store.append("t", [{ stream, entries: Array.from({ length: 20 }, (_, i) => ({ ts: base + BigInt(k * 20 + i), line: `chunk ${k} line ${i}` })) }]);
      await store.flush(true);
      expect(stream.chunks).toHaveLength(10);
      const bad = stream.chunks[4]!;
      const reported: Array<[number, string]> = [];
      Object.assign(store, { reportCorrupt: (chunk: { id: number }, reason: string) => reported.push([chunk.id, reason]) });
      // the bad chunk's bytes reach the task with one bit flipped (a single scan or one of a batch): the task's own checks find it
      const mine = await store.chunkSource(bad);
      const damage = (one: { source: { kind: string; bytes?: Uint8Array } }) => {
        const { source } = one;
        if (source.kind !== "bytes" || mine?.kind !== "bytes" || Buffer.compare(Buffer.from(source.bytes!), Buffer.from(mine.bytes)) !== 0) return one;
        const bytes = Uint8Array.from(source.bytes!);
        bytes[bytes.length - 10]! ^= 0x40;
        return { ...one, source: { ...source, bytes } };
      };
      const runner: TaskRunner = {
        size: 1,
        async run<T>(name: string, input: unknown): Promise<T> {
          const damaged = Array.isArray(input) ? input.map(damage) : damage(input as { source: { kind: string; bytes?: Uint8Array } });
          return logTasks[name]!(damaged, { cancelled: () => false }).result as T;
        },
        async close() {},
      };
      const src: Source = { store, tenants: ["t"], runner };
      const lines = (await runLogQuery(src, parseLogQL('{job="c"}') as LogQuery, base, base + 1000n, 1000, false)).flatMap((r) => r.values.map((v) => v[1]));
      expect(lines).toHaveLength(180);
      expect(lines.some((l) => l.startsWith("chunk 4 "))).toBe(false);
      const counted = await runMetricQuery(src, parseLogQL('sum(count_over_time({job="c"}[1s]))') as MetricQuery, [now + 1]);
      expect(counted.map((s) => s.points.get(now + 1))).toEqual([180]);
      expect(reported).toEqual([[bad.id, "chunk CRC mismatch"], [bad.id, "chunk CRC mismatch"]]);
      await store.close();
    } finally {
      await db.close();
    }
  }, 60_000);

  it("chunks cut but not yet written (their encoder busy) are scanned by tasks from their columns, with the same answers", async () => {
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    // the store's encoder never answers: every cut chunk stays waiting to be written
    const stuck: TaskRunner = { size: 1, run: () => new Promise(() => {}), close: async () => {} };
    try {
      const now = Date.UTC(2026, 0, 1);
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now, runner: stuck, chunkTargetBytes: 500 });
      const base = BigInt(now) * 1_000_000n;
      for (const job of ["a", "b"]) {
        const stream = await store.stream("t", { job });
        for (let k = 0; k < 6; k++) store.append("t", [{ stream, entries: Array.from({ length: 30 }, (_, i) => ({ ts: base + BigInt(k * 60 + i * 2 + (job === "b" ? 1 : 0)), line: `${job} ${k * 30 + i} level=${i % 3 ? "info" : "error"}` })) }]);
      }
      void store.flush();
      const streams = store.streams("t");
      expect(streams.map((s) => [s.pending.length, s.chunks.length])).toEqual([[3, 0], [3, 0]]);
      const kinds: string[] = [];
      const inline = poolLike(2, mulberry32(7));
      const runner: TaskRunner = {
        size: 2,
        run(name, input, options) {
          for (const one of Array.isArray(input) ? input : [input]) kinds.push((one as { source: { kind: string } }).source.kind);
          return inline.run(name, input, options);
        },
        close: async () => {},
      };
      const tasks: Source = { store, tenants: ["t"], runner };
      // what the chunks hold, read on this thread
      const all: Array<{ job: string; ts: bigint; line: string }> = [];
      for (const s of streams) await store.scan(s, base, base + 1000n, false, (e) => { all.push({ job: s.labels.job!, ts: e.ts, line: e.line }); return true; });
      expect(all).toHaveLength(360);
      for (const [q, keep] of [['{job=~"a|b"} |= "level=error"', (e: { line: string }) => e.line.includes("level=error")], ['{job="a"}', (e: { job: string }) => e.job === "a"]] as const) {
        const query = parseLogQL(q) as LogQuery;
        for (const backward of [false, true]) {
          const got = (await runLogQuery(tasks, query, base, base + 1000n, 50, backward)).flatMap((r) => r.values.map((v) => `${v[0]} ${v[1]}`)).sort();
          const kept = all.filter((e) => keep(e as never)).sort((x, y) => (x.ts < y.ts ? -1 : 1));
          const want = (backward ? kept.slice(-50) : kept.slice(0, 50)).map((e) => `${e.ts} ${e.line}`).sort();
          expect(got).toEqual(want);
        }
      }
      const metric = parseLogQL('sum by (job) (count_over_time({job=~".+"} |= "level=info" [1s]))') as MetricQuery;
      const counted = await runMetricQuery(tasks, metric, [now + 1]);
      expect(counted.map((s) => [s.metric, s.points.get(now + 1)])).toEqual([[{ job: "a" }, 120], [{ job: "b" }, 120]]);
      expect(kinds.length).toBeGreaterThan(0);
      expect(new Set(kinds)).toEqual(new Set(["columns"]));
    } finally {
      await db.close();
    }
  }, 60_000);
});
