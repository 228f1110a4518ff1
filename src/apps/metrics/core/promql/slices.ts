// Long evaluations in slices of steps, so that one query never holds the
// event loop for long (issue 16 #2): every step of PromQL is evaluated on its
// own (subqueries align to absolute times, @ start()/end() to the query's),
// so evaluating steps [a, b) then [b, c) and joining gives the same values as
// evaluating [a, c) at once. The slice grows while slices are quick and
// shrinks when one ran long; between slices the loop serves other requests.
import type { TimeSlicer } from "../../../../lib/time-slice.ts";
import { checkDeadline } from "../query-budget.ts";
import type { Expr } from "./ast.ts";
import { stepTime, type EvalContext } from "./context.ts";
import { evaluate } from "./evaluate.ts";
import { labelsKey, type StepSeries, type Value } from "./series.ts";

/** what one slice aims to take, ms */
const TARGET_MS = 40;

/** evaluates over all of ctx's steps in slices; the value is the one evaluate() gives */
export async function evaluateSliced(e: Expr, ctx: EvalContext, slicer: TimeSlicer, onSlice?: (v: Value, first: number) => void): Promise<Value> {
  if (ctx.numSteps <= 1) {
    const whole = evaluate(e, ctx);
    onSlice?.(whole, 0);
    return whole;
  }
  let size = 64;
  let scalar: Float64Array | undefined;
  const series = new Map<string, StepSeries>();
  let result: Value | undefined;
  for (let first = 0, n = 0; first < ctx.numSteps; first += n) {
    n = Math.min(size, ctx.numSteps - first);
    const began = performance.now();
    const part = evaluate(e, { ...ctx, start: stepTime(ctx, first), numSteps: n });
    const took = performance.now() - began;
    if (onSlice) onSlice(part, first);
    else if (part.type === "scalar") {
      scalar ??= new Float64Array(ctx.numSteps);
      scalar.set(part.values, first);
    } else if (part.type === "vector") {
      for (const s of part.series) {
        const key = labelsKey(s.labels);
        const into = series.get(key);
        if (!into) {
          series.set(key, { labels: s.labels, steps: s.steps.map((i) => i + first), values: s.values });
          continue;
        }
        for (let i = 0; i < s.steps.length; i++) {
          into.steps.push(s.steps[i]! + first);
          into.values.push(s.values[i]!);
        }
      }
    } else {
      // strings and range vectors do not depend on the step
      return part;
    }
    result ??= part;
    // steps for the next slice from this one's pace, at most 4 times as many
    size = Math.max(1, Math.min(n * 4, Math.floor((n * TARGET_MS) / Math.max(took, 0.05))));
    checkDeadline(ctx.budget);
    await slicer.pause();
  }
  if (!result || onSlice) return result ?? { type: "vector", series: [] };
  if (result.type === "scalar") return { type: "scalar", values: scalar! };
  return { type: "vector", series: [...series.values()] };
}
