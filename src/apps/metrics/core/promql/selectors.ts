// Selectors evaluated from the fetched samples. An instant selector takes, at
// each step T, the newest sample in (T - lookback, T] unless it is a stale
// marker; a range selector's window is (T - range, T] without stale markers
// (left-open, as Prometheus since 3.0). Offsets and @ move T.
import type { MatrixSelector, VectorSelector } from "./ast.ts";
import { stepTime, type EvalContext } from "./context.ts";
import { atTime } from "./fetch.ts";
import { dropMetricName, type RawSeries, type StepSeries } from "./series.ts";

/** index of the last of times [from, to) <= ref, or from - 1 */
export function lastAtOrBefore(t: ArrayLike<number>, ref: number, from = 0, to = t.length): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t[mid]! <= ref) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * An instant vector selector at every step. With `timestamps`, the value is
 * the chosen sample's time in seconds and the name is dropped (timestamp()).
 */
export function evalVectorSelector(vs: VectorSelector, ctx: EvalContext, timestamps = false): StepSeries[] {
  const data = ctx.data.get(vs) ?? [];
  const lookback = ctx.times.lookback;
  const fixed = vs.at ? atTime(vs.at, ctx.times) - vs.offset : undefined;
  const out: StepSeries[] = [];
  for (const s of data) {
    const { t, v, stale, lo: first, hi: n } = s;
    const steps: number[] = [];
    const values: number[] = [];
    if (fixed !== undefined) {
      const k = lastAtOrBefore(t, fixed, first, n);
      if (k >= first && t[k]! > fixed - lookback && !(stale && stale[k] === 1)) {
        const value = timestamps ? t[k]! / 1000 : v[k]!;
        for (let i = 0; i < ctx.numSteps; i++) {
          steps.push(i);
          values.push(value);
        }
      }
    } else {
      // start at the first step's sample (a slice of a longer evaluation starts midway)
      let j = ctx.numSteps > 0 ? lastAtOrBefore(t, stepTime(ctx, 0) - vs.offset, first, n) + 1 : first;
      for (let i = 0; i < ctx.numSteps; i++) {
        const ref = stepTime(ctx, i) - vs.offset;
        while (j < n && t[j]! <= ref) j++;
        const k = j - 1;
        if (k >= first && t[k]! > ref - lookback && !(stale && stale[k] === 1)) {
          steps.push(i);
          values.push(timestamps ? t[k]! / 1000 : v[k]!);
        }
      }
    }
    if (steps.length > 0) out.push({ labels: timestamps ? dropMetricName(s.labels) : s.labels, steps, values });
  }
  return out;
}

/** a series' samples without its stale markers */
export function withoutStale(s: RawSeries): RawSeries {
  const stale = s.stale;
  if (!stale) return s;
  let markers = 0;
  for (let i = s.lo; i < s.hi; i++) markers += stale[i]!;
  if (markers === 0) return s;
  const n = s.hi - s.lo - markers;
  const t = new Float64Array(n);
  const v = new Float64Array(n);
  for (let i = s.lo, at = 0; i < s.hi; i++) {
    if (stale[i] === 1) continue;
    t[at] = s.t[i]!;
    v[at++] = s.v[i]!;
  }
  return { labels: s.labels, t, v, lo: 0, hi: n };
}

/** the source of range windows: stale-free series plus where each step's window sits */
export interface RangeSource {
  series: RawSeries[];
  range: number;
  offset: number;
  /** the window end for every step, when fixed by @ */
  fixedEnd?: number;
}

export function matrixSource(ms: MatrixSelector, ctx: EvalContext): RangeSource {
  const sel = ms.selector;
  const src: RangeSource = { series: (ctx.data.get(sel) ?? []).map(withoutStale), range: ms.range, offset: sel.offset };
  if (sel.at) src.fixedEnd = atTime(sel.at, ctx.times) - sel.offset;
  return src;
}

/**
 * Calls `each(step, lo, hi, windowEnd)` for every step where the series has
 * samples in (windowEnd - range, windowEnd]; [lo, hi) indexes them.
 */
export function forEachWindow(
  s: RawSeries,
  src: RangeSource,
  ctx: EvalContext,
  each: (step: number, lo: number, hi: number, windowEnd: number) => void,
): void {
  const t = s.t;
  const first = s.lo;
  const n = s.hi;
  if (src.fixedEnd !== undefined) {
    const end = src.fixedEnd;
    const hi = lastAtOrBefore(t, end, first, n) + 1;
    const lo = lastAtOrBefore(t, end - src.range, first, hi) + 1;
    if (hi > lo) for (let i = 0; i < ctx.numSteps; i++) each(i, lo, hi, end);
    return;
  }
  // start at the first step's window (a slice of a longer evaluation starts midway)
  const firstEnd = stepTime(ctx, 0) - src.offset;
  let lo = lastAtOrBefore(t, firstEnd - src.range, first, n) + 1;
  let hi = Math.max(lo, lastAtOrBefore(t, firstEnd, lo, n) + 1);
  for (let i = 0; i < ctx.numSteps; i++) {
    const end = stepTime(ctx, i) - src.offset;
    const start = end - src.range;
    while (hi < n && t[hi]! <= end) hi++;
    while (lo < hi && t[lo]! <= start) lo++;
    if (hi > lo) each(i, lo, hi, end);
  }
}
