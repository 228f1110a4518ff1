// Subqueries: the inner expression evaluated at its own steps, aligned to
// multiples of the step after (T - offset - range), as Prometheus does; the
// points then serve as a range vector. Every subquery is evaluated once,
// before the query itself, over all the steps any step of its parent needs
// (in slices, yielding to the event loop), its steps counted against the
// query's max samples while it runs and its points for as long as they are
// kept, as Prometheus counts them.
import type { TimeSlicer } from "../../../../lib/time-slice.ts";
import { holdSamples } from "../query-budget.ts";
import type { Expr, SubqueryExpr } from "./ast.ts";
import { stepTime, type EvalContext } from "./context.ts";
import { atTime, type QueryTimes } from "./fetch.ts";
import type { RangeSource } from "./selectors.ts";
import { labelsKey, type RawSeries } from "./series.ts";
import { evaluateSliced } from "./slices.ts";

interface SubqueryWindow {
  /** time of the first inner step, ms */
  start: number;
  step: number;
  numSteps: number;
  /** the @ time, when fixed */
  fixed?: number;
}

/** the inner steps a subquery needs for outer steps from outerStart to outerEnd */
function windowOf(sq: SubqueryExpr, outerStart: number, outerEnd: number, times: QueryTimes): SubqueryWindow {
  const step = sq.step ?? times.subqueryStep;
  const fixed = sq.at ? atTime(sq.at, times) : undefined;
  const from = (fixed ?? outerStart) - sq.offset - sq.range;
  // Go's integer division truncates toward zero
  let start = step * Math.trunc(from / step);
  if (start <= from) start += step;
  const end = (fixed ?? outerEnd) - sq.offset;
  const numSteps = end >= start ? Math.floor((end - start) / step) + 1 : 0;
  return fixed === undefined ? { start, step, numSteps } : { start, step, numSteps, fixed };
}

export function subquerySource(sq: SubqueryExpr, ctx: EvalContext): RangeSource {
  const series = ctx.subqueries.get(sq);
  if (!series) throw new Error("subquery not evaluated beforehand");
  const src: RangeSource = { series, range: sq.range, offset: sq.offset };
  if (sq.at) src.fixedEnd = atTime(sq.at, ctx.times) - sq.offset;
  return src;
}

/** evaluates every subquery of expr (innermost first) for the steps of ctx */
export async function evaluateSubqueries(expr: Expr, ctx: EvalContext, slicer: TimeSlicer): Promise<void> {
  const walk = async (e: Expr, start: number, end: number): Promise<void> => {
    switch (e.kind) {
      case "subquery": {
        const w = windowOf(e, start, end, ctx.times);
        if (w.numSteps > 0) await walk(e.expr, w.start, w.start + (w.numSteps - 1) * w.step);
        ctx.subqueries.set(e, await pointsOfSubquery(e, w, ctx, slicer));
        return;
      }
      case "call":
        for (const a of e.args) await walk(a, start, end);
        return;
      case "aggregate":
        await walk(e.expr, start, end);
        if (e.param) await walk(e.param, start, end);
        return;
      case "binary":
        await walk(e.lhs, start, end);
        await walk(e.rhs, start, end);
        return;
      case "unary":
      case "paren":
        await walk(e.expr, start, end);
        return;
      default:
        return;
    }
  };
  if (ctx.numSteps > 0) await walk(expr, ctx.start, stepTime(ctx, ctx.numSteps - 1));
}

/** the points of one subquery as range-vector series (times in ms, typed arrays grown as slices come) */
async function pointsOfSubquery(sq: SubqueryExpr, w: SubqueryWindow, ctx: EvalContext, slicer: TimeSlicer): Promise<RawSeries[]> {
  if (w.numSteps === 0) return [];
  const budget = ctx.budget;
  // the steps themselves count while the inner expression runs (refused before anything is allocated)
  holdSamples(budget, w.numSteps);
  const inner: EvalContext = { ...ctx, start: w.start, interval: w.step, numSteps: w.numSteps };
  const byKey = new Map<string, { labels: RawSeries["labels"]; t: Float64Array; v: Float64Array; n: number }>();
  await evaluateSliced(sq.expr, inner, slicer, (part, first) => {
    if (part.type !== "vector") throw new Error(`instant vector expected, got ${part.type}`);
    for (const s of part.series) {
      const key = labelsKey(s.labels);
      let into = byKey.get(key);
      if (!into) {
        into = { labels: s.labels, t: new Float64Array(Math.max(16, s.steps.length)), v: new Float64Array(Math.max(16, s.steps.length)), n: 0 };
        byKey.set(key, into);
      }
      if (into.n + s.steps.length > into.t.length) {
        const size = Math.min(w.numSteps, Math.max(into.n + s.steps.length, into.t.length * 2));
        const t = new Float64Array(size);
        const v = new Float64Array(size);
        t.set(into.t.subarray(0, into.n));
        v.set(into.v.subarray(0, into.n));
        into.t = t;
        into.v = v;
      }
      for (let i = 0; i < s.steps.length; i++) {
        into.t[into.n] = w.start + (s.steps[i]! + first) * w.step;
        into.v[into.n++] = s.values[i]!;
      }
    }
  });
  budget.samples -= w.numSteps;
  return [...byKey.values()].map((s) => ({ labels: s.labels, t: s.t, v: s.v, lo: 0, hi: s.n }));
}
