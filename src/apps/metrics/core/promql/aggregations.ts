// Aggregation operators (promql/engine.go: rangeEvalAgg, aggregation,
// aggregationK, aggregationCountValues). Groups are fixed per input series up
// front; each step then walks the series once with a cursor apiece.
import type { AggregateExpr } from "./ast.ts";
import type { EvalContext } from "./context.ts";
import { evalScalar, evalVector } from "./evaluate.ts";
import { formatFloatF } from "./format.ts";
import { kahan, kahanAdd, quantile } from "./math.ts";
import {
  dropMetricName, execError, keyOfLabels, keyWithoutLabels, SeriesCollector, withLabel, type StepSeries,
} from "./series.ts";
import { memoOf } from "../labels-memo.ts";
import { checkDeadline, holdSamples } from "../query-budget.ts";
import { foldRangeFunction } from "./range-functions.ts";
import type { Labels } from "../types.ts";

const MAX_INT64 = 9223372036854774784;
const MIN_INT64 = -9223372036854775808;

interface Grouping {
  /** group index of every input series */
  groupOf: Int32Array;
  labels: Labels[];
}

function groupSeries(series: StepSeries[], grouping: string[], without: boolean): Grouping {
  const index = new GroupIndex([...grouping].sort(), without);
  const groupOf = new Int32Array(series.length);
  for (let i = 0; i < series.length; i++) groupOf[i] = index.groupOf(series[i]!.labels);
  return { groupOf, labels: index.labels };
}

/** the groups of label sets under one grouping, numbered in order of first appearance */
export class GroupIndex {
  /** every group's output labels */
  readonly labels: Labels[] = [];
  private readonly index = new Map<string, number>();
  /** the grouping's signature, to find a label set's key for it in its memo */
  private readonly sig: string;
  /** whether a label set's group can depend on its name (or other metadata labels) */
  private readonly seesName: boolean;
  /** the one label of a `by` grouping of one label */
  private readonly single: string | undefined;

  /** useMemo: keep each label set's group key in its memo (for groupings asked again and again) */
  constructor(
    private readonly sorted: string[],
    private readonly without: boolean,
    private readonly useMemo = true,
  ) {
    this.sig = (without ? "w" : "b") + sorted.join("\xff");
    this.seesName = without || sorted.some(isMetadataLabel);
    this.single = !without && sorted.length === 1 ? sorted[0] : undefined;
  }

  /**
   * the group of a function's output series, given its input's labels and
   * whether the function drops the name: the labels without it are made
   * only when the grouping can see the difference
   */
  groupOfOutput(input: Labels, dropsName: boolean): number {
    return dropsName && this.seesName ? this.groupOf(dropMetricName(input)) : this.groupOf(input);
  }

  groupOf(labels: Labels): number {
    const memo = this.single === undefined && this.useMemo ? memoOf(labels) : undefined;
    let key: string;
    // by one label: its value is as good a key (keyOfLabels skips an absent or empty one)
    if (this.single !== undefined) key = labels[this.single] ?? "";
    else if (memo?.groupBy === this.sig) key = memo.groupKey!;
    else {
      key = this.without ? keyWithoutLabels(labels, this.sorted) : keyOfLabels(labels, this.sorted);
      if (memo) {
        memo.groupBy = this.sig;
        memo.groupKey = key;
      }
    }
    let g = this.index.get(key);
    if (g === undefined) {
      g = this.labels.length;
      this.index.set(key, g);
      this.labels.push(groupLabels(labels, this.sorted, this.without));
    }
    return g;
  }
}

/** a group's output labels: `by` keeps the listed labels, `without` drops them and the name */
function groupLabels(labels: Labels, grouping: string[], without: boolean): Labels {
  const out: Labels = {};
  if (without) {
    for (const n in labels) if (n !== "__name__" && !grouping.includes(n)) out[n] = labels[n]!;
  } else {
    for (const n of grouping) if (labels[n] !== undefined) out[n] = labels[n]!;
  }
  return out;
}

/** walks every input series' value at each step, in input order */
function forEachStep(series: StepSeries[], ctx: EvalContext, visit: (step: number, si: number, value: number) => void, done: (step: number) => void) {
  const cursor = new Int32Array(series.length);
  for (let step = 0; step < ctx.numSteps; step++) {
    for (let si = 0; si < series.length; si++) {
      const s = series[si]!;
      const c = cursor[si]!;
      if (c < s.steps.length && s.steps[c] === step) {
        cursor[si] = c + 1;
        visit(step, si, s.values[c]!);
      }
    }
    done(step);
  }
}

export function evalAggregate(e: AggregateExpr, ctx: EvalContext): StepSeries[] {
  const pushed = ctx.pushed?.get(e);
  if (pushed) return pushed;
  if (e.op === "count_values") return countValues(e, ctx);
  const folded = e.param ? undefined : foldedOverRange(e, ctx);
  if (folded) return folded;
  const params = e.param ? evalScalar(e.param, ctx) : undefined;
  const input = evalVector(e.expr, ctx);
  const groups = groupSeries(input, e.grouping, e.without);
  if (e.op === "topk" || e.op === "bottomk") return aggregateK(e.op, input, groups, params!, ctx);

  const n = groups.labels.length;
  const out: StepSeries[] = groups.labels.map((labels) => ({ labels, steps: [], values: [] }));
  const acc = new Accumulator(e.op, n);
  forEachStep(
    input,
    ctx,
    (_step, si, f) => acc.add(groups.groupOf[si]!, f),
    (step) => {
      for (let g = 0; g < n; g++) {
        if (!acc.seen[g]) continue;
        out[g]!.steps.push(step);
        out[g]!.values.push(acc.take(g, params ? params[step]! : NaN));
      }
    },
  );
  return out.filter((s) => s.steps.length > 0);
}

/**
 * An aggregation without parameter of a range function over a selector (the
 * soak's `sum by (job) (rate(x[1m]))`): each series' values go straight into
 * their groups' accumulators, one per group and step, without a vector of the
 * function's values in between. Within a group and step the values come in
 * input order, as the step-wise aggregation adds them, so the sums are the
 * same to the bit. The function's node is accounted as evaluate() does it
 * (deadline, the points its value would hold). Undefined when the expression
 * is not of that kind, its output may repeat a label set (checked on the
 * general path), or series × steps is too many for accumulators per step.
 */
function foldedOverRange(e: AggregateExpr, ctx: EvalContext): StepSeries[] | undefined {
  const inner = e.expr;
  if (inner.kind !== "call" || !FOLDABLE.has(e.op)) return undefined;
  const budget = ctx.budget;
  const held = budget.samples;
  checkDeadline(budget);
  const steps = ctx.numSteps;
  const index = new GroupIndex([...e.grouping].sort(), e.without);
  let acc: Accumulator | undefined;
  const produced = foldRangeFunction(inner, ctx, (inputs) => {
    if (inputs * steps > FOLD_MAX_SLOTS) return undefined;
    // groups are few, mostly: the accumulator grows with them
    acc = new Accumulator(e.op, Math.min(inputs, 16) * steps);
    // one group lookup per series, not per value
    let last: Labels | undefined;
    let base = 0;
    return (labels, dropsName, step, f) => {
      if (labels !== last) {
        last = labels;
        base = index.groupOfOutput(labels, dropsName) * steps;
      }
      acc!.add(base + step, f);
    };
  });
  if (produced === undefined) return undefined;
  // the points the function's value would have held until the aggregation was done with them
  budget.samples = held;
  holdSamples(budget, produced);
  const out: StepSeries[] = [];
  for (let g = 0; g < index.labels.length; g++) {
    const s: StepSeries = { labels: index.labels[g]!, steps: [], values: [] };
    for (let step = 0, slot = g * steps; step < steps; step++, slot++) {
      if (slot >= acc!.seen.length || !acc!.seen[slot]) continue;
      s.steps.push(step);
      s.values.push(acc!.take(slot, NaN));
    }
    if (s.steps.length > 0) out.push(s);
  }
  return out;
}

/** the most accumulator slots (input series × steps) a folded aggregation may make (~34 bytes each) */
const FOLD_MAX_SLOTS = 1 << 18;

/** the labels dropMetricName drops */
const isMetadataLabel = (name: string) => name === "__name__" || name === "__type__" || name === "__unit__";

/** the aggregations foldedOverRange computes (no parameter, one value per group) */
export const FOLDABLE = new Set(["sum", "avg", "count", "min", "max", "group", "stddev", "stdvar"]);

/**
 * Per group, the values of one step added up as Prometheus's aggregation
 * does (Kahan sums, avg's switch to an incremental mean, ...), in the order
 * given; take() gives a group's result and forgets it for the next step.
 */
export class Accumulator {
  seen: Uint8Array;
  private value: Float64Array;
  private mean: Float64Array;
  private comp: Float64Array;
  private count: Float64Array;
  private incremental: Uint8Array;
  private readonly lists: number[][] = [];

  /** room for n groups to start with (more are made room for as they come) */
  constructor(
    private readonly op: string,
    n: number,
  ) {
    this.seen = new Uint8Array(n);
    this.value = new Float64Array(n);
    this.mean = new Float64Array(n);
    this.comp = new Float64Array(n);
    this.count = new Float64Array(n);
    this.incremental = new Uint8Array(n);
  }

  /** room for group g (twice as many groups each time) */
  private grow(g: number): void {
    const n = Math.max(g + 1, this.seen.length * 2);
    const more = <T extends Uint8Array | Float64Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.seen = more(this.seen);
    this.value = more(this.value);
    this.mean = more(this.mean);
    this.comp = more(this.comp);
    this.count = more(this.count);
    this.incremental = more(this.incremental);
  }

  add(g: number, f: number): void {
    if (g >= this.seen.length) this.grow(g);
    if (this.op === "quantile") while (this.lists.length <= g) this.lists.push([]);
    const { op, value, mean, comp, count, incremental, lists } = this;
    if (!this.seen[g]) {
      this.seen[g] = 1;
      value[g] = f;
      mean[g] = f;
      comp[g] = 0;
      count[g] = 1;
      incremental[g] = 0;
      if (op === "group") value[g] = 1;
      else if (op === "stddev" || op === "stdvar") value[g] = Number.isFinite(f) ? 0 : NaN;
      else if (op === "quantile") lists[g]!.push(f);
      return;
    }
    switch (op) {
      case "sum":
        value[g] = kahanAdd(f, value[g]!, comp[g]!);
        comp[g] = kahan.c;
        break;
      case "avg": {
        const c = ++count[g]!;
        // a direct mean while the sum stays finite, then an incremental one
        if (!incremental[g]) {
          const sum = kahanAdd(f, value[g]!, comp[g]!);
          if (sum !== Infinity && sum !== -Infinity) {
            value[g] = sum;
            comp[g] = kahan.c;
            break;
          }
          incremental[g] = 1;
          mean[g] = value[g]! / (c - 1);
          comp[g] = comp[g]! / (c - 1);
        }
        const q = (c - 1) / c;
        mean[g] = kahanAdd(f / c, q * mean[g]!, q * comp[g]!);
        comp[g] = kahan.c;
        break;
      }
      case "count":
        count[g]!++;
        break;
      case "max":
        if (value[g]! < f || Number.isNaN(value[g]!)) value[g] = f;
        break;
      case "min":
        if (value[g]! > f || Number.isNaN(value[g]!)) value[g] = f;
        break;
      case "stddev":
      case "stdvar": {
        const c = ++count[g]!;
        const delta = f - mean[g]!;
        mean[g] = mean[g]! + delta / c;
        value[g] = value[g]! + delta * (f - mean[g]!);
        break;
      }
      case "quantile":
        lists[g]!.push(f);
        break;
      default:
        break;
    }
  }

  /** the result of a group that got values (quantile's φ given), which then starts over */
  take(g: number, param: number): number {
    const { value, mean, comp, count } = this;
    this.seen[g] = 0;
    switch (this.op) {
      case "sum":
        return value[g]! + comp[g]!;
      case "avg":
        return this.incremental[g] ? mean[g]! + comp[g]! : value[g]! / count[g]! + comp[g]! / count[g]!;
      case "count":
        return count[g]!;
      case "stdvar":
        return value[g]! / count[g]!;
      case "stddev":
        return Math.sqrt(value[g]! / count[g]!);
      case "quantile": {
        const result = quantile(param, this.lists[g]!);
        this.lists[g] = [];
        return result;
      }
      default:
        return value[g]!;
    }
  }
}

interface HeapItem {
  f: number;
  si: number;
}

/** Go's container/heap over a Less function, so ties resolve as Prometheus's do */
class Heap {
  readonly items: HeapItem[] = [];
  constructor(private readonly less: (a: number, b: number) => boolean) {}

  private lessAt(i: number, j: number): boolean {
    return this.less(this.items[i]!.f, this.items[j]!.f);
  }

  private swap(i: number, j: number): void {
    const t = this.items[i]!;
    this.items[i] = this.items[j]!;
    this.items[j] = t;
  }

  private up(j: number): void {
    while (j > 0) {
      const i = Math.trunc((j - 1) / 2);
      if (i === j || !this.lessAt(j, i)) break;
      this.swap(i, j);
      j = i;
    }
  }

  private down(i0: number, n: number): boolean {
    let i = i0;
    for (;;) {
      const j1 = 2 * i + 1;
      if (j1 >= n) break;
      let j = j1;
      const j2 = j1 + 1;
      if (j2 < n && this.lessAt(j2, j1)) j = j2;
      if (!this.lessAt(j, i)) break;
      this.swap(i, j);
      i = j;
    }
    return i > i0;
  }

  push(item: HeapItem): void {
    this.items.push(item);
    this.up(this.items.length - 1);
  }

  fix(i: number): void {
    if (!this.down(i, this.items.length)) this.up(i);
  }
}

/** topk / bottomk: per group, the k largest (smallest) samples, keeping their labels */
function aggregateK(op: "topk" | "bottomk", input: StepSeries[], groups: Grouping, params: Float64Array, ctx: EvalContext): StepSeries[] {
  let max = -Infinity;
  let min = Infinity;
  for (const p of params) {
    if (Number.isNaN(p)) throw execError("Parameter value is NaN");
    max = Math.max(max, p);
    min = Math.min(min, p);
  }
  if (max < 1) return [];
  if (min <= MIN_INT64) throw execError(`Scalar value ${goFloat(min)} underflows int64`);
  if (max >= MAX_INT64) throw execError(`Scalar value ${goFloat(max)} overflows int64`);

  const top = op === "topk";
  // vectorByValueHeap / vectorByReverseValueHeap: NaN is always the first to go
  const less = top ? (a: number, b: number) => Number.isNaN(a) || a < b : (a: number, b: number) => Number.isNaN(a) || a > b;
  const heaps: Array<Heap | undefined> = new Array(groups.labels.length);
  const order: number[] = [];
  const out = new SeriesCollector();
  const slots = new Int32Array(input.length).fill(-1);
  let k = 0;
  forEachStep(
    input,
    ctx,
    (step, si, f) => {
      k = Math.min(Math.trunc(params[step]!), input.length);
      if (k < 1) return;
      const g = groups.groupOf[si]!;
      let heap = heaps[g];
      if (!heap) {
        heap = new Heap(less);
        heaps[g] = heap;
        order.push(g);
        heap.push({ f, si });
        return;
      }
      if (heap.items.length < k) {
        heap.push({ f, si });
        return;
      }
      const head = heap.items[0]!.f;
      const replace = top ? head < f || (Number.isNaN(head) && !Number.isNaN(f)) : head > f || (Number.isNaN(head) && !Number.isNaN(f));
      if (replace) {
        heap.items[0] = { f, si };
        if (k > 1) heap.fix(0);
      }
    },
    (step) => {
      order.sort((a, b) => a - b);
      for (const g of order) {
        const items = [...heaps[g]!.items];
        // largest first for topk, smallest first for bottomk; NaN last
        items.sort((a, b) => {
          const an = Number.isNaN(a.f);
          const bn = Number.isNaN(b.f);
          if (an || bn) return an === bn ? 0 : an ? 1 : -1;
          return top ? b.f - a.f : a.f - b.f;
        });
        for (const item of items) {
          if (slots[item.si]! < 0) slots[item.si] = out.slot(input[item.si]!.labels);
          out.add(slots[item.si]!, step, item.f);
        }
        heaps[g] = undefined;
      }
      order.length = 0;
    },
  );
  return out.result();
}

function goFloat(v: number): string {
  return String(v).replace(/e\+?(\d)$/, "e+0$1");
}

/** count_values: per step, how many samples have each value, the value as a label */
function countValues(e: AggregateExpr, ctx: EvalContext): StepSeries[] {
  const param = e.param!;
  const label = param.kind === "string" ? param.value : param.kind === "paren" && param.expr.kind === "string" ? param.expr.value : "";
  if (label === "") throw execError(`invalid label name ${JSON.stringify(label)}`);
  const grouping = [...e.grouping];
  if (!e.without) grouping.push(label);
  grouping.sort();
  const input = evalVector(e.expr, ctx);
  const out = new SeriesCollector();
  const counts = new Map<number, number>();
  forEachStep(
    input,
    ctx,
    (_step, si, f) => {
      const labels = withLabel(input[si]!.labels, label, formatFloatF(f));
      const key = e.without ? keyWithoutLabels(labels, grouping) : keyOfLabels(labels, grouping);
      const slot = out.slot(groupLabels(labels, grouping, e.without), "g" + key);
      counts.set(slot, (counts.get(slot) ?? 0) + 1);
    },
    (step) => {
      for (const [slot, n] of counts) out.add(slot, step, n);
      counts.clear();
    },
  );
  return out.result();
}
