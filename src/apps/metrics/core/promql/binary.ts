// Binary operators (promql/engine.go: scalarBinop, VectorscalarBinop,
// VectorBinop, VectorAnd/Or/Unless). Vector matching works on signatures:
// on(l...) keeps only the listed labels, ignoring(l...) drops them and the name.
import type { BinaryExpr, BinaryOp, VectorMatching } from "./ast.ts";
import { changesMetricSchema, isComparison, isSetOp, typeOf } from "./ast.ts";
import type { EvalContext } from "./context.ts";
import { evalScalar, evalVector } from "./evaluate.ts";
import {
  dropMetricName, execError, keyOfLabels, keyWithoutLabels, labelsString, mergeSameLabels, SeriesCollector, type StepSeries, type Value,
} from "./series.ts";
import type { Labels } from "../types.ts";

/** Go's math.Pow where it differs from JS's ** (1^NaN, (±1)^±Inf) */
function pow(x: number, y: number): number {
  if (x === 1) return 1;
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return x ** y;
}

function arithmetic(op: BinaryOp, l: number, r: number): number {
  switch (op) {
    case "+": return l + r;
    case "-": return l - r;
    case "*": return l * r;
    case "/": return l / r;
    case "%": return l % r;
    case "^": return pow(l, r);
    case "atan2": return Math.atan2(l, r);
    default: return NaN;
  }
}

function compare(op: BinaryOp, l: number, r: number): boolean {
  switch (op) {
    case "==": return l === r;
    case "!=": return l !== r;
    case ">": return l > r;
    case "<": return l < r;
    case ">=": return l >= r;
    case "<=": return l <= r;
    default: return false;
  }
}

/** whether the sample of the last element operation stays (kept here so hot loops allocate nothing) */
let kept = false;

type Elem = (l: number, r: number) => number;

/** one pair of floats (vectorElemBinop), resolved once per operator: returns the value, sets `kept` */
function elemFor(op: BinaryOp): Elem {
  switch (op) {
    case "+": return (l, r) => ((kept = true), l + r);
    case "-": return (l, r) => ((kept = true), l - r);
    case "*": return (l, r) => ((kept = true), l * r);
    case "/": return (l, r) => ((kept = true), l / r);
    case "%": return (l, r) => ((kept = true), l % r);
    case "^": return (l, r) => ((kept = true), pow(l, r));
    case "atan2": return (l, r) => ((kept = true), Math.atan2(l, r));
    case "==": return (l, r) => ((kept = l === r), l);
    case "!=": return (l, r) => ((kept = l !== r), l);
    case ">": return (l, r) => ((kept = l > r), l);
    case "<": return (l, r) => ((kept = l < r), l);
    case ">=": return (l, r) => ((kept = l >= r), l);
    case "<=": return (l, r) => ((kept = l <= r), l);
    // the histogram trim operators never apply to floats: the sample is dropped
    default: return () => ((kept = false), 0);
  }
}

export function evalBinary(e: BinaryExpr, ctx: EvalContext): Value {
  const lt = typeOf(e.lhs);
  const rt = typeOf(e.rhs);
  if (lt === "scalar" && rt === "scalar") {
    const l = evalScalar(e.lhs, ctx);
    const r = evalScalar(e.rhs, ctx);
    if (e.op === "</" || e.op === ">/") throw execError(`operator ${JSON.stringify(e.op)} not allowed for Scalar operations`);
    const values = new Float64Array(ctx.numSteps);
    for (let i = 0; i < values.length; i++) {
      values[i] = isComparison(e.op) ? (compare(e.op, l[i]!, r[i]!) ? 1 : 0) : arithmetic(e.op, l[i]!, r[i]!);
    }
    return { type: "scalar", values };
  }
  if (lt === "vector" && rt === "vector") {
    const lhs = evalVector(e.lhs, ctx);
    const rhs = evalVector(e.rhs, ctx);
    const series = isSetOp(e.op) ? setOperation(e, lhs, rhs, ctx) : vectorBinop(e, lhs, rhs, ctx);
    return { type: "vector", series };
  }
  const swap = lt === "scalar";
  const vec = evalVector(swap ? e.rhs : e.lhs, ctx);
  const scalar = evalScalar(swap ? e.lhs : e.rhs, ctx);
  return { type: "vector", series: vectorScalar(e, vec, scalar, swap) };
}

function vectorScalar(e: BinaryExpr, vec: StepSeries[], scalar: Float64Array, swap: boolean): StepSeries[] {
  const comparison = isComparison(e.op);
  const elem = elemFor(e.op);
  const dropName = changesMetricSchema(e.op) || e.returnBool;
  const out: StepSeries[] = [];
  for (const s of vec) {
    const steps: number[] = [];
    const values: number[] = [];
    for (let j = 0; j < s.steps.length; j++) {
      const step = s.steps[j]!;
      const v = s.values[j]!;
      const result = swap ? elem(scalar[step]!, v) : elem(v, scalar[step]!);
      if (e.returnBool) {
        steps.push(step);
        values.push(kept ? 1 : 0);
      } else if (kept) {
        steps.push(step);
        // a filtering comparison keeps the vector's own value, whichever side it is on
        values.push(comparison ? v : result);
      }
    }
    if (steps.length) out.push({ labels: dropName ? dropMetricName(s.labels) : s.labels, steps, values });
  }
  return mergeSameLabels(out);
}

/** the matching signature of every series on both sides, as small integers */
function signatures(m: VectorMatching, lhs: StepSeries[], rhs: StepSeries[]) {
  const names = [...m.labels].sort();
  const sig = m.on ? (l: Labels) => keyOfLabels(l, names) : (l: Labels) => keyWithoutLabels(l, names);
  const ordinals = new Map<string, number>();
  const of = (series: StepSeries[]) =>
    Int32Array.from(series, (s) => {
      const key = sig(s.labels);
      let o = ordinals.get(key);
      if (o === undefined) {
        o = ordinals.size;
        ordinals.set(key, o);
      }
      return o;
    });
  const l = of(lhs);
  const r = of(rhs);
  return { lhs: l, rhs: r, count: ordinals.size };
}

/** the samples of some series present at each step, in series order (index[0..n), value[0..n)) */
class StepGatherer {
  private readonly cursor: Int32Array;
  readonly index: Int32Array;
  readonly value: Float64Array;

  constructor(private readonly series: StepSeries[]) {
    this.cursor = new Int32Array(series.length);
    this.index = new Int32Array(series.length);
    this.value = new Float64Array(series.length);
  }

  gather(step: number): number {
    let n = 0;
    for (let i = 0; i < this.series.length; i++) {
      const s = this.series[i]!;
      const c = this.cursor[i]!;
      if (c < s.steps.length && s.steps[c] === step) {
        this.cursor[i] = c + 1;
        this.index[n] = i;
        this.value[n++] = s.values[c]!;
      }
    }
    return n;
  }
}

/** labels of the matched group, as Prometheus prints them in errors (Labels.MatchLabels) */
function matchLabels(labels: Labels, m: VectorMatching): Labels {
  const out: Labels = {};
  for (const n in labels) {
    const listed = m.labels.includes(n);
    if (m.on ? listed : !listed && n !== "__name__") out[n] = labels[n]!;
  }
  return out;
}

function resultLabels(e: BinaryExpr, m: VectorMatching, many: Labels, one: Labels): Labels {
  // a fresh object: the input's labels are shared with other series and must not change
  let out: Labels = { ...(changesMetricSchema(e.op) ? dropMetricName(many) : many) };
  if (m.card === "one-to-one") {
    const next: Labels = {};
    for (const n in out) if (m.labels.includes(n) === m.on) next[n] = out[n]!;
    out = next;
  }
  for (const n of m.include) {
    const v = one[n];
    if (v) out[n] = v;
    else delete out[n];
  }
  return e.returnBool ? dropMetricName(out) : out;
}

function vectorBinop(e: BinaryExpr, lhs: StepSeries[], rhs: StepSeries[], ctx: EvalContext): StepSeries[] {
  const m = e.matching!;
  const sigs = signatures(m, lhs, rhs);
  // the "many" side is walked, the "one" side looked up; group_right swaps them
  const swapped = m.card === "one-to-many";
  const many = swapped ? rhs : lhs;
  const one = swapped ? lhs : rhs;
  const manySig = swapped ? sigs.rhs : sigs.lhs;
  const oneSig = swapped ? sigs.lhs : sigs.rhs;
  const elem = elemFor(e.op);
  const manyAt = new StepGatherer(many);
  const oneAt = new StepGatherer(one);
  const oneStep = new Int32Array(sigs.count).fill(-1);
  const oneIndex = new Int32Array(sigs.count);
  const oneValue = new Float64Array(sigs.count);
  const matchedStep = new Int32Array(sigs.count).fill(-1);
  const slotMatchedStep: number[] = [];
  const out = new SeriesCollector();
  // one-to-one results depend on the walked series only; group_x results also on the matched one
  const slotOfMany = new Int32Array(many.length).fill(-1);
  const slotOfPair = new Map<number, number>();
  const slotFor = (li: number, ri: number): number => {
    if (m.card === "one-to-one") {
      if (slotOfMany[li]! < 0) slotOfMany[li] = out.slot(resultLabels(e, m, many[li]!.labels, one[ri]!.labels));
      return slotOfMany[li]!;
    }
    const pair = li * one.length + ri;
    let slot = slotOfPair.get(pair);
    if (slot === undefined) {
      slot = out.slot(resultLabels(e, m, many[li]!.labels, one[ri]!.labels));
      slotOfPair.set(pair, slot);
    }
    return slot;
  };
  for (let step = 0; step < ctx.numSteps; step++) {
    const manyCount = manyAt.gather(step);
    const oneCount = oneAt.gather(step);
    if (manyCount === 0 || oneCount === 0) continue;
    for (let k = 0; k < oneCount; k++) {
      const ri = oneAt.index[k]!;
      const sig = oneSig[ri]!;
      if (oneStep[sig] === step) {
        const rs = one[ri]!.labels;
        const dup = one[oneIndex[sig]!]!.labels;
        throw execError(
          `found duplicate series for the match group ${labelsString(matchLabels(rs, m))} on the ${swapped ? "left" : "right"} hand-side of the operation: ` +
            `[${labelsString(rs)}, ${labelsString(dup)}];many-to-many matching not allowed: matching labels must be unique on one side`,
        );
      }
      oneStep[sig] = step;
      oneIndex[sig] = ri;
      oneValue[sig] = oneAt.value[k]!;
    }
    for (let k = 0; k < manyCount; k++) {
      const li = manyAt.index[k]!;
      const sig = manySig[li]!;
      if (oneStep[sig] !== step) continue;
      const ri = oneIndex[sig]!;
      const mv = manyAt.value[k]!;
      const ov = oneValue[sig]!;
      const value = swapped ? elem(ov, mv) : elem(mv, ov);
      const keep = kept;
      const slot = slotFor(li, ri);
      if (m.card === "one-to-one") {
        if (matchedStep[sig] === step) throw execError("multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)");
        matchedStep[sig] = step;
      } else {
        if (slotMatchedStep[slot] === step) throw execError("multiple matches for labels: grouping labels must ensure unique matches");
        slotMatchedStep[slot] = step;
      }
      if (e.returnBool) out.add(slot, step, keep ? 1 : 0);
      else if (keep) out.add(slot, step, value);
    }
  }
  return out.result();
}

function setOperation(e: BinaryExpr, lhs: StepSeries[], rhs: StepSeries[], ctx: EvalContext): StepSeries[] {
  const sigs = signatures(e.matching!, lhs, rhs);
  const l = new StepGatherer(lhs);
  const r = new StepGatherer(rhs);
  const present = new Int32Array(sigs.count).fill(-1);
  const out = new SeriesCollector();
  const lslot = new Int32Array(lhs.length).fill(-1);
  const rslot = new Int32Array(rhs.length).fill(-1);
  const emitL = (k: number, step: number) => {
    const i = l.index[k]!;
    if (lslot[i]! < 0) lslot[i] = out.slot(lhs[i]!.labels);
    out.add(lslot[i]!, step, l.value[k]!);
  };
  for (let step = 0; step < ctx.numSteps; step++) {
    const nl = l.gather(step);
    const nr = r.gather(step);
    if (e.op === "and") {
      if (nl === 0 || nr === 0) continue;
      for (let k = 0; k < nr; k++) present[sigs.rhs[r.index[k]!]!] = step;
      for (let k = 0; k < nl; k++) if (present[sigs.lhs[l.index[k]!]!] === step) emitL(k, step);
    } else if (e.op === "unless") {
      for (let k = 0; k < nr; k++) present[sigs.rhs[r.index[k]!]!] = step;
      for (let k = 0; k < nl; k++) if (present[sigs.lhs[l.index[k]!]!] !== step) emitL(k, step);
    } else {
      for (let k = 0; k < nl; k++) {
        present[sigs.lhs[l.index[k]!]!] = step;
        emitL(k, step);
      }
      for (let k = 0; k < nr; k++) {
        const i = r.index[k]!;
        if (present[sigs.rhs[i]!] === step) continue;
        if (rslot[i]! < 0) rslot[i] = out.slot(rhs[i]!.labels);
        out.add(rslot[i]!, step, r.value[k]!);
      }
    }
  }
  return out.result();
}
