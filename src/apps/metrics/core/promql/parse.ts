// PromQL read with the real grammar (@prometheus-io/lezer-promql) into the
// typed tree of ast.ts, then type-checked as Prometheus's parser does
// (check.ts). Errors carry Prometheus's messages and positions (reference §10).
import type { SyntaxNode } from "@lezer/common";
import { parser } from "@prometheus-io/lezer-promql";
import type { Matcher, MatchType } from "../types.ts";
import type {
  AggregateExpr, AggregateOp, AtModifier, BinaryExpr, BinaryOp, Call, Expr, Span, SubqueryExpr, VectorMatching, VectorSelector,
} from "./ast.ts";
import { FUNCTIONS, isSetOp } from "./ast.ts";
import { checkExpr } from "./check.ts";
import { diagnose } from "./diagnose.ts";
import { MAX_DURATION_MS, parseDurationMs, parseGoNumber, unquote } from "./literals.ts";
import { PromQLParseError, quoteString } from "./parse-error.ts";
import { anchoredRegex, RegexSyntaxError } from "../matchers.ts";

const BINARY_OPS: Record<string, BinaryOp> = {
  Pow: "^", Mul: "*", Div: "/", Mod: "%", Atan2: "atan2", Add: "+", Sub: "-",
  Eql: "==", Neq: "!=", Gtr: ">", Lss: "<", Gte: ">=", Lte: "<=", TrimUpper: "</", TrimLower: ">/",
  And: "and", Or: "or", Unless: "unless",
};

const MATCH_OPS: Record<string, MatchType> = { EqlSingle: "=", Neq: "!=", EqlRegex: "=~", NeqRegex: "!~" };

const EXPERIMENTAL_AGGREGATORS = new Set(["limitk", "limit_ratio"]);

/** parses and type-checks a PromQL expression; throws PromQLParseError */
export function parsePromQL(text: string): Expr {
  const tree = parser.parse(text);
  let failedAt: number | undefined;
  tree.iterate({
    enter: (n) => {
      if (n.type.isError && (failedAt === undefined || n.from < failedAt)) failedAt = n.from;
    },
  });
  if (failedAt !== undefined) {
    throw diagnose(text, failedAt) ?? new PromQLParseError(text, failedAt, "unexpected input");
  }
  // the grammar accepts a few things Prometheus's lexer refuses (an unterminated string at the end)
  const lexical = diagnose(text, undefined);
  if (lexical && /unterminated|escape sequence|no expression/.test(lexical.reason)) throw lexical;
  const top = tree.topNode.firstChild;
  if (!top) throw new PromQLParseError(text, 0, "no expression found in input");
  const expr = new Builder(text).expr(top);
  checkExpr(text, expr);
  return expr;
}

/** expressions parsed lately, by their text: dashboards and rules send the same queries again and again */
const parsed = new Map<string, Expr>();
const PARSED_MAX = 256;
/** longer texts are parsed every time (the cache stays small) */
const PARSED_MAX_TEXT = 4096;

/**
 * parsePromQL with the last PARSED_MAX expressions kept (least recently used
 * first out). The expression is shared: evaluation never changes it (every
 * query keeps its own state in maps keyed by its nodes).
 */
export function parsePromQLCached(text: string): Expr {
  const hit = parsed.get(text);
  if (hit) {
    parsed.delete(text);
    parsed.set(text, hit);
    return hit;
  }
  const expr = parsePromQL(text);
  if (text.length <= PARSED_MAX_TEXT) {
    parsed.set(text, expr);
    if (parsed.size > PARSED_MAX) parsed.delete(parsed.keys().next().value!);
  }
  return expr;
}

class Builder {
  constructor(private readonly q: string) {}

  private text(n: SyntaxNode): string {
    return this.q.slice(n.from, n.to);
  }

  private span(n: SyntaxNode): Span {
    return { start: n.from, end: n.to };
  }

  private fail(at: number, reason: string): never {
    throw new PromQLParseError(this.q, at, reason);
  }

  private children(n: SyntaxNode): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    for (let c = n.firstChild; c; c = c.nextSibling) out.push(c);
    return out;
  }

  private exprChildren(n: SyntaxNode): SyntaxNode[] {
    return this.children(n).filter((c) => c.type.is("Expr"));
  }

  expr(n: SyntaxNode): Expr {
    switch (n.name) {
      case "NumberDurationLiteral":
        return { kind: "number", value: this.number(n), span: this.span(n) };
      case "StringLiteral":
        return { kind: "string", value: unquote(this.text(n)), span: this.span(n) };
      case "VectorSelector":
        return this.vectorSelector(n);
      case "MatrixSelector":
        return this.matrixSelector(n);
      case "SubqueryExpr":
        return this.subquery(n);
      case "OffsetExpr":
        return this.offset(n);
      case "StepInvariantExpr":
        return this.at(n);
      case "FunctionCall":
        return this.call(n);
      case "AggregateExpr":
        return this.aggregate(n);
      case "BinaryExpr":
        return this.binary(n);
      case "UnaryExpr": {
        const [inner] = this.exprChildren(n);
        const op = this.text(n.getChild("UnaryOp")!) as "-" | "+";
        return this.unary(op, this.expr(inner!), this.span(n));
      }
      case "ParenExpr": {
        const [inner] = this.exprChildren(n);
        return { kind: "paren", expr: this.expr(inner!), span: this.span(n) };
      }
      case "AnchoredExpr":
        return this.fail(n.from, "anchored modifier is experimental and not enabled");
      case "SmoothedExpr":
        return this.fail(n.from, "smoothed modifier is experimental and not enabled");
      default:
        return this.fail(n.from, `unexpected ${quoteString(this.text(n))}`);
    }
  }

  /** unary minus of a number literal folds into the literal, as Prometheus's grammar does */
  private unary(op: "-" | "+", inner: Expr, span: Span): Expr {
    if (inner.kind === "number") return { kind: "number", value: op === "-" ? -inner.value : inner.value, span };
    return { kind: "unary", op, expr: inner, span };
  }

  private number(n: SyntaxNode): number {
    const raw = this.text(n).replace(/\s+/g, "");
    const sign = raw[0] === "-" ? -1 : 1;
    const body = raw.replace(/^[+-]/, "");
    const duration = /[a-zA-Z]$/.test(body) && !/^(inf|nan)$/i.test(body) && !/^0x/i.test(body) ? parseDurationMs(body) : undefined;
    if (duration === Infinity) return this.fail(n.from, "duration out of range");
    if (duration !== undefined) return (sign * duration) / 1000;
    const value = parseGoNumber(body);
    if (Number.isNaN(value) && body.toLowerCase() !== "nan") {
      return this.fail(n.from, `error parsing number: strconv.ParseFloat: parsing ${quoteString(body)}: invalid syntax`);
    }
    if (!Number.isFinite(value) && !/inf/i.test(body) && !Number.isNaN(value)) {
      return this.fail(n.from, `error parsing number: strconv.ParseFloat: parsing ${quoteString(body)}: value out of range`);
    }
    return sign * value;
  }

  /** a duration inside [...] or after offset, in ms; plain numbers are seconds */
  private duration(n: SyntaxNode): number {
    if (n.name === "DurationExpr" || n.name === "OffsetDurationExpr") {
      const kids = this.children(n);
      if (kids.length === 1 && kids[0]!.name === "NumberDurationLiteralInDurationContext") return this.duration(kids[0]!);
      if (n.name === "OffsetDurationExpr" && kids.length === 2 && kids[0]!.name === "UnaryOp") {
        const inner = this.duration(kids[1]!);
        return this.text(kids[0]!) === "-" ? -inner : inner;
      }
      return this.fail(n.from, "experimental duration expression is not enabled");
    }
    const text = this.text(n);
    const d = parseDurationMs(text);
    if (d === Infinity) return this.fail(n.from, "duration out of range");
    if (d !== undefined) return d;
    const seconds = parseGoNumber(text);
    if (!Number.isFinite(seconds)) return this.fail(n.from, `not a valid duration string: ${quoteString(text)}`);
    // a number of seconds beyond a Go time.Duration (int64 ns) is out of range as well
    if (Math.abs(seconds * 1000) > MAX_DURATION_MS) return this.fail(n.from, "duration out of range");
    return Math.round(seconds * 1000);
  }

  private vectorSelector(n: SyntaxNode): VectorSelector {
    const ident = n.getChild("Identifier");
    const matchers: Matcher[] = [];
    const list = n.getChild("LabelMatchers");
    if (list) {
      for (const m of this.children(list)) {
        if (m.name === "QuotedLabelName") {
          matchers.push({ type: "=", name: "__name__", value: unquote(this.text(m)) });
          continue;
        }
        const nameNode = m.getChild("LabelName") ?? m.getChild("QuotedLabelName");
        const opNode = m.getChild("MatchOp")?.firstChild;
        const valueNode = m.getChild("StringLiteral");
        if (!nameNode || !opNode || !valueNode) return this.fail(m.from, "unexpected label matcher");
        const name = nameNode.name === "QuotedLabelName" ? unquote(this.text(nameNode)) : this.text(nameNode);
        const matcher: Matcher = { type: MATCH_OPS[opNode.name]!, name, value: unquote(this.text(valueNode)) };
        if (matcher.type === "=~" || matcher.type === "!~") {
          try {
            anchoredRegex(matcher.value);
          } catch (err) {
            if (err instanceof RegexSyntaxError) this.fail(nameNode.from, err.message);
            throw err;
          }
        }
        matchers.push(matcher);
      }
    }
    const selector: VectorSelector = { kind: "vectorSelector", matchers, offset: 0, span: this.span(n) };
    if (ident) {
      selector.name = this.text(ident);
      matchers.push({ type: "=", name: "__name__", value: selector.name });
    }
    return selector;
  }

  /**
   * The grammar attaches a postfix modifier ([range], [range:step], offset, @)
   * to the whole expression before it; Prometheus's binds it tighter than any
   * operator, so it goes to the rightmost operand: `a + x offset 1m` is
   * `a + (x offset 1m)`, `-x[5m]` is `-(x[5m])`.
   */
  private postfix(target: Expr, apply: (e: Expr) => Expr): Expr {
    if (target.kind === "binary") return { ...target, rhs: this.postfix(target.rhs, apply) };
    if (target.kind === "unary") return { ...target, expr: this.postfix(target.expr, apply) };
    return apply(target);
  }

  private matrixSelector(n: SyntaxNode): Expr {
    const [inner] = this.exprChildren(n);
    const rangeNode = n.getChild("DurationExpr")!;
    const open = this.q.lastIndexOf("[", rangeNode.from);
    const range = this.duration(rangeNode);
    return this.postfix(this.expr(inner!), (sel) => {
      if (sel.kind !== "vectorSelector") return this.fail(open, "ranges only allowed for vector selectors");
      if (sel.offset !== 0) return this.fail(open, "no offset modifiers allowed before range");
      if (sel.at) return this.fail(open, "no @ modifiers allowed before range");
      return { kind: "matrixSelector", selector: sel, range, span: { start: sel.span.start, end: n.to } };
    });
  }

  private subquery(n: SyntaxNode): Expr {
    const [inner] = this.exprChildren(n);
    const durations = n.getChildren("DurationExpr");
    const range = this.duration(durations[0]!);
    const step = durations[1] ? this.duration(durations[1]) : undefined;
    return this.postfix(this.expr(inner!), (expr) => {
      const sub: SubqueryExpr = { kind: "subquery", expr, range, offset: 0, span: { start: expr.span.start, end: n.to } };
      if (step !== undefined) sub.step = step;
      return sub;
    });
  }

  private offset(n: SyntaxNode): Expr {
    const [inner] = this.exprChildren(n);
    return this.postfix(this.expr(inner!), (target) => this.applyOffset(n, target));
  }

  private applyOffset(n: SyntaxNode, target: Expr): Expr {
    const offset = this.duration(n.getChild("OffsetDurationExpr")!);
    const span = { start: target.span.start, end: n.to };
    const place = (holder: { offset: number; span: Span }) => {
      if (holder.offset !== 0) this.fail(target.span.start, "offset may not be set multiple times");
      holder.offset = offset;
      holder.span = span;
    };
    if (target.kind === "vectorSelector" || target.kind === "subquery") place(target);
    else if (target.kind === "matrixSelector") {
      place(target.selector);
      target.span = span;
    } else {
      return this.fail(target.span.start, "offset modifier must be preceded by an instant vector selector or range vector selector or a subquery");
    }
    return target;
  }

  private at(n: SyntaxNode): Expr {
    const [inner] = this.exprChildren(n);
    return this.postfix(this.expr(inner!), (target) => this.applyAt(n, target));
  }

  private applyAt(n: SyntaxNode, target: Expr): Expr {
    let at: AtModifier;
    const pre = n.getChild("AtModifierPreprocessors");
    if (pre) {
      at = { preprocessor: this.text(pre).toLowerCase() === "start" ? "start" : "end" };
    } else {
      const tsNode = n.getChild("NumberDurationLiteral")!;
      const seconds = this.number(tsNode);
      if (!Number.isFinite(seconds) || Math.abs(seconds) >= 9.223372036854776e18) {
        return this.fail(target.span.start, `timestamp out of bounds for @ modifier: ${formatGoF(seconds)}`);
      }
      at = { time: Math.round(seconds * 1000) };
    }
    const holder = target.kind === "matrixSelector" ? target.selector : target;
    if (holder.kind !== "vectorSelector" && holder.kind !== "subquery") {
      return this.fail(target.span.start, "@ modifier must be preceded by an instant vector selector or range vector selector or a subquery");
    }
    if (holder.at) return this.fail(target.span.start, "@ <timestamp> may not be set multiple times");
    holder.at = at;
    target.span = { start: target.span.start, end: n.to };
    return target;
  }

  private call(n: SyntaxNode): Call {
    const idNode = n.getChild("FunctionIdentifier")!;
    const name = this.text(idNode);
    const sig = FUNCTIONS[name];
    if (!sig) return this.fail(idNode.from, `unknown function with name ${quoteString(name)}`);
    if (sig.experimental) return this.fail(idNode.from, `function ${quoteString(name)} is not enabled`);
    const body = n.getChild("FunctionCallBody")!;
    return { kind: "call", func: name, args: this.exprChildren(body).map((a) => this.expr(a)), span: this.span(n) };
  }

  private aggregate(n: SyntaxNode): AggregateExpr {
    const opNode = n.getChild("AggregateOp")!;
    const op = this.text(opNode).toLowerCase() as AggregateOp;
    const span = this.span(n);
    if (EXPERIMENTAL_AGGREGATORS.has(op)) {
      return this.fail(n.from, `${op}() is experimental and must be enabled with --enable-feature=promql-experimental-functions`);
    }
    const args = this.exprChildren(n.getChild("FunctionCallBody")!).map((a) => this.expr(a));
    if (args.length === 0) return this.fail(n.from, "no arguments for aggregate expression provided");
    const withParam = op === "topk" || op === "bottomk" || op === "count_values" || op === "quantile";
    const want = withParam ? 2 : 1;
    if (args.length !== want) {
      return this.fail(n.from, `wrong number of arguments for aggregate expression provided, expected ${want}, got ${args.length}`);
    }
    const agg: AggregateExpr = { kind: "aggregate", op, expr: args[want - 1]!, grouping: [], without: false, span };
    if (withParam) agg.param = args[0]!;
    const modifier = n.getChild("AggregateModifier");
    if (modifier) {
      agg.without = !!modifier.getChild("Without");
      agg.grouping = this.groupingLabels(modifier.getChild("GroupingLabels")!);
    }
    return agg;
  }

  private groupingLabels(n: SyntaxNode): string[] {
    return this.children(n).map((c) => (c.name === "QuotedLabelName" ? unquote(this.text(c)) : this.text(c)));
  }

  private binary(n: SyntaxNode): Expr {
    const kids = this.children(n);
    const [lhsNode, rhsNode] = this.exprChildren(n);
    const opNode = kids.find((k) => BINARY_OPS[k.name] !== undefined)!;
    const op = BINARY_OPS[opNode.name]!;
    if (n.getChild("FillModifier")) return this.fail(n.from, "binop fill modifiers are experimental and not enabled");
    const rhs = this.expr(rhsNode!);
    // lezer reads "-1 ^ 2" as (-1)^2; Prometheus's grammar gives unary minus a lower precedence than ^
    let signedLiteral: "-" | "+" | undefined;
    if (op === "^" && lhsNode!.name === "NumberDurationLiteral" && /^[+-]/.test(this.text(lhsNode!))) {
      signedLiteral = this.text(lhsNode!)[0] as "-" | "+";
    }
    let lhs = this.expr(lhsNode!);
    if (signedLiteral === "-" && lhs.kind === "number") lhs = { ...lhs, value: -lhs.value };
    const bin: BinaryExpr = {
      kind: "binary",
      op,
      lhs,
      rhs,
      returnBool: !!n.getChild("BoolModifier"),
      opSpan: { start: opNode.from, end: opNode.to },
      span: this.span(n),
    };
    const clause = n.getChild("MatchingModifierClause");
    const matching: VectorMatching = { card: isSetOp(op) ? "many-to-many" : "one-to-one", on: false, labels: [], include: [] };
    if (clause) {
      const lists = clause.getChildren("GroupingLabels");
      matching.on = !!clause.getChild("On");
      matching.labels = this.groupingLabels(lists[0]!);
      if (clause.getChild("GroupLeft")) matching.card = "many-to-one";
      if (clause.getChild("GroupRight")) matching.card = "one-to-many";
      if (lists[1]) matching.include = this.groupingLabels(lists[1]);
    }
    bin.matching = matching;
    if (signedLiteral) return { kind: "unary", op: signedLiteral, expr: bin, span: this.span(n) };
    return bin;
  }
}

/** Go's %f */
function formatGoF(v: number): string {
  if (Number.isNaN(v)) return "NaN";
  if (!Number.isFinite(v)) return v > 0 ? "+Inf" : "-Inf";
  return v.toFixed(6);
}
