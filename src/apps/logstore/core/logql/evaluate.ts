// Running a parsed query over the selected streams: log queries give streams
// of [ts, line] (limit counted across streams, newest first when backward);
// metric queries give a matrix over steps or a vector at one time.
import { tsText, type Entry } from "../chunks.ts";
import { labelText } from "../push-decode.ts";
import { mergeLanes } from "../merge.ts";
import type { LogStore, Stream } from "../store.ts";
import type { LogQuery, MetricQuery, RangeAggregation, VectorAggregation } from "./parse.ts";
import { matchesAll, runPipeline } from "./pipeline.ts";

export interface Source {
  store: LogStore;
  /** tenants the query reads; with several, results carry __tenant_id__ */
  tenants: string[];
  /** the most characters a line_format / label_format rendering may make (the template's default when absent) */
  maxTemplateOutput?: number;
}

export interface SelectedStream {
  stream: Stream;
  labels: Record<string, string>;
}

export function selectStreams(src: Source, query: LogQuery): SelectedStream[] {
  const multi = src.tenants.length > 1;
  const out: SelectedStream[] = [];
  for (const tenant of src.tenants) {
    for (const stream of src.store.streams(tenant)) {
      const labels = multi ? { ...stream.labels, __tenant_id__: tenant } : stream.labels;
      if (matchesAll(query.matchers, labels)) out.push({ stream, labels });
    }
  }
  return out;
}

/** the text of a stream's own labels object (never changed once made), kept across queries */
const streamLabelTexts = new WeakMap<Record<string, string>, string>();

export interface StreamResult {
  stream: Record<string, string>;
  values: Array<[string, string]>;
}

/**
 * The first `limit` entries through the pipeline in time order across the
 * selected streams (newest first when backward), read by a merge that stops
 * once the answer is decided. Equal timestamps keep stream order. Results are
 * grouped by output labels in order of first appearance.
 */
export async function runLogQuery(src: Source, q: LogQuery, from: bigint, to: bigint, limit: number, backward: boolean): Promise<StreamResult[]> {
  const selected = selectStreams(src, q);
  const byStream = new Map<string, StreamResult>();
  // the output key of a label set: the stream's own labels object is reused while no stage changes it
  const keys = streamLabelTexts;
  let taken = 0;
  if (limit <= 0) return [];
  await mergeLanes(selected.map((s) => ({ runs: src.store.runs(s.stream) })), from, to, backward, (lane, e) => {
    const s = selected[lane]!;
    const p = runPipeline(q.stages, e.line, s.labels, src.maxTemplateOutput);
    if (!p) return true;
    let key = keys.get(p.labels);
    if (key === undefined) {
      key = labelText(p.labels);
      if (p.labels === s.labels) keys.set(p.labels, key);
    }
    let r = byStream.get(key);
    if (!r) byStream.set(key, (r = { stream: p.labels, values: [] }));
    r.values.push([tsText(e), p.line]);
    return ++taken < limit;
  });
  return [...byStream.values()];
}

export interface Series {
  metric: Record<string, string>;
  /** step time (ms) -> value */
  points: Map<number, number>;
}

/** the entries of each output series of a range aggregation's log query, oldest first */
async function collect(src: Source, r: RangeAggregation, fromMs: number, toMs: number) {
  const groups = new Map<string, { labels: Record<string, string>; ts: number[]; bytes: number[] }>();
  const from = BigInt(fromMs - r.rangeMs) * 1_000_000n + 1n;
  const to = BigInt(toMs) * 1_000_000n + 1n;
  for (const s of selectStreams(src, r.query)) {
    await src.store.scan(s.stream, from, to, false, (e: Entry) => {
      const p = runPipeline(r.query.stages, e.line, s.labels, src.maxTemplateOutput);
      if (!p) return true;
      const key = labelText(p.labels);
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { labels: p.labels, ts: [], bytes: [] }));
      g.ts.push(Number(e.ts / 1_000_000n));
      g.bytes.push(Buffer.byteLength(e.line));
      return true;
    });
  }
  return groups;
}

/** the step times of a range query: start, start+step, ... up to end */
export function stepsOf(startMs: number, endMs: number, stepMs: number): number[] {
  const out: number[] = [];
  for (let t = startMs; t <= endMs; t += stepMs) out.push(t);
  return out;
}

async function rangeAggregation(src: Source, r: RangeAggregation, steps: number[]): Promise<Series[]> {
  const groups = await collect(src, r, steps[0]!, steps.at(-1)!);
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
      // the window (t - range, t]
      while (hi < ts.length && ts[hi]! <= t) sum += bytes[hi++]!;
      while (lo < hi && ts[lo]! <= t - r.rangeMs) sum -= bytes[lo++]!;
      const count = hi - lo;
      if (!count) continue;
      const value = r.op === "count_over_time" ? count : r.op === "rate" ? count / seconds : r.op === "bytes_over_time" ? sum : sum / seconds;
      points.set(t, value);
    }
    if (points.size) out.push({ metric: g.labels, points });
  }
  return out;
}

function groupKey(labels: Record<string, string>, grouping: VectorAggregation["grouping"]): Record<string, string> {
  if (!grouping) return {};
  const out: Record<string, string> = {};
  if (grouping.without) {
    for (const [k, v] of Object.entries(labels)) if (!grouping.labels.includes(k)) out[k] = v;
  } else {
    for (const k of grouping.labels) if (labels[k] !== undefined) out[k] = labels[k]!;
  }
  return out;
}

function vectorAggregation(v: VectorAggregation, inner: Series[], steps: number[]): Series[] {
  if (v.op === "topk" || v.op === "bottomk") {
    const keep = new Map<Series, Map<number, number>>();
    for (const t of steps) {
      const groups = new Map<string, Series[]>();
      for (const s of inner) {
        if (!s.points.has(t)) continue;
        const key = labelText(groupKey(s.metric, v.grouping));
        groups.set(key, [...(groups.get(key) ?? []), s]);
      }
      for (const members of groups.values()) {
        members.sort((a, b) => (v.op === "topk" ? b.points.get(t)! - a.points.get(t)! : a.points.get(t)! - b.points.get(t)!));
        for (const s of members.slice(0, v.param)) {
          let m = keep.get(s);
          if (!m) keep.set(s, (m = new Map()));
          m.set(t, s.points.get(t)!);
        }
      }
    }
    return [...keep].map(([s, points]) => ({ metric: s.metric, points }));
  }
  const groups = new Map<string, { metric: Record<string, string>; members: Series[] }>();
  for (const s of inner) {
    const metric = groupKey(s.metric, v.grouping);
    const key = labelText(metric);
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { metric, members: [] }));
    g.members.push(s);
  }
  const out: Series[] = [];
  for (const g of groups.values()) {
    const points = new Map<number, number>();
    for (const t of steps) {
      const values = g.members.map((s) => s.points.get(t)).filter((x): x is number => x !== undefined);
      if (!values.length) continue;
      const sum = values.reduce((a, b) => a + b, 0);
      const value = v.op === "sum" ? sum : v.op === "avg" ? sum / values.length : v.op === "min" ? Math.min(...values) : v.op === "max" ? Math.max(...values) : values.length;
      points.set(t, value);
    }
    if (points.size) out.push({ metric: g.metric, points });
  }
  return out;
}

export async function runMetricQuery(src: Source, q: MetricQuery, steps: number[]): Promise<Series[]> {
  if (q.kind === "range") return rangeAggregation(src, q, steps);
  return vectorAggregation(q, await runMetricQuery(src, q.inner, steps), steps);
}

/** Prometheus-style sample value text */
export function formatValue(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  return String(v);
}
