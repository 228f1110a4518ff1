// The write path's fast path: a series the head knows by the raw bytes of its
// labels is not decoded nor validated again, unless the tenant's limits have
// changed since; what it stores is the same either way.
import { describe, expect, it } from "vitest";
import { ingest, ingestPacked } from "../../src/apps/metrics/core/ingest.ts";
import { packWriteRequest, unpackWriteRequest } from "../../src/apps/metrics/core/push-decode.ts";
import { mulberry32 } from "../helpers/rng.ts";
import { decodeWriteRequest, uncompressBody } from "../../src/apps/metrics/core/remote-write.ts";
import { newBudget, openMetricsStore } from "../../src/apps/metrics/core/store.ts";
import type { MetricsLimits } from "../../src/apps/metrics/core/types.ts";
import { loadConfig } from "../../src/config/load.ts";
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { ingestDeps, ownSamples, writeBody } from "./helpers.ts";

describe("ingest: series known by their raw labels", () => {
  it("skips decoding known labels, re-validates when the limits change, and stores the same samples", async () => {
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const store = await openMetricsStore({ pg: db.pg, logger: silentLogger, now: Date.now, flushInterval: 3_600_000 });
      let limits: MetricsLimits = { ...loadConfig().metrics.limits };
      const deps = ingestDeps(store, () => limits);
      const t = Date.now();
      const labels = { __name__: "fast", job: "a", zone: "z" };
      const push = (ts: number) => {
        const raw = writeBody([{ labels, samples: [[ts, ts - t]] }]);
        const head = store.peek("t");
        const request = decodeWriteRequest(uncompressBody(raw, 100 * 1024 * 1024), head ? (k, check) => head.findRaw(k, check) !== undefined : undefined);
        return { request, result: ingest(deps, "t", request, raw) };
      };
      const first = push(t);
      expect(first.result.status).toBe(200);
      expect(first.request.timeseries[0]!.labelsSkipped).toBe(false);
      const second = push(t + 1000);
      expect(second.result.status).toBe(200);
      expect(second.request.timeseries[0]!.labelsSkipped).toBe(true);
      expect(second.request.timeseries[0]!.labels).toEqual([]);
      // a stricter limit applies to the known series at its next push
      limits = { ...limits, max_label_names_per_series: 2 };
      const third = push(t + 2000);
      expect(third.result.status).toBe(400);
      expect(third.result.message).toContain("(actual: 3, limit: 2)");
      expect(third.result.message).toContain("series: '{__name__=\"fast\", job=\"a\", zone=\"z\"}'");
      const read = await store.querier("t", newBudget(0, 0)).select([{ type: "=", name: "__name__", value: "fast" }], 0, t + 10_000);
      expect(read.map((s) => ({ labels: s.labels, t: Array.from(ownSamples(s).t), v: Array.from(ownSamples(s).v) }))).toEqual([{ labels, t: [t, t + 1000], v: [0, 1000] }]);
      await store.close();
    } finally {
      await db.close();
    }
  });

  it("a push stored straight from its packed form ends as ingest() stores it, answers alike, and falls back when it must", async () => {
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const open = () => openMetricsStore({ pg: db.pg, logger: silentLogger, now: Date.now, flushInterval: 3_600_000 });
      const [plain, packed] = [await open(), await open()];
      const limits: MetricsLimits = { ...loadConfig().metrics.limits, ingestion_rate: 1e9, ingestion_burst_size: 1e9 };
      const plainDeps = ingestDeps(plain, () => limits);
      const packedDeps = ingestDeps(packed, () => limits);
      const rand = mulberry32(7);
      const t0 = Date.now() - 30 * 60_000;
      let straight = 0;
      for (let round = 0; round < 60; round++) {
        // 6 series, some named twice in a push, some samples out of order, duplicated, too far ahead or stale
        const series = Array.from({ length: 1 + Math.floor(rand() * 8) }, () => {
          const k = Math.floor(rand() * 6);
          const base = t0 + round * 10_000 + Math.floor(rand() * 3) * 1000;
          const odd = rand();
          const t = odd < 0.05 ? base - 20_000 : odd < 0.08 ? base + 3_600_000 : base;
          return { labels: { __name__: `p${k % 2}`, k: String(k) }, samples: [[t, odd < 0.1 ? Number.NaN : round]] as Array<[number, number]> };
        });
        const raw = writeBody(series);
        const body = uncompressBody(raw, 1 << 26);
        const want = ingest(plainDeps, "t", decodeWriteRequest(body), raw);
        const p = packWriteRequest(body);
        const direct = ingestPacked(packedDeps, "t", p, raw);
        if (direct) straight++;
        const got = direct ?? ingest(packedDeps, "t", unpackWriteRequest(p, (k, c) => packed.peek("t")?.findRaw(k, c) !== undefined), raw);
        expect(got).toEqual(want);
      }
      // most pushes of known series went straight; the odd ones through ingest()
      expect(straight).toBeGreaterThan(10);
      const read = async (store: typeof plain) =>
        (await store.querier("t", newBudget(0, 0)).select([{ type: "=~", name: "__name__", value: ".+" }], 0, Date.now() + 7_200_000)).map((s) => ({
          labels: s.labels,
          t: Array.from(ownSamples(s).t),
          v: Array.from(ownSamples(s).v),
        }));
      expect(await read(packed)).toEqual(await read(plain));
      await plain.close();
      await packed.close();
    } finally {
      await db.close();
    }
  });
});
