// Log queries read newest-first (or oldest-first) across streams and stop
// once the limit is reached (issue 17): the answers must be those of reading
// every line in the range, sorting and cutting. These tests compare the
// store's merge with that reference on seeded random data — equal timestamps
// across and within streams, out-of-order writes, entries in heads, in chunks
// being written and in stored chunks read back from the database — and check
// the head's order as entries arrive.
import { describe, expect, it } from "vitest";
import type { Entry } from "../../src/apps/logstore/core/chunks.ts";
import { runLogQuery, selectStreams, type Source } from "../../src/apps/logstore/core/logql/evaluate.ts";
import { parseLogQL, type LogQuery } from "../../src/apps/logstore/core/logql/parse.ts";
import { runPipeline } from "../../src/apps/logstore/core/logql/pipeline.ts";
import { labelText } from "../../src/apps/logstore/core/push-decode.ts";
import { openLogStore, type LogStore, type Stream } from "../../src/apps/logstore/core/store.ts";
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { mulberry32 } from "../helpers/rng.ts";

const cmp = (a: Entry, b: Entry) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0);

/** the reading before issue 17: every run overlapping the range loaded, merged groups sorted, cut per stream, then sorted again and cut */
async function reference(store: LogStore, src: Source, q: LogQuery, from: bigint, to: bigint, limit: number, backward: boolean) {
  const scan = async (stream: Stream, visit: (e: Entry) => boolean) => {
    const overlapping = store.runs(stream).filter((s) => s.to >= from && s.from < to);
    const groups: Array<typeof overlapping> = [];
    for (const s of overlapping) {
      const g = groups.at(-1);
      if (g && g.some((x) => x.to >= s.from)) g.push(s);
      else groups.push([s]);
    }
    if (backward) groups.reverse();
    for (const g of groups) {
      let entries = (await Promise.all(g.map((s) => s.load()))).flat().filter((e) => e.ts >= from && e.ts < to);
      if (g.length > 1) entries.sort(cmp);
      if (backward) entries = entries.reverse();
      for (const e of entries) if (!visit(e)) return;
    }
  };
  const picked: Array<{ labels: Record<string, string>; ts: bigint; line: string }> = [];
  for (const s of selectStreams(src, q)) {
    let n = 0;
    await scan(s.stream, (e) => {
      const p = runPipeline(q.stages, e.line, s.labels);
      if (p) {
        picked.push({ labels: p.labels, ts: e.ts, line: p.line });
        n++;
      }
      return n < limit;
    });
  }
  picked.sort((a, b) => (a.ts === b.ts ? 0 : (a.ts < b.ts) !== backward ? -1 : 1));
  const byStream = new Map<string, { stream: Record<string, string>; values: Array<[string, string]> }>();
  for (const x of picked.slice(0, limit)) {
    const key = labelText(x.labels);
    let r = byStream.get(key);
    if (!r) byStream.set(key, (r = { stream: x.labels, values: [] }));
    r.values.push([String(x.ts), x.line]);
  }
  return [...byStream.values()];
}

const QUERIES = ['{job="m"}', '{job="m"} |= "keep"', '{job="m", app=~"a|c"} != "drop"', '{job="m"} | logfmt | n > 3'];

describe("log store: reading across streams stops at the limit with the answers of a full read", () => {
  it("random out-of-order pushes with equal timestamps: heads, chunks being written, stored chunks, and after reopening", async () => {
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const now = Date.UTC(2026, 0, 1);
      // small chunks: many runs per stream, overlapping in time
      let store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now, chunkTargetBytes: 400 });
      const rand = mulberry32(17);
      const base = BigInt(now) * 1_000_000n;
      const names = ["a", "b", "c"];
      for (const app of names) await store.stream("t", { job: "m", app });
      let seq = 0;
      for (let push = 0; push < 300; push++) {
        const app = names[Math.floor(rand() * 3)]!;
        const stream = store.find("t", { job: "m", app })!;
        // timestamps from a small range: equal ones across and within streams, and late arrivals
        const entries: Entry[] = Array.from({ length: 1 + Math.floor(rand() * 6) }, () => {
          const word = rand() < 0.1 ? "keep" : rand() < 0.5 ? "drop" : "other";
          return { ts: base + BigInt(Math.floor(rand() * 400)), line: `n=${Math.floor(rand() * 8)} ${word} seq=${seq++}` };
        });
        store.append("t", [{ stream, entries }]);
        if (rand() < 0.05) await store.flush();
      }
      const check = async (when: string) => {
        const src: Source = { store, tenants: ["t"] };
        for (const text of QUERIES) {
          const q = parseLogQL(text) as LogQuery;
          for (const backward of [true, false]) {
            for (const limit of [1, 3, 17, 100, 5000]) {
              for (const [lo, hi] of [[0, 400], [37, 38], [100, 101], [120, 260], [399, 400], [400, 500]] as const) {
                const from = base + BigInt(lo);
                const to = base + BigInt(hi);
                const got = await runLogQuery(src, q, from, to, limit, backward);
                const want = await reference(store, src, q, from, to, limit, backward);
                expect({ when, text, backward, limit, lo, hi, got }).toEqual({ when, text, backward, limit, lo, hi, got: want });
              }
            }
          }
        }
      };
      const runs = ["a", "b", "c"].map((app) => store.find("t", { job: "m", app })!).flatMap((s) => store.runs(s));
      expect(runs.length).toBeGreaterThan(20);
      await check("heads, pending and stored chunks");
      await store.close();
      // reopened: everything is read back from stored chunks
      store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now, chunkTargetBytes: 400 });
      await check("reopened");
      const all = await runLogQuery({ store, tenants: ["t"] }, parseLogQL('{job="m"}') as LogQuery, base, base + 1000n, 100_000, false);
      // nothing lost or repeated: every line is unique, so none was a duplicate to drop
      expect(all.reduce((n, s) => n + s.values.length, 0)).toBe(seq);
      await store.close();
    } finally {
      await db.close();
    }
  }, 120_000);

  it("the head stays in time order as entries arrive: late ones in place, ties in arrival order, far ones sorted when read", async () => {
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const now = Date.UTC(2026, 0, 1);
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now });
      const stream = await store.stream("h", { app: "h" });
      const rand = mulberry32(5);
      const arrived: Entry[] = [];
      for (let i = 0; i < 4000; i++) {
        // mostly in order, some a little late, some far out of order (past the insertion window)
        const r = rand();
        const ts = BigInt(r < 0.7 ? i : r < 0.9 ? i - Math.floor(rand() * 50) : Math.floor(rand() * i));
        const e = { ts, line: `l${i}` };
        arrived.push(e);
        store.append("h", [{ stream, entries: [e] }]);
        if (i % 500 === 250) {
          const head = await store.runs(stream).at(-1)!.load();
          expect(head.map((x) => x.line)).toEqual([...arrived].sort(cmp).map((x) => x.line));
        }
      }
      const head = await store.runs(stream).at(-1)!.load();
      expect(head.map((e) => e.line)).toEqual([...arrived].sort(cmp).map((e) => e.line));
      await store.close();
    } finally {
      await db.close();
    }
  }, 60_000);

  it("a query waiting for a stored chunk reads the head as it was: late writes meanwhile neither repeat nor hide a line", async () => {
    const now = Date.UTC(2026, 0, 1);
    const at = (ts: number, line = `t${ts}`): Entry => ({ ts: BigInt(ts), line });
    const q = parseLogQL('{app="w"}') as LogQuery;
    for (const backward of [true, false]) {
      const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
      try {
        const open = () => openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now });
        let store = await open();
        store.append("w", [{ stream: await store.stream("w", { app: "w" }), entries: Array.from({ length: 100 }, (_, i) => at(i)) }]);
        await store.close();
        // reopened: the chunk (0..99) is read from the database; the head holds 150..199 and, late, 20..60 by twos
        store = await open();
        const s = store.find("w", { app: "w" })!;
        store.append("w", [{ stream: s, entries: Array.from({ length: 50 }, (_, i) => at(150 + i)) }]);
        store.append("w", [{ stream: s, entries: Array.from({ length: 21 }, (_, i) => at(20 + 2 * i, `late${20 + 2 * i}`)) }]);
        const src: Source = { store, tenants: ["w"] };
        const lineList = async () => (await reference(store, src, q, 0n, 1000n, 1000, backward)).flatMap((r) => r.values.map((v) => v[1]));
        const before = await lineList();
        const reading = runLogQuery(src, q, 0n, 1000n, 1000, backward);
        // while it waits for the chunk: more late lines land inside the head's range
        store.append("w", [{ stream: s, entries: [at(41, "meanwhile41"), at(35, "meanwhile35"), at(170, "meanwhile170"), at(5, "meanwhile5")] }]);
        const lines = (await reading).flatMap((r) => r.values.map((v) => v[1]));
        expect(before).toHaveLength(171);
        // the head is read as it was when the query started, in both directions
        expect({ backward, lines }).toEqual({ backward, lines: before });
        await store.close();
      } finally {
        await db.close();
      }
    }
  }, 60_000);
});
