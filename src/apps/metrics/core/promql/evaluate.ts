// The evaluator: every expression is evaluated once over all steps of the
// query (as Prometheus's range evaluation does), from data fetched up front.
import type { Expr, MatrixSelector, SubqueryExpr } from "./ast.ts";
import { evalAggregate } from "./aggregations.ts";
import { evalBinary } from "./binary.ts";
import type { EvalContext } from "./context.ts";
import { evalCall, labelSamplesOf } from "./functions.ts";
import { evalVectorSelector, forEachWindow, matrixSource, type RangeSource } from "./selectors.ts";
import { checkDeadline, holdSamples } from "../query-budget.ts";
import { dropMetricName, mergeSameLabels, pointsOf, type RawSeries, type StepSeries, type Value } from "./series.ts";
import { subquerySource } from "./subquery.ts";

/**
 * Evaluates an expression over the context's steps. What it returns stays
 * counted against the query's max samples until its parent is done with it:
 * the points of the operands are released, the result's held (Prometheus's
 * currentSamples), and so is the label text label_replace / label_join made
 * for it; the query's time budget is checked at every node.
 */
export function evaluate(e: Expr, ctx: EvalContext): Value {
  const budget = ctx.budget;
  checkDeadline(budget);
  const held = budget.samples;
  const value = evaluateNode(e, ctx);
  budget.samples = held;
  holdSamples(budget, pointsOf(value) + labelSamplesOf(value));
  return value;
}

function evaluateNode(e: Expr, ctx: EvalContext): Value {
  switch (e.kind) {
    case "number":
      return { type: "scalar", values: new Float64Array(ctx.numSteps).fill(e.value) };
    case "string":
      return { type: "string", value: e.value };
    case "paren":
      return evaluate(e.expr, ctx);
    case "vectorSelector":
      return { type: "vector", series: evalVectorSelector(e, ctx) };
    case "matrixSelector":
    case "subquery":
      return { type: "matrix", series: rangeAtInstant(e, ctx) };
    case "call":
      return evalCall(e, ctx);
    case "aggregate":
      return { type: "vector", series: evalAggregate(e, ctx) };
    case "binary":
      return evalBinary(e, ctx);
    case "unary": {
      const inner = evaluate(e.expr, ctx);
      if (e.op === "+") return inner;
      if (inner.type === "scalar") return { type: "scalar", values: inner.values.map((v) => -v) };
      if (inner.type !== "vector") return inner;
      return {
        type: "vector",
        series: mergeSameLabels(inner.series.map((s) => ({ labels: dropMetricName(s.labels), steps: s.steps, values: s.values.map((v) => -v) }))),
      };
    }
  }
}

export function evalVector(e: Expr, ctx: EvalContext): StepSeries[] {
  const v = evaluate(e, ctx);
  if (v.type !== "vector") throw new Error(`instant vector expected, got ${v.type}`);
  return v.series;
}

export function evalScalar(e: Expr, ctx: EvalContext): Float64Array {
  const v = evaluate(e, ctx);
  if (v.type !== "scalar") throw new Error(`scalar expected, got ${v.type}`);
  return v.values;
}

/** a range vector at the (single) evaluation time: the raw samples of each window */
function rangeAtInstant(e: MatrixSelector | SubqueryExpr, ctx: EvalContext): RawSeries[] {
  const src: RangeSource = e.kind === "matrixSelector" ? matrixSource(e, ctx) : subquerySource(e, ctx);
  const out: RawSeries[] = [];
  const first: EvalContext = { ...ctx, numSteps: 1 };
  for (const s of src.series) {
    // the window's samples in the series' own columns: nothing copied
    forEachWindow(s, src, first, (_step, lo, hi) => {
      out.push({ labels: s.labels, t: s.t, v: s.v, lo, hi });
    });
  }
  return out;
}
