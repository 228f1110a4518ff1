// A small head with every kind of series a checkpoint saves (open and closed
// chunks, a stale marker last, a series in the database, one never named by
// raw bytes, non-ASCII labels, metadata): the same head each time, for the
// checkpoint format tests and for the fixture of an older format
// (fixtures/checkpoint-v1.bin, written by the release before version 2 from
// this function).
import type { HeadSeries, TenantHead } from "../../src/apps/metrics/core/head.ts";

export const SAMPLE_T = 1_790_000_000_000;

export function fillSampleHead(h: TenantHead): void {
  h.metadata.set("m0", { type: "counter", help: "requests ü", unit: "" });
  h.metadata.set("m1", { type: "gauge", help: "", unit: "bytes" });
  for (let i = 0; i < 24; i++) {
    const pairs = [{ name: "__name__", value: `m${i % 3}` }, { name: "job", value: "j" }, { name: "s", value: String(i) }];
    if (i % 5 === 0) pairs.push({ name: "u", value: `ü-${i}-日本` });
    const s = h.addSeries(pairs);
    if (i % 4 !== 0) h.setRaw(1000 + i * 7919, (i * 2654435761) >>> 0, s);
    const n = (i * 37) % 290;
    for (let k = 0; k < n; k++) h.append(s, SAMPLE_T + k * 15_000, i % 2 ? i + k * 0.5 : ((i * 7919 + k * 104729) % 1009) / 7, SAMPLE_T + k);
    if (i % 6 === 0) h.append(s, SAMPLE_T + 300 * 15_000, Number.NaN, SAMPLE_T + 300, true);
    if (i % 7 === 0) {
      s.persisted = true;
      s.persistedMaxT = SAMPLE_T - 15_000;
      s.firstT = SAMPLE_T - 3_600_000;
    }
    if (i % 3 !== 2) h.activate(s, SAMPLE_T + 1000 + i);
  }
}

/** what a checkpoint must give back of a head, as plain data */
export function describeHead(h: TenantHead): unknown {
  const series = [...h.byId.values()].map((s: HeadSeries) => {
    const n = s.open?.count ?? 0;
    const t = new Float64Array(n);
    const v = new Uint32Array(2 * n);
    s.open?.decodeInto(t, v);
    return {
      id: s.id, labels: { ...s.labels }, firstT: s.firstT, lastT: s.lastT, lastV: String(s.lastV), lastStale: s.lastStale, lastKnown: s.lastKnown,
      persisted: s.persisted, persistedMaxT: s.persistedMaxT, lastSeen: s.lastSeen, active: s.active, openMinT: n ? s.openMinT : undefined, openedAt: n ? s.openedAt : undefined,
      open: { t: Array.from(t), v: Array.from(v) }, closed: s.closed.map((c) => ({ minT: c.minT, maxT: c.maxT, samples: c.samples, data: Array.from(c.data) })),
      raw: s.rawKey ? [s.rawKey, s.rawCheck, h.findRaw(s.rawKey, s.rawCheck) === s] : undefined,
    };
  });
  return { tenant: h.tenant, maxT: h.maxT, nextId: h.nextSeriesId, active: h.activeCount, metadata: [...h.metadata], series };
}
