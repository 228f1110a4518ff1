// Acknowledged samples survive kill -9 (the write-ahead log) and a clean
// restart (chunks in the database), with the server run as a separate
// process on a data dir; retention deletes old chunks.
import { describe, expect, it } from "vitest";
import { newBudget, openMetricsStore } from "../../src/apps/metrics/core/store.ts";
import { TenantHead } from "../../src/apps/metrics/core/head.ts";
import { STALE_NAN_BITS } from "../../src/apps/metrics/core/types.ts";
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { useDataDirServer } from "../helpers/process.ts";
import { metricsClient, ownSamples } from "./helpers.ts";

describe("metrics store durability", () => {
  const { start } = useDataDirServer("outpost-metrics-");
  const t0 = Date.now() - 40 * 60_000;
  const totals = async (base: string, at: number) => {
    const m = metricsClient(base);
    const count = await m.query("durable", "count_over_time(d_metric[1h])", at);
    return (count.body.data.result as Array<{ metric: { s: string }; value: [number, string] }>)
      .map((r) => [r.metric.s, Number(r.value[1])] as const)
      .sort((a, b) => Number(a[0]) - Number(b[0]));
  };

  it("kill -9 right after 200 loses nothing; a clean stop and restart reads the chunks back", async () => {
    const first = await start();
    const m = metricsClient(first.urls.metrics!);
    // 20 pushes × 10 series × 10 samples: 150 samples a series, more than one chunk each
    for (let i = 0; i < 15; i++) {
      const series = Array.from({ length: 10 }, (_, s) => ({
        labels: { __name__: "d_metric", s: String(s) },
        samples: Array.from({ length: 10 }, (_, j) => [t0 + (i * 10 + j) * 10_000, i * 10 + j] as [number, number]),
      }));
      const r = await m.push("durable", series);
      expect(r.status).toBe(200);
    }
    const at = t0 + 149 * 10_000;
    const expected = Array.from({ length: 10 }, (_, s) => [String(s), 150] as const);
    expect(await totals(first.urls.metrics!, at)).toEqual(expected);
    await first.stop("SIGKILL");

    const second = await start();
    expect(await totals(second.urls.metrics!, at)).toEqual(expected);
    const after = await metricsClient(second.urls.metrics!).push("durable", [{ labels: { __name__: "d_metric", s: "0" }, samples: [[at + 10_000, 150]] }]);
    expect(after.status).toBe(200);
    expect(await second.stop("SIGTERM")).toBe(0);

    const third = await start();
    const again = await totals(third.urls.metrics!, at + 10_000);
    expect(again[0]).toEqual(["0", 151]);
    expect(again.slice(1)).toEqual(expected.slice(1));
    const last = await metricsClient(third.urls.metrics!).query("durable", 'd_metric{s="3"}', at);
    expect(last.body.data.result[0].value[1]).toBe("149");
    expect(await third.stop("SIGTERM")).toBe(0);
  }, 180_000);
});

describe("metrics store retention and flushing", () => {
  it("flushed chunks are read back, and chunks past retention are deleted with their series", async () => {
    let now = Date.UTC(2026, 0, 1);
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const store = await openMetricsStore({ pg: db.pg, logger: silentLogger, now: () => now, flushInterval: 3_600_000 });
      const head: TenantHead = store.head("ret");
      const oldSeries = head.addSeriesOf({ __name__: "old" });
      const newSeries = head.addSeriesOf({ __name__: "new" });
      for (let i = 0; i < 130; i++) head.append(oldSeries, now - 3 * 3_600_000 + i * 1000, i, now);
      for (let i = 0; i < 10; i++) head.append(newSeries, now - 60_000 + i * 1000, i, now);
      head.append(newSeries, now - 50_000 + 1000, Number.NaN, now, true);
      head.activate(oldSeries, now);
      head.activate(newSeries, now);
      await store.flush(true);
      expect(oldSeries.closed).toEqual([]);
      expect(oldSeries.persistedMaxT).toBe(now - 3 * 3_600_000 + 129_000);
      const rows = await db.pg.query<{ n: number }>("select count(*)::int as n from metrics_chunks where tenant = 'ret'");
      expect(rows.rows[0]!.n).toBe(3);
      const budget = newBudget(0, 0);
      const read = await store.querier("ret", budget).select([{ type: "=", name: "__name__", value: "old" }], 0, now);
      expect(Array.from(ownSamples(read[0]!).v)).toEqual(Array.from({ length: 130 }, (_, i) => i));
      expect(budget.chunkBytes).toBeGreaterThan(0);
      // the stale marker comes back from the database with its exact bits
      const ended = await store.querier("ret", budget).select([{ type: "=", name: "__name__", value: "new" }], 0, now);
      const { v } = ownSamples(ended[0]!);
      expect(v.length).toBe(11);
      expect(new BigUint64Array(v.buffer, v.byteOffset, v.length)[10]).toBe(STALE_NAN_BITS);

      expect(await store.deleteBefore(now - 2 * 3_600_000)).toBe(2);
      expect(head.find([{ name: "__name__", value: "old" }])).toBeDefined(); // still active
      head.sweepIdle(now + 3_600_000, 20 * 60_000, true);
      now += 1;
      expect(await store.deleteBefore(now - 2 * 3_600_000)).toBe(0);
      expect(head.find([{ name: "__name__", value: "old" }])).toBeUndefined();
      expect(head.select([{ type: "=", name: "__name__", value: "new" }]).length).toBe(1);
      await store.close();
    } finally {
      await db.close();
    }
  });
});
