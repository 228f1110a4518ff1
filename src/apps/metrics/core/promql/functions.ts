// Functions over instant vectors and scalars (promql/functions.go). Functions
// that change values drop the metric name; label_replace / label_join / sort
// keep it. Range-vector functions live in range-functions.ts.
import type { Call, Expr } from "./ast.ts";
import { unwrapParens } from "./ast.ts";
import { stepTime, type EvalContext } from "./context.ts";
import { evalScalar, evalVector } from "./evaluate.ts";
import { parseGoFloat } from "./literals.ts";
import { bucketQuantile, type Bucket } from "./math.ts";
import { absentLabels, evalRangeFunction, isRangeFunction } from "./range-functions.ts";
import { anchoredRegex, RegexSyntaxError } from "../matchers.ts";
import { expandedLength, expandTemplate, type Regex } from "../../../../lib/re2.ts";
import { holdLabelChars } from "../query-budget.ts";
import { evalVectorSelector } from "./selectors.ts";
import {
  dropMetricName, execError, keyWithoutLabels, labelsKey, mergeSameLabels, SeriesCollector, withLabel, type StepSeries, type Value,
} from "./series.ts";

const MATH: Record<string, (x: number) => number> = {
  abs: Math.abs, ceil: Math.ceil, floor: Math.floor, exp: Math.exp, sqrt: Math.sqrt,
  ln: Math.log, log2: Math.log2, log10: Math.log10,
  sin: Math.sin, cos: Math.cos, tan: Math.tan, asin: Math.asin, acos: Math.acos, atan: Math.atan,
  sinh: Math.sinh, cosh: Math.cosh, tanh: Math.tanh, asinh: Math.asinh, acosh: Math.acosh, atanh: Math.atanh,
  deg: (x) => (x * 180) / Math.PI,
  rad: (x) => (x * Math.PI) / 180,
  sgn: (x) => (x < 0 ? -1 : x > 0 ? 1 : x),
};

const DATE: Record<string, (d: Date) => number> = {
  days_in_month: (d) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 0)).getUTCDate(),
  day_of_month: (d) => d.getUTCDate(),
  day_of_week: (d) => d.getUTCDay(),
  day_of_year: (d) => Math.round((Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - Date.UTC(d.getUTCFullYear(), 0, 1)) / 86_400_000) + 1,
  hour: (d) => d.getUTCHours(),
  minute: (d) => d.getUTCMinutes(),
  month: (d) => d.getUTCMonth() + 1,
  year: (d) => d.getUTCFullYear(),
};

/** native-histogram functions: this store keeps float samples only, so they find nothing */
const NATIVE_HISTOGRAM = new Set(["histogram_count", "histogram_sum", "histogram_avg", "histogram_stddev", "histogram_stdvar", "histogram_fraction"]);

const vector = (series: StepSeries[]): Value => ({ type: "vector", series });

export function evalCall(call: Call, ctx: EvalContext): Value {
  const name = call.func;
  if (isRangeFunction(name)) return vector(evalRangeFunction(call, ctx));
  const args = call.args;
  if (MATH[name]) return vector(mapValues(evalVector(args[0]!, ctx), MATH[name]!));
  if (DATE[name]) return vector(dateFunction(args[0], ctx, DATE[name]!));
  if (NATIVE_HISTOGRAM.has(name)) return vector([]);
  switch (name) {
    case "time":
      return scalarOf(ctx, (i) => stepTime(ctx, i) / 1000);
    case "pi":
      return scalarOf(ctx, () => Math.PI);
    case "vector": {
      const values = evalScalar(args[0]!, ctx);
      return vector([{ labels: {}, steps: allSteps(ctx), values: Array.from(values) }]);
    }
    case "scalar":
      return { type: "scalar", values: scalarOfVector(evalVector(args[0]!, ctx), ctx) };
    case "absent":
      return vector(absent(args[0]!, ctx));
    case "timestamp": {
      const arg = unwrapParens(args[0]!);
      if (arg.kind === "vectorSelector") return vector(mergeSameLabels(evalVectorSelector(arg, ctx, true)));
      return vector(
        mergeSameLabels(
          evalVector(arg, ctx).map((s) => ({ labels: dropMetricName(s.labels), steps: s.steps, values: s.steps.map((i) => stepTime(ctx, i) / 1000) })),
        ),
      );
    }
    case "clamp":
      return vector(clamp(evalVector(args[0]!, ctx), evalScalar(args[1]!, ctx), evalScalar(args[2]!, ctx)));
    case "clamp_min":
      return vector(clamp(evalVector(args[0]!, ctx), evalScalar(args[1]!, ctx), undefined));
    case "clamp_max":
      return vector(clamp(evalVector(args[0]!, ctx), undefined, evalScalar(args[1]!, ctx)));
    case "round":
      return vector(round(evalVector(args[0]!, ctx), args[1] ? evalScalar(args[1], ctx) : undefined));
    case "sort":
    case "sort_desc":
      return vector(sortByValue(evalVector(args[0]!, ctx), ctx, name === "sort_desc"));
    case "label_replace":
      return vector(labelReplace(args, ctx));
    case "label_join":
      return vector(labelJoin(args, ctx));
    case "histogram_quantile":
      return vector(histogramQuantile(evalScalar(args[0]!, ctx), evalVector(args[1]!, ctx), ctx));
    default:
      throw execError(`function ${JSON.stringify(name)} is not supported by this store`);
  }
}

function allSteps(ctx: EvalContext): number[] {
  return Array.from({ length: ctx.numSteps }, (_, i) => i);
}

function scalarOf(ctx: EvalContext, f: (step: number) => number): Value {
  const values = new Float64Array(ctx.numSteps);
  for (let i = 0; i < values.length; i++) values[i] = f(i);
  return { type: "scalar", values };
}

/** applies f to every value, dropping the metric name */
function mapValues(series: StepSeries[], f: (x: number) => number): StepSeries[] {
  return mergeSameLabels(series.map((s) => ({ labels: dropMetricName(s.labels), steps: s.steps, values: s.values.map(f) })));
}

/** scalar(v): the only sample's value at each step, NaN when there are none or several */
export function scalarOfVector(series: StepSeries[], ctx: EvalContext): Float64Array {
  const out = new Float64Array(ctx.numSteps).fill(NaN);
  const counts = new Uint32Array(ctx.numSteps);
  for (const s of series) {
    for (let j = 0; j < s.steps.length; j++) {
      const step = s.steps[j]!;
      out[step] = ++counts[step]! === 1 ? s.values[j]! : NaN;
    }
  }
  return out;
}

function absent(arg: Expr, ctx: EvalContext): StepSeries[] {
  const present = new Uint8Array(ctx.numSteps);
  for (const s of evalVector(arg, ctx)) for (const step of s.steps) present[step] = 1;
  const steps: number[] = [];
  for (let i = 0; i < ctx.numSteps; i++) if (!present[i]) steps.push(i);
  return steps.length ? [{ labels: absentLabels(arg), steps, values: steps.map(() => 1) }] : [];
}

function dateFunction(arg: Expr | undefined, ctx: EvalContext, f: (d: Date) => number): StepSeries[] {
  if (!arg) {
    const steps = allSteps(ctx);
    return [{ labels: {}, steps, values: steps.map((i) => f(new Date(Math.trunc(stepTime(ctx, i) / 1000) * 1000))) }];
  }
  return mapValues(evalVector(arg, ctx), (x) => f(new Date(Math.trunc(x) * 1000)));
}

function clamp(series: StepSeries[], min: Float64Array | undefined, max: Float64Array | undefined): StepSeries[] {
  const out: StepSeries[] = [];
  for (const s of series) {
    const steps: number[] = [];
    const values: number[] = [];
    for (let j = 0; j < s.steps.length; j++) {
      const step = s.steps[j]!;
      const lo = min ? min[step]! : -Infinity;
      const hi = max ? max[step]! : Infinity;
      if (hi < lo) continue;
      steps.push(step);
      values.push(Math.max(lo, Math.min(hi, s.values[j]!)));
    }
    if (steps.length) out.push({ labels: dropMetricName(s.labels), steps, values });
  }
  return mergeSameLabels(out);
}

function round(series: StepSeries[], toNearest: Float64Array | undefined): StepSeries[] {
  return mergeSameLabels(
    series.map((s) => ({
      labels: dropMetricName(s.labels),
      steps: s.steps,
      values: s.values.map((x, j) => {
        // inverting first, as Prometheus does, gives fewer float surprises
        const inverse = 1 / (toNearest ? toNearest[s.steps[j]!]! : 1);
        return Math.floor(x * inverse + 0.5) / inverse;
      }),
    })),
  );
}

/** sort() / sort_desc(): orders an instant result by value, NaN last; a range result is sorted by labels anyway */
function sortByValue(series: StepSeries[], ctx: EvalContext, desc: boolean): StepSeries[] {
  if (ctx.numSteps !== 1) return series;
  return [...series].sort((a, b) => {
    const x = a.values[0]!;
    const y = b.values[0]!;
    if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) === Number.isNaN(y) ? 0 : Number.isNaN(x) ? 1 : -1;
    return desc ? y - x : x - y;
  });
}

function stringArg(e: Expr): string {
  const s = unwrapParens(e);
  return s.kind === "string" ? s.value : "";
}

/**
 * Label text made by label_replace / label_join, counted as samples held by
 * the series array it went into (LABEL_CHARS_PER_SAMPLE): evaluate() keeps the
 * count held as long as the result is, as it does the result's points.
 */
const producedLabelSamples = new WeakMap<StepSeries[], number>();

/** the samples counted for the label text a value's series were given (0 for any other value) */
export function labelSamplesOf(v: Value): number {
  return v.type === "vector" ? (producedLabelSamples.get(v.series) ?? 0) : 0;
}

/** counts the produced label text against the query's max samples before it is built */
function withProducedLabels(ctx: EvalContext, build: (hold: (chars: number) => void) => StepSeries[]): StepSeries[] {
  let held = 0;
  const series = build((chars) => {
    held += holdLabelChars(ctx.budget, chars);
  });
  if (held > 0) producedLabelSamples.set(series, held);
  return series;
}

function labelReplace(args: Expr[], ctx: EvalContext): StepSeries[] {
  const dst = stringArg(args[1]!);
  const replacement = stringArg(args[2]!);
  const src = stringArg(args[3]!);
  const regexText = stringArg(args[4]!);
  let re: Regex;
  try {
    re = anchoredRegex(regexText);
  } catch (err) {
    if (err instanceof RegexSyntaxError) throw execError(`invalid regular expression in label_replace(): ${regexText}`);
    throw err;
  }
  if (dst === "") throw execError(`invalid destination label name in label_replace(): ${dst}`);
  const input = evalVector(args[0]!, ctx);
  return withProducedLabels(ctx, (hold) => {
    const out = input.map((s) => {
      const m = re.exec(s.labels[src] ?? "");
      if (!m) return s;
      hold(expandedLength(replacement, m));
      return { ...s, labels: withLabel(s.labels, dst, expandTemplate(replacement, m)) };
    });
    return mergeSameLabels(out);
  });
}

function labelJoin(args: Expr[], ctx: EvalContext): StepSeries[] {
  const dst = stringArg(args[1]!);
  const sep = stringArg(args[2]!);
  const srcs = args.slice(3).map(stringArg);
  for (const src of srcs) if (src === "") throw execError(`invalid source label name in label_join(): ${src}`);
  if (dst === "") throw execError(`invalid destination label name in label_join(): ${dst}`);
  const input = evalVector(args[0]!, ctx);
  return withProducedLabels(ctx, (hold) => {
    const out = input.map((s) => {
      const values = srcs.map((n) => s.labels[n] ?? "");
      hold(values.reduce((n, v) => n + v.length, sep.length * Math.max(0, values.length - 1)));
      return { ...s, labels: withLabel(s.labels, dst, values.join(sep)) };
    });
    return mergeSameLabels(out);
  });
}

/** histogram_quantile over classic buckets: per step, buckets grouped by their labels without `le` */
function histogramQuantile(q: Float64Array, series: StepSeries[], ctx: EvalContext): StepSeries[] {
  interface Group {
    labels: Record<string, string>;
    members: number[];
  }
  const groups = new Map<string, Group>();
  const bounds: number[] = [];
  series.forEach((s, i) => {
    const le = s.labels.le;
    const bound = le === undefined ? undefined : parseGoFloat(le);
    bounds.push(bound ?? NaN);
    if (bound === undefined) return;
    // the name stays in the grouping key: same labels under different names are different histograms
    const key = keyWithoutLabels(s.labels, ["le"]) + "\xfe" + (s.labels.__name__ ?? "");
    let g = groups.get(key);
    if (!g) {
      const { le: _le, ...rest } = s.labels;
      g = { labels: dropMetricName(rest), members: [] };
      groups.set(key, g);
    }
    g.members.push(i);
  });
  const out = new SeriesCollector();
  const slots = [...groups.values()].map((g) => ({ g, slot: -1, key: labelsKey(g.labels) }));
  const cursor = new Int32Array(series.length);
  const buckets: Bucket[] = [];
  for (let step = 0; step < ctx.numSteps; step++) {
    for (const entry of slots) {
      buckets.length = 0;
      for (const i of entry.g.members) {
        const s = series[i]!;
        const c = cursor[i]!;
        if (c < s.steps.length && s.steps[c] === step) {
          buckets.push({ upperBound: bounds[i]!, count: s.values[c]! });
          cursor[i] = c + 1;
        }
      }
      if (buckets.length === 0) continue;
      if (entry.slot < 0) entry.slot = out.slot(entry.g.labels, entry.key);
      out.add(entry.slot, step, bucketQuantile(q[step]!, buckets));
    }
  }
  return out.result();
}
