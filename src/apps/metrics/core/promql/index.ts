// The PromQL engine of the metrics store: parse with Prometheus's grammar,
// fetch each selector's data once through the SampleQuerier, evaluate every
// step from memory, and shape results as Prometheus's HTTP API does
// (reference §10, "Query API"). Parse errors are PromQLParseError (the API's
// `invalid parameter "query": <message>`, 400); evaluation errors are
// ApiError 422 with Prometheus's messages.
import { ApiError } from "../../../../lib/errors.ts";
import type { Labels, Matcher, SampleQuerier } from "../types.ts";
import type { Expr } from "./ast.ts";
import { documentedType, operandsOf, typeOf } from "./ast.ts";
import type { EvalContext } from "./context.ts";
import { createTimeSlicer } from "../../../../lib/time-slice.ts";
import { newBudget, QUERY_SLICE_MS, type QueryBudget } from "../query-budget.ts";
import { instantJson, rangeJson, sortedLabels } from "./render-json.ts";
import { evaluateSliced } from "./slices.ts";
import { evaluateSubqueries } from "./subquery.ts";
import { fetchData, type QueryTimes } from "./fetch.ts";
import { pushDownAggregates } from "./pushdown.ts";
import { formatSampleValue } from "./format.ts";
import { parsePromQL } from "./parse.ts";
import { sortByLabels, type Value } from "./series.ts";

export type { Expr } from "./ast.ts";
export { parsePromQL, parsePromQLCached } from "./parse.ts";
export { PromQLParseError } from "./parse-error.ts";
export { formatSampleValue } from "./format.ts";
export { matchesAll, matcherPredicate } from "../matchers.ts";

export interface QueryOptions {
  /** how far back an instant selector looks for a sample, ms (default, and for 0: 5m) */
  lookbackDelta?: number;
  /** the step of subqueries written without one, ms (default 1m, the default evaluation interval) */
  subqueryStep?: number;
  /** max samples and time of the query; the SampleQuerier should count into the same one */
  budget?: QueryBudget;
}

export type QueryResult =
  | { resultType: "vector"; result: Array<{ metric: Labels; value: [number, string] }> }
  | { resultType: "matrix"; result: Array<{ metric: Labels; values: Array<[number, string]> }> }
  | { resultType: "scalar"; result: [number, string] }
  | { resultType: "string"; result: [number, string] };

const DEFAULT_LOOKBACK = 300_000;
const DEFAULT_SUBQUERY_STEP = 60_000;

const sorted = sortedLabels;

const toExpr = (expr: Expr | string): Expr => (typeof expr === "string" ? parsePromQL(expr) : expr);

async function run(q: SampleQuerier, expr: Expr, start: number, end: number, interval: number, opts: QueryOptions): Promise<Value> {
  if (!(interval > 0)) {
    throw new ApiError(400, 'invalid parameter "step": zero or negative query resolution step widths are not accepted. Try a positive integer');
  }
  // a zero lookback means the default, as Prometheus's engine options
  const times: QueryTimes = {
    start,
    end,
    lookback: opts.lookbackDelta || DEFAULT_LOOKBACK,
    subqueryStep: opts.subqueryStep || DEFAULT_SUBQUERY_STEP,
  };
  // the store counts the samples it loads into the same budget
  const budget = opts.budget ?? newBudget(0, 0);
  const slicer = createTimeSlicer(QUERY_SLICE_MS);
  const pushed = await pushDownAggregates(q, expr, times, slicer, budget);
  const data = await fetchData(q, expr, times, pushed.selectors);
  const numSteps = end < start ? 0 : Math.floor((end - start) / interval) + 1;
  const ctx: EvalContext = { times, data, subqueries: new Map(), memo: new Map(), budget, start, interval, numSteps, pushed: pushed.results };
  await evaluateSubqueries(expr, ctx, slicer);
  return evaluateSliced(expr, ctx, slicer);
}

/** an expression a range query may evaluate: a scalar or an instant vector */
function rangeExpr(expr: Expr | string): Expr {
  const e = toExpr(expr);
  const type = typeOf(e);
  if (type !== "scalar" && type !== "vector") {
    // reported by Prometheus's API handler, hence the parameter prefix here
    throw new ApiError(
      400,
      `invalid parameter "query": invalid expression type ${JSON.stringify(documentedType(type))} for range query, must be Scalar or instant Vector`,
    );
  }
  return e;
}

/**
 * The HTTP API's `data` of an instant query as JSON text (JSON.stringify of
 * instantQuery's result), rendered in time slices within the query's budget.
 */
export async function instantQueryJson(q: SampleQuerier, expr: Expr | string, timeMs: number, opts: QueryOptions & { budget: QueryBudget }): Promise<string> {
  return instantJson(await run(q, toExpr(expr), timeMs, timeMs, 1, opts), timeMs, opts.budget);
}

/** the same for a range query (rangeQuery's result) */
export async function rangeQueryJson(
  q: SampleQuerier,
  expr: Expr | string,
  startMs: number,
  endMs: number,
  stepMs: number,
  opts: QueryOptions & { budget: QueryBudget },
): Promise<string> {
  return rangeJson(await run(q, rangeExpr(expr), startMs, endMs, stepMs, opts), startMs, stepMs, opts.budget);
}

/** evaluates at one time; the result type is the expression's */
export async function instantQuery(q: SampleQuerier, expr: Expr | string, timeMs: number, opts: QueryOptions = {}): Promise<QueryResult> {
  const e = toExpr(expr);
  const value = await run(q, e, timeMs, timeMs, 1, opts);
  const t = timeMs / 1000;
  switch (value.type) {
    case "scalar":
      return { resultType: "scalar", result: [t, formatSampleValue(value.values[0]!)] };
    case "string":
      return { resultType: "string", result: [t, value.value] };
    case "vector":
      return { resultType: "vector", result: value.series.map((s) => ({ metric: sorted(s.labels), value: [t, formatSampleValue(s.values[0]!)] })) };
    case "matrix":
      return {
        resultType: "matrix",
        result: sortByLabels(value.series, (s) => s.labels).map((s) => ({
          metric: sorted(s.labels),
          values: Array.from({ length: s.hi - s.lo }, (_, i): [number, string] => [s.t[s.lo + i]! / 1000, formatSampleValue(s.v[s.lo + i]!)]),
        })),
      };
  }
}

/** evaluates at start, start+step, ... <= end; always a matrix sorted by labels */
export async function rangeQuery(
  q: SampleQuerier,
  expr: Expr | string,
  startMs: number,
  endMs: number,
  stepMs: number,
  opts: QueryOptions = {},
): Promise<QueryResult> {
  const e = rangeExpr(expr);
  const value = await run(q, e, startMs, endMs, stepMs, opts);
  const time = (step: number) => (startMs + step * stepMs) / 1000;
  if (value.type === "scalar") {
    return {
      resultType: "matrix",
      result: value.values.length ? [{ metric: {}, values: Array.from(value.values, (v, i): [number, string] => [time(i), formatSampleValue(v)]) }] : [],
    };
  }
  if (value.type !== "vector") return { resultType: "matrix", result: [] };
  return {
    resultType: "matrix",
    result: sortByLabels(value.series, (s) => s.labels).map((s) => ({
      metric: sorted(s.labels),
      values: s.steps.map((step, i): [number, string] => [time(step), formatSampleValue(s.values[i]!)]),
    })),
  };
}

/** evaluation for the ruler: the instant vector (a scalar becomes one sample with no labels) */
export async function evaluateInstantVector(
  q: SampleQuerier,
  expr: Expr | string,
  timeMs: number,
  opts: QueryOptions = {},
): Promise<Array<{ labels: Labels; value: number }>> {
  const e = toExpr(expr);
  const value = await run(q, e, timeMs, timeMs, 1, opts);
  if (value.type === "scalar") return [{ labels: {}, value: value.values[0]! }];
  if (value.type === "vector") return value.series.map((s) => ({ labels: sorted(s.labels), value: s.values[0]! }));
  throw new ApiError(422, "rule result is not a vector or scalar");
}

/** the matchers of every selector in an expression */
export function selectorsOf(expr: Expr): Matcher[][] {
  const out: Matcher[][] = [];
  const walk = (e: Expr): void => {
    if (e.kind === "vectorSelector") out.push(e.matchers);
    else if (e.kind === "matrixSelector") out.push(e.selector.matchers);
    else operandsOf(e).forEach(walk);
  };
  walk(expr);
  return out;
}
