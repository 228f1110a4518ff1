// The values expressions evaluate to, and the label helpers every operator
// shares. An instant vector evaluated over a query's steps is a list of
// StepSeries: per series, the step indexes it has a value at (ascending) and
// those values, so a range query never materialises one object per sample.
import { ApiError } from "../../../../lib/errors.ts";
import { immutableLabels, memoOf } from "../labels-memo.ts";
import type { Labels } from "../types.ts";

export interface StepSeries {
  labels: Labels;
  /** step indexes (0 = query start), ascending */
  steps: number[];
  values: number[];
}

/**
 * samples of one series as stored: times in ms, oldest first. They are
 * t[lo..hi) and v[lo..hi): the columns may hold more (other series', or the
 * rest of a chunk), so that no series needs arrays or views of its own.
 */
export interface RawSeries {
  labels: Labels;
  t: ArrayLike<number>;
  v: ArrayLike<number>;
  lo: number;
  hi: number;
  /** 1 where the sample is a stale marker, indexed as t; absent or null when there are none */
  stale?: Uint8Array | null;
}

export type Value =
  | { type: "vector"; series: StepSeries[] }
  | { type: "scalar"; values: Float64Array }
  | { type: "string"; value: string }
  /** a range vector, only ever the top of an instant query */
  | { type: "matrix"; series: RawSeries[] };

/** how many samples or points a value holds, as the max samples limit counts them */
export function pointsOf(v: Value): number {
  let n = 0;
  switch (v.type) {
    case "scalar":
      return v.values.length;
    case "string":
      return 0;
    case "vector":
      for (const s of v.series) n += s.steps.length;
      return n;
    case "matrix":
      for (const s of v.series) n += s.hi - s.lo;
      return n;
  }
}

export const duplicateLabelset = () => new ApiError(422, "vector cannot contain metrics with the same labelset");

/** an execution error, rendered as Prometheus's 422 "execution" error */
export const execError = (message: string) => new ApiError(422, message);

const NAME = "__name__";

/** a canonical string for a label set, usable as a map key */
export function labelsKey(labels: Labels): string {
  const m = memoOf(labels);
  if (m?.key !== undefined) return m.key;
  const names = Object.keys(labels).sort();
  let key = "";
  for (const n of names) key += n + "\xff" + labels[n] + "\xff";
  if (m) m.key = key;
  return key;
}

/** the key of only some labels (Prometheus's HashForLabels: absent ones are skipped) */
export function keyOfLabels(labels: Labels, names: readonly string[]): string {
  let key = "";
  for (const n of names) {
    const v = labels[n];
    if (v !== undefined && v !== "") key += n + "\xff" + v + "\xff";
  }
  return key;
}

/** the key of all labels but some (and always without __name__, as HashWithoutLabels) */
export function keyWithoutLabels(labels: Labels, names: readonly string[]): string {
  const keep = Object.keys(labels)
    .filter((n) => n !== NAME && !names.includes(n))
    .sort();
  let key = "";
  for (const n of keep) key += n + "\xff" + labels[n] + "\xff";
  return key;
}

/** sorts items by their labels in Prometheus's order, computing each item's sorted names once */
export function sortByLabels<T>(items: T[], labelsOf: (item: T) => Labels): T[] {
  const decorated = items.map((item) => {
    const labels = labelsOf(item);
    const names = Object.keys(labels).sort();
    return { item, flat: names.flatMap((n) => [n, labels[n]!]) };
  });
  decorated.sort((a, b) => {
    const x = a.flat;
    const y = b.flat;
    const n = Math.min(x.length, y.length);
    for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return x.length - y.length;
  });
  return decorated.map((d) => d.item);
}

/** Prometheus's Labels.String(): {a="b", c="d"} */
export function labelsString(labels: Labels): string {
  const parts = Object.keys(labels)
    .sort()
    .map((n) => `${/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(n) ? n : JSON.stringify(n)}=${JSON.stringify(labels[n])}`);
  return `{${parts.join(", ")}}`;
}

/** drops __name__ and the other metadata labels (schema.IsMetadataLabel) */
export function dropMetricName(labels: Labels): Labels {
  if (!(NAME in labels) && !("__type__" in labels) && !("__unit__" in labels)) return labels;
  const m = memoOf(labels);
  if (m?.noName) return m.noName;
  const out: Labels = {};
  for (const n in labels) if (n !== NAME && n !== "__type__" && n !== "__unit__") out[n] = labels[n]!;
  // the same object every time, itself immutable: its own key and JSON are kept too
  if (m) m.noName = immutableLabels(out);
  return out;
}

/** a copy of labels with one label set, or removed when the value is empty (labels.Builder.Set) */
export function withLabel(labels: Labels, name: string, value: string): Labels {
  const out: Labels = { ...labels };
  if (value === "") delete out[name];
  else out[name] = value;
  return out;
}

/**
 * Merges series that ended up with the same labels, as Prometheus's step-wise
 * evaluation does: the same labels at different steps join into one series,
 * at the same step they are an error.
 */
export function mergeSameLabels(series: StepSeries[]): StepSeries[] {
  if (series.length < 2) return series;
  const groups = new Map<string, number[]>();
  let duplicated = false;
  for (let i = 0; i < series.length; i++) {
    const key = labelsKey(series[i]!.labels);
    const g = groups.get(key);
    if (g) {
      g.push(i);
      duplicated = true;
    } else groups.set(key, [i]);
  }
  if (!duplicated) return series;
  const out: StepSeries[] = [];
  for (const idx of groups.values()) {
    if (idx.length === 1) {
      out.push(series[idx[0]!]!);
      continue;
    }
    const pairs: Array<[number, number]> = [];
    for (const i of idx) {
      const s = series[i]!;
      for (let j = 0; j < s.steps.length; j++) pairs.push([s.steps[j]!, s.values[j]!]);
    }
    pairs.sort((a, b) => a[0] - b[0]);
    for (let j = 1; j < pairs.length; j++) if (pairs[j]![0] === pairs[j - 1]![0]) throw duplicateLabelset();
    out.push({ labels: series[idx[0]!]!.labels, steps: pairs.map((p) => p[0]), values: pairs.map((p) => p[1]) });
  }
  return out;
}

/**
 * Fails when two series share a label set at all (Prometheus's check after
 * range-vector functions, over the whole range). `sources` remembers, for
 * the node across the slices of one evaluation (slices.ts), which input series
 * each label set came from, so two inputs never overlapping in time are still
 * caught when they fall in different slices.
 */
export function assertUniqueLabels(series: StepSeries[], inputs: readonly object[], sources: Map<string, object>): void {
  for (let i = 0; i < series.length; i++) {
    const key = labelsKey(series[i]!.labels);
    const from = sources.get(key);
    if (from !== undefined && from !== inputs[i]) throw duplicateLabelset();
    sources.set(key, inputs[i]!);
  }
}

/** gathers step-wise output into series, one slot per output label set */
export class SeriesCollector {
  readonly series: StepSeries[] = [];
  private readonly lastStep: number[] = [];
  private readonly slots = new Map<string, number>();

  /** the slot for a label set (created on first use) */
  slot(labels: Labels, key: string = labelsKey(labels)): number {
    let slot = this.slots.get(key);
    if (slot === undefined) {
      slot = this.series.length;
      this.slots.set(key, slot);
      this.series.push({ labels, steps: [], values: [] });
      this.lastStep.push(-1);
    }
    return slot;
  }

  add(slot: number, step: number, value: number): void {
    if (this.lastStep[slot] === step) throw duplicateLabelset();
    this.lastStep[slot] = step;
    const s = this.series[slot]!;
    s.steps.push(step);
    s.values.push(value);
  }

  /** the series that got at least one value, in order of first appearance */
  result(): StepSeries[] {
    return this.series.filter((s) => s.steps.length > 0);
  }
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/**
 * Marks Prometheus stale markers (NaN with bits 0x7ff0000000000002). The bits
 * are read from the typed array's buffer: a NaN read into a JS value loses its
 * payload on JavaScriptCore (Bun) and is quieted on V8.
 */
export function staleMask(v: ArrayLike<number>, lo = 0, hi = v.length): Uint8Array | undefined {
  let mask: Uint8Array | undefined;
  if (v instanceof Float64Array) {
    const bits = new Uint32Array(v.buffer, v.byteOffset, v.length * 2);
    for (let i = lo; i < hi; i++) {
      if (bits[2 * i] === 2 && bits[2 * i + 1] === 0x7ff00000) (mask ??= new Uint8Array(v.length))[i] = 1;
    }
    return mask;
  }
  for (let i = lo; i < hi; i++) {
    const x = v[i]!;
    if (x === x) continue;
    f64[0] = x;
    if (u32[0] === 2 && (u32[1] === 0x7ff00000 || u32[1] === 0x7ff80000)) (mask ??= new Uint8Array(v.length))[i] = 1;
  }
  return mask;
}
