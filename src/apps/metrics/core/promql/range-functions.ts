// Functions over range vectors (rate, increase, *_over_time, ...), evaluated
// per series and per step over the samples in each window. Each mirrors its
// Prometheus counterpart in promql/functions.go, float samples only.
import type { Call, Expr } from "./ast.ts";
import { unwrapParens } from "./ast.ts";
import { sourcesOf, stepTime, type EvalContext } from "./context.ts";
import { evalScalar } from "./evaluate.ts";
import { kahan, kahanAdd, quantile } from "./math.ts";
import { forEachWindow, matrixSource, type RangeSource } from "./selectors.ts";
import { assertUniqueLabels, dropMetricName, type RawSeries, type StepSeries } from "./series.ts";
import type { Labels } from "../types.ts";
import { subquerySource } from "./subquery.ts";

export interface Window {
  /** exclusive start and inclusive end of the window, ms */
  start: number;
  end: number;
  /** the selector's range, ms */
  range: number;
  /** evaluation time, ms */
  ts: number;
  /** the function's scalar argument at this step (quantile_over_time's φ, predict_linear's t) */
  param: number;
}

/** a value for the window's samples [lo, hi), or undefined for no output */
type RangeFn = (t: ArrayLike<number>, v: ArrayLike<number>, lo: number, hi: number, w: Window) => number | undefined;

/** Prometheus's extrapolatedRate: rate, increase and delta */
function extrapolatedRate(isCounter: boolean, isRate: boolean): RangeFn {
  return (t, v, lo, hi, w) => {
    const count = hi - lo;
    if (count < 2) return undefined;
    const firstT = t[lo]!;
    const lastT = t[hi - 1]!;
    let result = v[hi - 1]! - v[lo]!;
    if (isCounter) {
      for (let i = lo + 1; i < hi; i++) if (v[i]! < v[i - 1]!) result += v[i - 1]!;
    }
    let durationToStart = (firstT - w.start) / 1000;
    let durationToEnd = (w.end - lastT) / 1000;
    const sampledInterval = (lastT - firstT) / 1000;
    const averageDurationBetweenSamples = sampledInterval / (count - 1);
    // extrapolate to the range's edge when a sample is within 110% of the average interval of it
    const extrapolationThreshold = averageDurationBetweenSamples * 1.1;
    if (durationToStart >= extrapolationThreshold) durationToStart = averageDurationBetweenSamples / 2;
    if (isCounter) {
      // a counter cannot go below zero: do not extrapolate further back than where it would hit zero
      let durationToZero = durationToStart;
      if (result > 0 && v[lo]! >= 0) durationToZero = sampledInterval * (v[lo]! / result);
      if (durationToZero < durationToStart) durationToStart = durationToZero;
    }
    if (durationToEnd >= extrapolationThreshold) durationToEnd = averageDurationBetweenSamples / 2;
    let factor = (sampledInterval + durationToStart + durationToEnd) / sampledInterval;
    if (isRate) factor /= w.range / 1000;
    return result * factor;
  };
}

/** Prometheus's instantValue: irate and idelta from the last two samples */
function instantValue(isRate: boolean): RangeFn {
  return (t, v, lo, hi) => {
    if (hi - lo < 2) return undefined;
    const prevT = t[hi - 2]!;
    const lastT = t[hi - 1]!;
    const interval = lastT - prevT;
    if (interval === 0) return undefined;
    const prev = v[hi - 2]!;
    const last = v[hi - 1]!;
    // after a counter reset the last value is the increase
    let result = last;
    if (!isRate || !(last < prev)) result = last - prev;
    if (isRate) result /= interval / 1000;
    return result;
  };
}

/** least squares over the window: slope and intercept at interceptTime (Kahan sums) */
function linearRegression(t: ArrayLike<number>, v: ArrayLike<number>, lo: number, hi: number, interceptTime: number): [number, number] {
  let n = 0;
  let sumX = 0, cX = 0, sumY = 0, cY = 0, sumXY = 0, cXY = 0, sumX2 = 0, cX2 = 0;
  const initY = v[lo]!;
  let constY = true;
  for (let i = lo; i < hi; i++) {
    const y = v[i]!;
    if (constY && i > lo && y !== initY) constY = false;
    n++;
    const x = (t[i]! - interceptTime) / 1e3;
    sumX = kahanAdd(x, sumX, cX);
    cX = kahan.c;
    sumY = kahanAdd(y, sumY, cY);
    cY = kahan.c;
    sumXY = kahanAdd(x * y, sumXY, cXY);
    cXY = kahan.c;
    sumX2 = kahanAdd(x * x, sumX2, cX2);
    cX2 = kahan.c;
  }
  if (constY) {
    if (initY === Infinity || initY === -Infinity) return [NaN, NaN];
    return [0, initY];
  }
  sumX += cX;
  sumY += cY;
  sumXY += cXY;
  sumX2 += cX2;
  const covXY = sumXY - (sumX * sumY) / n;
  const varX = sumX2 - (sumX * sumX) / n;
  const slope = covXY / varX;
  return [slope, sumY / n - (slope * sumX) / n];
}

function avgOverTime(_t: ArrayLike<number>, v: ArrayLike<number>, lo: number, hi: number): number {
  // direct mean with Kahan summation until the sum would overflow, then incremental mean
  let sum = v[lo]!;
  let count = 1;
  let mean = 0;
  let c = 0;
  let incremental = false;
  for (let i = lo + 1; i < hi; i++) {
    const f = v[i]!;
    count = i - lo + 1;
    if (!incremental) {
      // Kahan-Neumaier, inlined: this loop runs once per sample per step
      const newSum = sum + f;
      if (newSum !== Infinity && newSum !== -Infinity) {
        if (Math.abs(sum) >= Math.abs(f)) c += sum - newSum + f;
        else c += f - newSum + sum;
        sum = newSum;
        continue;
      }
      incremental = true;
      mean = sum / (count - 1);
      c /= count - 1;
    }
    const q = (count - 1) / count;
    mean = kahanAdd(f / count, q * mean, q * c);
    c = kahan.c;
  }
  if (incremental) return mean + c;
  return sum / count + c / count;
}

function variance(_t: ArrayLike<number>, v: ArrayLike<number>, lo: number, hi: number): number {
  let count = 0;
  let mean = 0, cMean = 0, aux = 0, cAux = 0;
  for (let i = lo; i < hi; i++) {
    const f = v[i]!;
    count++;
    const delta = f - (mean + cMean);
    mean = kahanAdd(delta / count, mean, cMean);
    cMean = kahan.c;
    aux = kahanAdd(delta * (f - (mean + cMean)), aux, cAux);
    cAux = kahan.c;
  }
  return (aux + cAux) / count;
}

function extreme(better: (cur: number, best: number) => boolean): RangeFn {
  return (_t, v, lo, hi) => {
    let best = v[lo]!;
    for (let i = lo; i < hi; i++) {
      const f = v[i]!;
      if (better(f, best) || Number.isNaN(best)) best = f;
    }
    return best;
  };
}

const RANGE_FUNCTIONS: Record<string, RangeFn> = {
  rate: extrapolatedRate(true, true),
  increase: extrapolatedRate(true, false),
  delta: extrapolatedRate(false, false),
  irate: instantValue(true),
  idelta: instantValue(false),
  deriv: (t, v, lo, hi) => (hi - lo < 2 ? undefined : linearRegression(t, v, lo, hi, t[lo]!)[0]),
  predict_linear: (t, v, lo, hi, w) => {
    if (hi - lo < 2) return undefined;
    const [slope, intercept] = linearRegression(t, v, lo, hi, w.ts);
    return slope * w.param + intercept;
  },
  changes: (_t, v, lo, hi) => {
    let n = 0;
    for (let i = lo + 1; i < hi; i++) {
      const cur = v[i]!;
      const prev = v[i - 1]!;
      if (cur !== prev && !(Number.isNaN(cur) && Number.isNaN(prev))) n++;
    }
    return n;
  },
  resets: (_t, v, lo, hi) => {
    let n = 0;
    for (let i = lo + 1; i < hi; i++) if (v[i]! < v[i - 1]!) n++;
    return n;
  },
  avg_over_time: avgOverTime,
  sum_over_time: (_t, v, lo, hi) => {
    let sum = 0;
    let c = 0;
    for (let i = lo; i < hi; i++) {
      // Kahan-Neumaier, inlined: this loop runs once per sample per step
      const inc = v[i]!;
      const t = sum + inc;
      if (t === Infinity || t === -Infinity) c = 0;
      else if (Math.abs(sum) >= Math.abs(inc)) c += sum - t + inc;
      else c += inc - t + sum;
      sum = t;
    }
    return sum === Infinity || sum === -Infinity ? sum : sum + c;
  },
  count_over_time: (_t, _v, lo, hi) => hi - lo,
  min_over_time: extreme((cur, best) => cur < best),
  max_over_time: extreme((cur, best) => cur > best),
  last_over_time: (_t, v, _lo, hi) => v[hi - 1]!,
  present_over_time: () => 1,
  stddev_over_time: (t, v, lo, hi) => Math.sqrt(variance(t, v, lo, hi)),
  stdvar_over_time: variance,
  quantile_over_time: (_t, v, lo, hi, w) => {
    const values: number[] = [];
    for (let i = lo; i < hi; i++) values.push(v[i]!);
    return quantile(w.param, values);
  },
};

/** whether a function takes a range vector */
export function isRangeFunction(name: string): boolean {
  return name in RANGE_FUNCTIONS || name === "absent_over_time";
}

function rangeSource(arg: Expr, ctx: EvalContext): RangeSource {
  const e = unwrapParens(arg);
  if (e.kind === "matrixSelector") return matrixSource(e, ctx);
  if (e.kind === "subquery") return subquerySource(e, ctx);
  throw new Error(`range vector expected, got ${e.kind}`);
}

export function evalRangeFunction(call: Call, ctx: EvalContext): StepSeries[] {
  const matrixIndex = call.func === "quantile_over_time" ? 1 : 0;
  const src = rangeSource(call.args[matrixIndex]!, ctx);
  const paramArg = call.args.find((_, i) => i !== matrixIndex);
  const params = paramArg ? evalScalar(paramArg, ctx) : undefined;
  if (call.func === "absent_over_time") return absentOverTime(call, src, ctx);
  // last_over_time acts like an offset: it keeps the metric name
  const keepName = call.func === "last_over_time";
  const out: StepSeries[] = [];
  const inputs: object[] = [];
  let steps: number[] = [];
  let values: number[] = [];
  forEachValue(call.func, src, params, ctx, (s, step, value, last) => {
    if (step >= 0) {
      steps.push(step);
      values.push(value);
    }
    if (last && steps.length > 0) {
      out.push({ labels: keepName ? s.labels : dropMetricName(s.labels), steps, values });
      // the labels object is the input series' identity in every slice (stale-free copies keep it)
      inputs.push(s.labels);
      steps = [];
      values = [];
    }
  });
  if (!uniqueByConstruction(call.args[matrixIndex]!, keepName, src.series)) assertUniqueLabels(out, inputs, sourcesOf(ctx, call));
  return out;
}

/**
 * A range function over a selector evaluated straight into a consumer:
 * `start(inputs)` is given the number of input series and returns what takes
 * each value with its input series' labels and whether the function's output
 * drops the name from them (dropMetricName), series by series in input
 * order, steps ascending (or undefined to decline). Returns how many values
 * there were, or undefined (having evaluated nothing) when the function's
 * output could repeat a label set (evalRangeFunction checks that), it is not
 * a range function over a selector, or `start` declined.
 */
export function foldRangeFunction(
  call: Call,
  ctx: EvalContext,
  start: (inputs: number) => ((labels: Labels, dropsName: boolean, step: number, value: number) => void) | undefined,
): number | undefined {
  if (!(call.func in RANGE_FUNCTIONS)) return undefined;
  const matrixIndex = call.func === "quantile_over_time" ? 1 : 0;
  const arg = unwrapParens(call.args[matrixIndex]!);
  if (arg.kind !== "matrixSelector") return undefined;
  const src = matrixSource(arg, ctx);
  const keepName = call.func === "last_over_time";
  if (!uniqueByConstruction(arg, keepName, src.series)) return undefined;
  const take = start(src.series.length);
  if (!take) return undefined;
  const paramArg = call.args.find((_, i) => i !== matrixIndex);
  const params = paramArg ? evalScalar(paramArg, ctx) : undefined;
  let produced = 0;
  forEachValue(call.func, src, params, ctx, (s, step, value) => {
    if (step < 0) return;
    take(s.labels, !keepName, step, value);
    produced++;
  });
  return produced;
}

/**
 * Evaluates a range function for every series and step of a source, calling
 * `each(series, step, value, false)` for every value, then
 * `each(series, -1, NaN, true)` once per series when it is done.
 */
function forEachValue(
  func: string,
  src: RangeSource,
  params: Float64Array | undefined,
  ctx: EvalContext,
  each: (s: RawSeries, step: number, value: number, last: boolean) => void,
): void {
  const fn = RANGE_FUNCTIONS[func]!;
  const w: Window = { start: 0, end: 0, range: src.range, ts: 0, param: NaN };
  // one callback for all series (this runs per series and step)
  let s: RawSeries | undefined;
  const window = (step: number, lo: number, hi: number, end: number) => {
    w.end = end;
    w.start = end - src.range;
    w.ts = stepTime(ctx, step);
    w.param = params ? params[step]! : NaN;
    const value = fn(s!.t, s!.v, lo, hi, w);
    if (value !== undefined) each(s!, step, value, false);
  };
  for (const series of src.series) {
    s = series;
    forEachWindow(series, src, ctx, window);
    each(series, -1, NaN, true);
  }
}

/**
 * whether the output's label sets cannot repeat, so checking them is not
 * needed: one selector's series (all distinct) that keep their labels, or
 * lose only a name every one of them shares (an equality matcher on it) and
 * carry no other metadata label
 */
function uniqueByConstruction(arg: Expr, keepName: boolean, inputs: readonly RawSeries[]): boolean {
  const e = unwrapParens(arg);
  if (e.kind !== "matrixSelector") return false;
  if (keepName) return true;
  if (!e.selector.matchers.some((m) => m.name === "__name__" && m.type === "=")) return false;
  for (const s of inputs) if ("__type__" in s.labels || "__unit__" in s.labels) return false;
  return true;
}

function absentOverTime(call: Call, src: RangeSource, ctx: EvalContext): StepSeries[] {
  const present = new Uint8Array(ctx.numSteps);
  for (const s of src.series) forEachWindow(s, src, ctx, (step) => (present[step] = 1));
  const steps: number[] = [];
  for (let i = 0; i < ctx.numSteps; i++) if (!present[i]) steps.push(i);
  if (steps.length === 0) return [];
  return [{ labels: absentLabels(call.args[0]!), steps, values: steps.map(() => 1) }];
}

/** the labels absent() and absent_over_time() give their series: the selector's equality matchers */
export function absentLabels(arg: Expr): Record<string, string> {
  const e = unwrapParens(arg);
  const matchers = e.kind === "vectorSelector" ? e.matchers : e.kind === "matrixSelector" ? e.selector.matchers : [];
  const labels: Record<string, string> = {};
  const seen = new Set<string>();
  for (const m of matchers) {
    if (m.name === "__name__") continue;
    if (m.type === "=" && !seen.has(m.name)) {
      if (m.value === "") delete labels[m.name];
      else labels[m.name] = m.value;
      seen.add(m.name);
    } else delete labels[m.name];
  }
  return labels;
}
