// The store's reads of recent data (issue 17): queries read the head's chunks
// through decoded mirrors kept beside them, chunks already written to the
// database stay in memory while recent, and the head keeps its series in
// label order. Whatever a series' samples went through — read before and
// after more appends, a chunk cut, written to the database, dropped from
// memory, read from both at once — PromQL answers exactly as from the plain
// samples (the tests' in-memory querier).
import { describe, expect, it } from "vitest";
import { CHUNK_SAMPLES, KEEP_FLUSHED_MS, mirrorBytesInUse, type HeadSeries, type TenantHead } from "../../src/apps/metrics/core/head.ts";
import { instantQuery, rangeQuery } from "../../src/apps/metrics/core/promql/index.ts";
import { newBudget, openMetricsStore, type MetricsStore } from "../../src/apps/metrics/core/store.ts";
import type { Labels } from "../../src/apps/metrics/core/types.ts";
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { ownSamples } from "./helpers.ts";
import { MemoryQuerier, type FixtureSample } from "./promql/fixture.ts";

const T0 = Date.UTC(2026, 0, 1);
const STEP = 10_000;

/** a store and a record of every sample appended, to compare against */
class Twin {
  readonly written = new Map<HeadSeries, FixtureSample[]>();
  constructor(readonly store: MetricsStore, readonly head: TenantHead) {}

  series(labels: Labels): HeadSeries {
    const s = this.head.addSeriesOf(labels);
    this.written.set(s, []);
    return s;
  }

  append(s: HeadSeries, t: number, v: number | "stale"): void {
    const stale = v === "stale";
    expect(this.head.append(s, t, stale ? Number.NaN : v, t, stale)).toBe("ok");
    this.head.activate(s, t);
    this.written.get(s)!.push([t, v]);
  }

  /** the same query against the store and against the plain samples */
  async same(query: string, at: number): Promise<void> {
    const plain = new MemoryQuerier([...this.written].map(([s, samples]) => ({ labels: { ...s.labels }, samples })));
    const want = await instantQuery(plain, query, at);
    const got = await instantQuery(this.store.querier("t", newBudget(0, 0)), query, at);
    expect({ query, at, result: got }).toEqual({ query, at, result: want });
    // and over the last 20 minutes in steps (a range vector is no range query)
    if (/^\w+\[\w+\]$/.test(query)) return;
    const range = (q: MemoryQuerier | ReturnType<MetricsStore["querier"]>) => rangeQuery(q, query, at - 20 * 60_000, at, 45_000);
    expect({ query, at, range: await range(this.store.querier("t", newBudget(0, 0))) }).toEqual({ query, at, range: await range(plain) });
  }
}

const QUERIES = [
  "c",
  "rate(c[1m])",
  "rate(c[5m])",
  "increase(c[3m])",
  "resets(c[10m])",
  "changes(c[10m])",
  "count_over_time(c[30m])",
  "last_over_time(c[2m])",
  "sum by (job) (rate(c[1m]))",
  "c[2m]",
  // instant selectors at one time read only each series' newest sample (SelectHints.lastOnly)
  "c offset 1m",
  `c @ ${(T0 + 300_000) / 1000}`,
  "timestamp(c)",
  "c - c offset 30s",
  // under a subquery they are evaluated at many times
  "max_over_time(c[5m:1m])",
  // aggregations straight over an instant selector: answered from the index's newest samples
  // at the newest time, read from the chunks before it (pushdown.ts)
  "count(c)",
  'count({__name__=~".+"})',
  "sum(c)",
  "avg by (job) (c)",
  "max without (instance) (c)",
  "min(c)",
  "group by (job) (c)",
  "stdvar by (job) (c)",
  "count(c) + sum(c offset 1m)",
];

async function withStore(run: (twin: Twin, now: { t: number }) => Promise<void>): Promise<void> {
  const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
  const now = { t: T0 };
  try {
    const store = await openMetricsStore({ pg: db.pg, logger: silentLogger, now: () => now.t, flushInterval: 3_600_000 });
    await run(new Twin(store, store.head("t")), now);
    await store.close();
  } finally {
    await db.close();
  }
}

describe("metrics store: reads of recent data", () => {
  it("answers as the plain samples do through mirrors, appends, cuts, writes to the database and drops from memory", async () => {
    await withStore(async (twin, now) => {
      const a = twin.series({ __name__: "c", job: "a", instance: "1" });
      const b = twin.series({ __name__: "c", job: "a", instance: "2" });
      const z = twin.series({ __name__: "c", job: "b", instance: "0" });
      let va = 0;
      let vb = 1000;
      let i = 0;
      const tick = (n: number) => {
        for (let k = 0; k < n; k++, i++) {
          const t = T0 + i * STEP;
          // a: a counter reset every 97 samples, so some fall right across a chunk boundary
          va = i % 97 === 96 ? 1 : va + (i % 5);
          twin.append(a, t, va);
          // b: a stale marker now and then, the series resuming after it
          if (i % 53 === 52) twin.append(b, t, "stale");
          else twin.append(b, t, (vb += 3));
          if (i % 3 === 0) twin.append(z, t + 1, i);
        }
        now.t = T0 + (i - 1) * STEP;
      };
      const check = async () => {
        for (const q of QUERIES) for (const back of [0, 30_000, 4 * 60_000]) await twin.same(q, now.t - back);
      };

      tick(40);
      await check(); // the open chunks, mirrored by the first query
      expect(mirrorBytesInUse()).toBeGreaterThan(0);
      tick(5);
      await check(); // the mirrors followed the appends
      tick(CHUNK_SAMPLES);
      expect(a.closed.length).toBe(1);
      await check(); // a closed chunk and a new open one
      await twin.store.flush();
      expect(a.closed).toEqual([]);
      expect(a.flushed.length).toBe(1);
      await check(); // written to the database, still in memory
      tick(3 * CHUNK_SAMPLES);
      await twin.store.flush();
      expect(a.flushed[0]!.maxT).toBeLessThan(now.t - KEEP_FLUSHED_MS);
      tick(1);
      await twin.store.flush();
      // the oldest chunks left memory: windows reaching back read them (and the ones still in memory) from the database
      expect(a.flushed[0]!.maxT).toBeGreaterThanOrEqual(twin.head.maxT - KEEP_FLUSHED_MS);
      await check();
      for (const q of ["count_over_time(c[2h])", "resets(c[2h])", "rate(c[20m])", "c[1h]"]) await twin.same(q, now.t);
    });
  }, 120_000);

  it("a chunk both in memory and in the database counts once", async () => {
    await withStore(async (twin, now) => {
      const s = twin.series({ __name__: "c", job: "a" });
      for (let i = 0; i < 2 * CHUNK_SAMPLES + 7; i++) twin.append(s, T0 + i * STEP, i);
      now.t = T0 + (2 * CHUNK_SAMPLES + 6) * STEP;
      await twin.store.flush(true);
      // in memory and in the database alike; a window from before the first sample reads both
      expect(s.flushed.length).toBe(3);
      const budget = newBudget(0, 0);
      const [read] = await twin.store.querier("t", budget).select([{ type: "=", name: "__name__", value: "c" }], T0 - 1, now.t);
      expect(Array.from(ownSamples(read!).t)).toEqual(Array.from({ length: 2 * CHUNK_SAMPLES + 7 }, (_, i) => T0 + i * STEP));
      await twin.same("count_over_time(c[2h])", now.t);
    });
  });

  it("a series with many chunks kept in memory: windows anywhere in them, across chunk boundaries and stale markers, answer as the plain samples", async () => {
    await withStore(async (twin, now) => {
      // a sample every 200 ms: 25 chunks in the 10 minutes written chunks stay in memory
      const fast = twin.series({ __name__: "c", job: "a", instance: "1" });
      const slow = twin.series({ __name__: "c", job: "b", instance: "1" });
      let v = 0;
      for (let i = 0; i < 4_000; i++) {
        const t = T0 + i * 200;
        v = i % 211 === 210 ? 0 : v + (i % 7);
        twin.append(fast, t, i % 97 === 96 ? "stale" : v);
        if (i % 50 === 0) twin.append(slow, t + 1, i % 500 === 450 ? "stale" : i);
        if (i % 600 === 599) {
          now.t = t;
          await twin.store.flush();
        }
      }
      now.t = T0 + 3_999 * 200;
      await twin.store.flush();
      expect(fast.flushed.length).toBeGreaterThan(20);
      // windows ending and starting on chunk boundaries, inside one chunk, spanning several, reaching past memory into the database
      const boundaries = fast.flushed.flatMap((c) => [c.minT, c.maxT]);
      const some = boundaries.filter((_, k) => k % 5 === 0);
      // and windows whose first ms is a chunk's last sample (for the ranges 20s, 1m and the lookback's 5m)
      const firsts = some.flatMap((b) => [b + 20_000 - 1, b + 60_000 - 1, b + 300_000 - 1]).filter((t) => t <= now.t);
      const times = [now.t, now.t - 1, now.t - 90_000, now.t - 333_333, ...some, ...firsts];
      for (const at of times) {
        for (const q of ["c", "rate(c[1m])", "c[20s]", "count_over_time(c[25s])", "sum by (job) (rate(c[1m]))", "max(increase(c[2m]))", "changes(c[3m])", "last_over_time(c[24s])"]) {
          await twin.same(q, at);
        }
      }
    });
  }, 240_000);

  it("a window's chunks count their encoded bytes against the chunk bytes limit, read through mirrors or not", async () => {
    await withStore(async (twin, now) => {
      const s = twin.series({ __name__: "c", job: "a" });
      const select = async (mint: number) => {
        const budget = newBudget(0, 0);
        await twin.store.querier("t", budget).select([{ type: "=", name: "__name__", value: "c" }], mint, now.t);
        return budget.chunkBytes;
      };
      for (let i = 0; i < 50; i++) twin.append(s, T0 + i * STEP, i * 1.5);
      now.t = T0 + 49 * STEP;
      // the first read makes the open chunk's mirror, the next ones read it
      expect(await select(now.t - 60_000)).toBe(s.open!.byteLength);
      expect(s.mirror).toBeDefined();
      expect(await select(now.t - 60_000)).toBe(s.open!.byteLength);
      // appends write the mirror too
      for (let i = 50; i < 60; i++) twin.append(s, T0 + i * STEP, i % 7 === 0 ? "stale" : i * 1.5);
      now.t = T0 + 59 * STEP;
      expect(await select(now.t - 60_000)).toBe(s.open!.byteLength);
      for (let i = 60; i < CHUNK_SAMPLES + 30; i++) twin.append(s, T0 + i * STEP, i % 17 === 0 ? "stale" : i * 1.5);
      now.t = T0 + (CHUNK_SAMPLES + 29) * STEP;
      expect(await select(now.t - 60_000)).toBe(s.open!.byteLength);
      // a window reaching into the closed chunk counts both
      expect(await select(now.t - 600_000)).toBe(s.closed[0]!.data.length + s.open!.byteLength);
      await twin.same("rate(c[1m])", now.t);
    });
  });

  it("series come back in label order, also after series were added between queries", async () => {
    await withStore(async (twin, now) => {
      const names = ["b", "a", "ab", "a\u00e9", "A", "a b", ""];
      const at = T0 + 60_000;
      now.t = at;
      for (const [k, n] of names.entries()) twin.append(twin.series({ __name__: "c", x: n, k: String(k) }), at - 1000, k);
      await twin.same("c", at);
      for (const [k, n] of names.entries()) twin.append(twin.series({ __name__: "c", x: n + "z", k: String(k) }), at - 1000, k);
      await twin.same("c", at);
      await twin.same('c{x=~"a.*"}', at);
      const got = await instantQuery(twin.store.querier("t", newBudget(0, 0)), "c[5m]", at);
      expect(got.resultType).toBe("matrix");
    });
  });

  it("series that differ only in __type__ still clash once rate() drops the name", async () => {
    await withStore(async (twin, now) => {
      const at = T0 + 120_000;
      now.t = at;
      for (const type of ["counter", "gauge"]) {
        const s = twin.series({ __name__: "c", __type__: type, job: "a" });
        for (let i = 0; i < 10; i++) twin.append(s, T0 + i * STEP, i);
      }
      await expect(instantQuery(twin.store.querier("t", newBudget(0, 0)), "rate(c[5m])", at)).rejects.toThrow("vector cannot contain metrics with the same labelset");
      // last_over_time keeps the name: no clash
      const kept = await instantQuery(twin.store.querier("t", newBudget(0, 0)), "last_over_time(c[5m])", at);
      expect(kept.result).toHaveLength(2);
    });
  });
});
