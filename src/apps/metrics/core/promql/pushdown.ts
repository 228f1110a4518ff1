// Aggregations answered from the index (issue 19): an aggregation without a
// parameter (sum, avg, count, min, max, group, stddev, stdvar), with or
// without grouping, straight over an instant selector evaluated at one time
// needs only each series' newest sample in the lookback window. The store
// knows that of every series without decoding a chunk (its newest sample's
// time, value and whether it is a stale marker), so such an aggregation is
// computed before evaluation, in slices, while the series are walked in the
// index: `count({__name__=~".+"})` over a million series holds no sample of
// them. When the store cannot answer (a series has samples after the
// evaluation time), the aggregation is evaluated as usual.
import type { TimeSlicer } from "../../../../lib/time-slice.ts";
import { checkDeadline } from "../query-budget.ts";
import type { Labels, SampleQuerier } from "../types.ts";
import { operandsOf, type AggregateExpr, type Expr, type VectorSelector } from "./ast.ts";
import { Accumulator, FOLDABLE, GroupIndex } from "./aggregations.ts";
import { plan, type QueryTimes } from "./fetch.ts";
import type { StepSeries } from "./series.ts";

/** the aggregations the querier answered, and the selectors that then need no data */
export interface PushedDown {
  results: Map<AggregateExpr, StepSeries[]>;
  selectors: Set<VectorSelector>;
}

/** the aggregations of an expression evaluated at one time that the querier can answer from its index */
export async function pushDownAggregates(q: SampleQuerier, expr: Expr, times: QueryTimes, slicer: TimeSlicer, budget: Parameters<typeof checkDeadline>[0]): Promise<PushedDown> {
  const out: PushedDown = { results: new Map(), selectors: new Set() };
  if (!q.forEachNewest || times.start !== times.end) return out;
  const windows = plan(expr, times);
  for (const agg of candidates(expr)) {
    const vs = agg.expr as VectorSelector;
    const w = windows.get(vs);
    if (!w?.lastOnly) continue;
    // one pass over each series: no memo kept for it
    const index = new GroupIndex([...agg.grouping].sort(), agg.without, false);
    // one group for all: no group key made per series
    const whole = agg.grouping.length === 0 && !agg.without;
    const acc = new Accumulator(agg.op, 16);
    /** each group's first member in label order: groups come out in that order, as evaluating the selector gives them */
    const first: Labels[] = [];
    let visited = 0;
    const answered = await q.forEachNewest(vs.matchers, w.start, w.end, (labels, value) => {
      const g = whole ? 0 : index.groupOf(labels);
      acc.add(g, value);
      if (!whole && (first[g] === undefined || compareLabels(labels, first[g]) < 0)) first[g] = labels;
      if ((++visited & 4095) === 0) checkDeadline(budget);
    });
    if (!answered) continue;
    const groups = whole ? [{}] : index.labels;
    const order = groups.map((_, g) => g).filter((g) => acc.seen[g]);
    if (!whole) order.sort((a, b) => compareLabels(first[a]!, first[b]!));
    const series: StepSeries[] = order.map((g) => ({ labels: groups[g]!, steps: [0], values: [acc.take(g, NaN)] }));
    out.results.set(agg, series);
    out.selectors.add(vs);
    await slicer.pause();
  }
  return out;
}

/** Prometheus's labels.Compare: name by name, then value, the shorter set first on a tie */
function compareLabels(a: Labels, b: Labels): number {
  const x = Object.keys(a).sort();
  const y = Object.keys(b).sort();
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const nx = x[i]!;
    const ny = y[i]!;
    if (nx !== ny) return nx < ny ? -1 : 1;
    const vx = a[nx]!;
    const vy = b[ny]!;
    if (vx !== vy) return vx < vy ? -1 : 1;
  }
  return x.length - y.length;
}

/** aggregations straight over an instant selector, outside subqueries */
function candidates(e: Expr): AggregateExpr[] {
  const found: AggregateExpr[] = [];
  const walk = (x: Expr): void => {
    // subqueries evaluate at many times: their aggregations are evaluated as usual
    if (x.kind === "subquery") return;
    if (x.kind === "aggregate" && !x.param && FOLDABLE.has(x.op) && x.expr.kind === "vectorSelector") found.push(x);
    else operandsOf(x).forEach(walk);
  };
  walk(e);
  return found;
}
