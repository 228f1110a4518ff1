// The typed PromQL syntax tree the parser builds and the evaluator walks.
// Shapes follow Prometheus's promql/parser AST (ast.go), trimmed to what this
// store evaluates; durations and timestamps are milliseconds.
import type { Matcher } from "../types.ts";

export type ValueType = "scalar" | "vector" | "matrix" | "string";

/** a character range of the query text, 0-based, end exclusive */
export interface Span {
  start: number;
  end: number;
}

export interface NumberLiteral {
  kind: "number";
  value: number;
  span: Span;
}

export interface StringLiteral {
  kind: "string";
  value: string;
  span: Span;
}

/** `@ <time>`, `@ start()` or `@ end()`; time in ms */
export type AtModifier = { time: number } | { preprocessor: "start" | "end" };

export interface VectorSelector {
  kind: "vectorSelector";
  /** the metric name written before the braces, if any */
  name?: string;
  /** every matcher, the name's own `__name__` matcher last (as Prometheus) */
  matchers: Matcher[];
  /** offset in ms (negative allowed) */
  offset: number;
  at?: AtModifier;
  span: Span;
}

export interface MatrixSelector {
  kind: "matrixSelector";
  selector: VectorSelector;
  /** range in ms */
  range: number;
  span: Span;
}

export interface SubqueryExpr {
  kind: "subquery";
  expr: Expr;
  range: number;
  /** resolution in ms; undefined means the default evaluation interval */
  step?: number;
  offset: number;
  at?: AtModifier;
  span: Span;
}

export interface Call {
  kind: "call";
  func: string;
  args: Expr[];
  span: Span;
}

export type AggregateOp =
  | "sum" | "avg" | "min" | "max" | "count" | "group" | "stddev" | "stdvar"
  | "topk" | "bottomk" | "count_values" | "quantile" | "limitk" | "limit_ratio";

export interface AggregateExpr {
  kind: "aggregate";
  op: AggregateOp;
  expr: Expr;
  param?: Expr;
  grouping: string[];
  without: boolean;
  span: Span;
}

export type ArithmeticOp = "+" | "-" | "*" | "/" | "%" | "^" | "atan2";
export type ComparisonOp = "==" | "!=" | ">" | "<" | ">=" | "<=";
export type SetOp = "and" | "or" | "unless";
/** native-histogram trim operators: parsed, never true for float samples */
export type TrimOp = "</" | ">/";
export type BinaryOp = ArithmeticOp | ComparisonOp | SetOp | TrimOp;

export type Cardinality = "one-to-one" | "many-to-one" | "one-to-many" | "many-to-many";

export interface VectorMatching {
  card: Cardinality;
  /** true for on(...), false for ignoring(...) or no clause */
  on: boolean;
  labels: string[];
  /** the group_left / group_right label list */
  include: string[];
}

export interface BinaryExpr {
  kind: "binary";
  op: BinaryOp;
  lhs: Expr;
  rhs: Expr;
  returnBool: boolean;
  /** set only between two instant vectors */
  matching?: VectorMatching;
  /** where the operator sits, for error positions */
  opSpan: Span;
  span: Span;
}

export interface UnaryExpr {
  kind: "unary";
  op: "-" | "+";
  expr: Expr;
  span: Span;
}

export interface ParenExpr {
  kind: "paren";
  expr: Expr;
  span: Span;
}

export type Expr =
  | NumberLiteral
  | StringLiteral
  | VectorSelector
  | MatrixSelector
  | SubqueryExpr
  | Call
  | AggregateExpr
  | BinaryExpr
  | UnaryExpr
  | ParenExpr;

/** an expression's operands (a matrix selector's selector is not one: it is the selector's own) */
export function operandsOf(e: Expr): Expr[] {
  switch (e.kind) {
    case "subquery":
    case "paren":
    case "unary":
      return [e.expr];
    case "call":
      return e.args;
    case "aggregate":
      return e.param ? [e.expr, e.param] : [e.expr];
    case "binary":
      return [e.lhs, e.rhs];
    default:
      return [];
  }
}

export function isComparison(op: BinaryOp): op is ComparisonOp {
  return op === "==" || op === "!=" || op === ">" || op === "<" || op === ">=" || op === "<=";
}

export function isSetOp(op: BinaryOp): op is SetOp {
  return op === "and" || op === "or" || op === "unless";
}

/** operators whose result is no longer the input metric (Prometheus's changesMetricSchema) */
export function changesMetricSchema(op: BinaryOp): boolean {
  return op === "+" || op === "-" || op === "*" || op === "/" || op === "%" || op === "^" || op === "atan2";
}

export interface FunctionSignature {
  args: ValueType[];
  /** 0: exactly args; n > 0: up to n more of the last type; -1: any number more */
  variadic: number;
  returns: ValueType;
  experimental?: boolean;
}

const v: ValueType = "vector";
const m: ValueType = "matrix";
const s: ValueType = "scalar";
const str: ValueType = "string";
const fn = (args: ValueType[], returns: ValueType, variadic = 0, experimental = false): FunctionSignature => ({
  args,
  variadic,
  returns,
  experimental,
});

/** Prometheus's function table (promql/parser/functions.go) */
export const FUNCTIONS: Record<string, FunctionSignature> = {
  abs: fn([v], v), absent: fn([v], v), absent_over_time: fn([m], v),
  acos: fn([v], v), acosh: fn([v], v), asin: fn([v], v), asinh: fn([v], v), atan: fn([v], v), atanh: fn([v], v),
  avg_over_time: fn([m], v), ceil: fn([v], v), changes: fn([m], v),
  clamp: fn([v, s, s], v), clamp_max: fn([v, s], v), clamp_min: fn([v, s], v),
  cos: fn([v], v), cosh: fn([v], v), count_over_time: fn([m], v),
  days_in_month: fn([v], v, 1), day_of_month: fn([v], v, 1), day_of_week: fn([v], v, 1), day_of_year: fn([v], v, 1),
  deg: fn([v], v), delta: fn([m], v), deriv: fn([m], v), exp: fn([v], v),
  first_over_time: fn([m], v, 0, true), floor: fn([v], v),
  histogram_avg: fn([v], v), histogram_count: fn([v], v), histogram_sum: fn([v], v),
  histogram_stddev: fn([v], v), histogram_stdvar: fn([v], v),
  histogram_fraction: fn([s, s, v], v), histogram_quantile: fn([s, v], v),
  histogram_quantiles: fn([v, str, s, s], v, 9, true),
  double_exponential_smoothing: fn([m, s, s], v, 0, true),
  hour: fn([v], v, 1), idelta: fn([m], v), increase: fn([m], v),
  info: fn([v, v], v, 1, true), integral: fn([m, s], v, 1, true), irate: fn([m], v),
  label_replace: fn([v, str, str, str, str], v), label_join: fn([v, str, str, str], v, -1),
  last_over_time: fn([m], v), ln: fn([v], v), log10: fn([v], v), log2: fn([v], v),
  mad_over_time: fn([m], v, 0, true), max_over_time: fn([m], v), min_over_time: fn([m], v),
  ts_of_first_over_time: fn([m], v, 0, true), ts_of_max_over_time: fn([m], v, 0, true),
  ts_of_min_over_time: fn([m], v, 0, true), ts_of_last_over_time: fn([m], v, 0, true),
  minute: fn([v], v, 1), month: fn([v], v, 1), pi: fn([], s),
  predict_linear: fn([m, s], v), present_over_time: fn([m], v), quantile_over_time: fn([s, m], v),
  rad: fn([v], v), rate: fn([m], v), resets: fn([m], v), round: fn([v, s], v, 1),
  scalar: fn([v], s), sgn: fn([v], v), sin: fn([v], v), sinh: fn([v], v),
  sort: fn([v], v), sort_desc: fn([v], v),
  sort_by_label: fn([v, str], v, -1, true), sort_by_label_desc: fn([v, str], v, -1, true),
  sqrt: fn([v], v), stddev_over_time: fn([m], v), stdvar_over_time: fn([m], v), sum_over_time: fn([m], v),
  tan: fn([v], v), tanh: fn([v], v), time: fn([], s), timestamp: fn([v], v), vector: fn([s], v), year: fn([v], v, 1),
  start: fn([], s, 0, true), end: fn([], s, 0, true), range: fn([], s, 0, true), step: fn([], s, 0, true),
};

/** the type an expression evaluates to (Prometheus's Expr.Type()) */
export function typeOf(e: Expr): ValueType {
  switch (e.kind) {
    case "number":
      return "scalar";
    case "string":
      return "string";
    case "vectorSelector":
    case "aggregate":
      return "vector";
    case "matrixSelector":
    case "subquery":
      return "matrix";
    case "call":
      return FUNCTIONS[e.func]?.returns ?? "vector";
    case "binary":
      return typeOf(e.lhs) === "scalar" && typeOf(e.rhs) === "scalar" ? "scalar" : "vector";
    case "unary":
    case "paren":
      return typeOf(e.expr);
  }
}

/** Prometheus's DocumentedType: the words its messages use for a type */
export function documentedType(t: ValueType | "none"): string {
  switch (t) {
    case "vector":
      return "instant vector";
    case "matrix":
      return "range vector";
    default:
      return t;
  }
}

/** drops any parentheses around an expression (Prometheus unwraps them before evaluation) */
export function unwrapParens(e: Expr): Expr {
  while (e.kind === "paren") e = e.expr;
  return e;
}
