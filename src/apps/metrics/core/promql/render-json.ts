// The Prometheus API's `data` of a query as JSON text, written in time slices
// (issue 16 #2): a result of millions of points is rendered piece by piece,
// yielding to the event loop, without building one [time, "value"] array per
// point first. The text is what JSON.stringify of instantQuery's or
// rangeQuery's QueryResult gives.
import { createTimeSlicer, type TimeSlicer } from "../../../../lib/time-slice.ts";
import { holdSamples, QUERY_SLICE_MS, type QueryBudget } from "../query-budget.ts";
import { formatSampleValue } from "./format.ts";
import { memoOf } from "../labels-memo.ts";
import { pointsOf, sortByLabels, type Value } from "./series.ts";
import type { Labels } from "../types.ts";

/**
 * Points of the answer count again while it is written: with its text and the
 * pieces it is joined from, an answer point took about 4 times the memory of
 * an evaluated point (bench/query-cost.ts: 4.3M points, +583 MB).
 */
const RENDER_WEIGHT = 4;

/** labels with their names in order, as Prometheus writes them */
export function sortedLabels(labels: Labels): Labels {
  const out: Labels = {};
  for (const n of Object.keys(labels).sort()) out[n] = labels[n]!;
  return out;
}

/** the JSON of labels in name order (kept for the label sets that never change) */
export function labelsJson(labels: Labels): string {
  const m = memoOf(labels);
  if (m?.json !== undefined) return m.json;
  const json = JSON.stringify(sortedLabels(labels));
  if (m) m.json = json;
  return json;
}

// a formatted sample value ("1.5", "NaN", "+Inf", "1e+21") needs no escaping in JSON
const point = (t: number, v: number) => `[${t},"${formatSampleValue(v)}"]`;

/** points written between two looks at the clock */
const CHUNK = 20_000;

/** one series' {"metric":..,"values":[..]} (or "value" for one point of an instant vector) */
async function seriesJson(labels: Labels, n: number, pointAt: (i: number) => string, slicer: TimeSlicer): Promise<string> {
  const chunks: string[] = [];
  for (let from = 0; from < n; from += CHUNK) {
    const to = Math.min(n, from + CHUNK);
    const part: string[] = new Array(to - from);
    for (let i = from; i < to; i++) part[i - from] = pointAt(i);
    chunks.push(part.join(","));
    await slicer.pause();
  }
  return `{"metric":${labelsJson(labels)},"values":[${chunks.join(",")}]}`;
}

/** an instant query's value at time t (ms) */
export async function instantJson(value: Value, timeMs: number, budget: QueryBudget): Promise<string> {
  const t = timeMs / 1000;
  const slicer = createTimeSlicer(QUERY_SLICE_MS);
  switch (value.type) {
    case "scalar":
      return `{"resultType":"scalar","result":${point(t, value.values[0]!)}}`;
    case "string":
      return JSON.stringify({ resultType: "string", result: [t, value.value] });
    case "vector": {
      holdSamples(budget, pointsOf(value) * RENDER_WEIGHT);
      const parts: string[] = [];
      for (let i = 0; i < value.series.length; i++) {
        const s = value.series[i]!;
        parts.push(`{"metric":${labelsJson(s.labels)},"value":${point(t, s.values[0]!)}}`);
        if ((i & 255) === 255) await slicer.pause();
      }
      return `{"resultType":"vector","result":[${parts.join(",")}]}`;
    }
    case "matrix": {
      holdSamples(budget, pointsOf(value) * RENDER_WEIGHT);
      const parts: string[] = [];
      for (const s of sortByLabels(value.series, (x) => x.labels)) {
        parts.push(await seriesJson(s.labels, s.hi - s.lo, (i) => point(s.t[s.lo + i]! / 1000, s.v[s.lo + i]!), slicer));
      }
      return `{"resultType":"matrix","result":[${parts.join(",")}]}`;
    }
  }
}

/** a range query's value over start, start + step, ... (ms): always a matrix sorted by labels */
export async function rangeJson(value: Value, startMs: number, stepMs: number, budget: QueryBudget): Promise<string> {
  const time = (step: number) => (startMs + step * stepMs) / 1000;
  const slicer = createTimeSlicer(QUERY_SLICE_MS);
  if (value.type === "scalar") {
    if (!value.values.length) return `{"resultType":"matrix","result":[]}`;
    holdSamples(budget, value.values.length * RENDER_WEIGHT);
    return `{"resultType":"matrix","result":[${await seriesJson({}, value.values.length, (i) => point(time(i), value.values[i]!), slicer)}]}`;
  }
  if (value.type !== "vector") return `{"resultType":"matrix","result":[]}`;
  holdSamples(budget, pointsOf(value) * RENDER_WEIGHT);
  const parts: string[] = [];
  for (const s of sortByLabels(value.series, (x) => x.labels)) {
    parts.push(await seriesJson(s.labels, s.steps.length, (i) => point(time(s.steps[i]!), s.values[i]!), slicer));
  }
  return `{"resultType":"matrix","result":[${parts.join(",")}]}`;
}
