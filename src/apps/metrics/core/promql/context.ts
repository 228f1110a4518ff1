// What evaluation of one expression over a run of steps needs: the steps, the
// query-wide times, the data fetched for every selector, the subqueries
// evaluated beforehand and what the query may still spend.
import type { QueryBudget } from "../query-budget.ts";
import type { AggregateExpr, SubqueryExpr } from "./ast.ts";
import type { QueryTimes, SelectorData } from "./fetch.ts";
import type { RawSeries, StepSeries } from "./series.ts";

export interface EvalContext {
  times: QueryTimes;
  data: SelectorData;
  /** every subquery's points over all the steps it is evaluated at (subquery.ts) */
  subqueries: Map<SubqueryExpr, RawSeries[]>;
  budget: QueryBudget;
  /** per node, what it must remember across the slices of one evaluation (slices.ts) */
  memo: Map<object, Map<string, object>>;
  /** aggregations answered from the index before evaluation (pushdown.ts) */
  pushed?: Map<AggregateExpr, StepSeries[]>;
  /** first step's time, ms */
  start: number;
  /** ms between steps (1 for an instant evaluation) */
  interval: number;
  numSteps: number;
}

export const stepTime = (ctx: EvalContext, step: number): number => ctx.start + step * ctx.interval;

/** the node's memory across slices: one map per node and evaluation */
export function sourcesOf(ctx: EvalContext, node: object): Map<string, object> {
  let m = ctx.memo.get(node);
  if (!m) ctx.memo.set(node, (m = new Map()));
  return m;
}
