// Subqueries: the inner expression evaluated at its own steps, aligned to
// multiples of the step after (T - offset - range), as Prometheus does; the
// points then serve as a range vector.
import type { SubqueryExpr } from "./ast.ts";
import { stepTime, type EvalContext } from "./context.ts";
import { evalVector } from "./evaluate.ts";
import { atTime } from "./fetch.ts";
import type { RangeSource } from "./selectors.ts";
import type { RawSeries } from "./series.ts";

export function subquerySource(sq: SubqueryExpr, ctx: EvalContext): RangeSource {
  const step = sq.step ?? ctx.times.subqueryStep;
  const fixed = sq.at ? atTime(sq.at, ctx.times) : undefined;
  const outerStart = fixed ?? ctx.start;
  const outerEnd = fixed ?? stepTime(ctx, ctx.numSteps - 1);
  const from = outerStart - sq.offset - sq.range;
  // Go's integer division truncates toward zero
  let start = step * Math.trunc(from / step);
  if (start <= from) start += step;
  const end = outerEnd - sq.offset;
  const numSteps = end >= start ? Math.floor((end - start) / step) + 1 : 0;
  const series: RawSeries[] = [];
  if (numSteps > 0) {
    const inner: EvalContext = { times: ctx.times, data: ctx.data, start, interval: step, numSteps };
    for (const s of evalVector(sq.expr, inner)) {
      const t = new Float64Array(s.steps.length);
      for (let i = 0; i < t.length; i++) t[i] = start + s.steps[i]! * step;
      series.push({ labels: s.labels, t, v: Float64Array.from(s.values) });
    }
  }
  const src: RangeSource = { series, range: sq.range, offset: sq.offset };
  if (fixed !== undefined) src.fixedEnd = fixed - sq.offset;
  return src;
}
