// LogQL read with the real grammar (@grafana/lezer-logql) into a small AST.
// A query the grammar rejects is a 400 pointing at the position, in the real
// product's words (reference §3, "LogQL parse errors"). Only the subset this
// store evaluates is accepted; anything else is refused by name.
import { parser } from "@grafana/lezer-logql";
import type { SyntaxNode } from "@lezer/common";
import { boundedMemo } from "../../../../lib/bounded-memo.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { compileAnchored, compileUnanchored, RegexSyntaxError, type Regex } from "../../../../lib/re2.ts";
import { parseDuration } from "../../../../lib/units.ts";
import { parseTemplate, TemplateError, type Template } from "./template.ts";

export type MatchOp = "=" | "!=" | "=~" | "!~";
export interface Matcher {
  name: string;
  op: MatchOp;
  value: string;
  /** anchored, for =~ and !~ */
  re?: Regex;
}

export type LineFilterOp = "|=" | "!=" | "|~" | "!~";
export interface LineFilter {
  op: LineFilterOp;
  value: string;
  re?: Regex;
}

export type LabelFilter =
  | { kind: "match"; matcher: Matcher }
  | { kind: "number"; name: string; op: ">" | ">=" | "<" | "<=" | "==" | "!="; value: number }
  | { kind: "and" | "or"; left: LabelFilter; right: LabelFilter };

export type Stage =
  | { kind: "line"; filter: LineFilter }
  | { kind: "json" }
  | { kind: "logfmt" }
  | { kind: "regexp"; re: Regex }
  | { kind: "labels"; filter: LabelFilter }
  | { kind: "line_format"; template: string; compiled: Template }
  | { kind: "label_format"; formats: LabelFormat[] }
  | { kind: "keep" | "drop"; labels: NamedLabel[] };

/** one item of keep/drop: a label by name, or by a matcher on its value */
export type NamedLabel = { name: string; matcher?: Matcher };

/** one `dst=src` (a rename) or `dst="template"` of a label_format stage */
export type LabelFormat = { name: string; rename: string } | { name: string; template: Template };

export interface LogQuery {
  kind: "log";
  matchers: Matcher[];
  stages: Stage[];
}

export type RangeOp = "count_over_time" | "rate" | "bytes_over_time" | "bytes_rate";
export interface RangeAggregation {
  kind: "range";
  op: RangeOp;
  query: LogQuery;
  rangeMs: number;
}

export type VectorOp = "sum" | "avg" | "min" | "max" | "count" | "topk" | "bottomk";
export interface VectorAggregation {
  kind: "vector";
  op: VectorOp;
  grouping?: { without: boolean; labels: string[] };
  param?: number;
  inner: MetricQuery;
}

export type MetricQuery = RangeAggregation | VectorAggregation;
export type Query = LogQuery | MetricQuery;

const parseError = (message: string) => new ApiError(400, message);

/** line and column (1-based) of an offset, as the real product reports them */
function position(q: string, offset: number): string {
  const before = q.slice(0, offset);
  const line = before.split("\n").length;
  const col = offset - before.lastIndexOf("\n");
  return `line ${line}, col ${col}`;
}

/**
 * A query's AST, parsed once per distinct text: dashboards and tailing
 * clients send the same few queries again and again, and the grammar's parse
 * cost more than answering a small query. The AST is shared: it is read,
 * never changed, by evaluation (its regexes and templates are stateless).
 * A text that fails to parse is not remembered (its error is thrown again),
 * nor is a long one (memory stays bounded: at most 500 texts of 4 KiB).
 */
export function parseLogQL(q: string): Query {
  const query = q.length <= MEMO_MAX_TEXT ? parseRemembered(q) : parseLogQLText(q);
  texts.set(query, q);
  return query;
}

/** the text a parsed query was read from: query tasks send the text and parse it where they run */
const texts = new WeakMap<Query, string>();
export function textOf(query: Query): string | undefined {
  return texts.get(query);
}
const MEMO_MAX_TEXT = 4096;
const parseRemembered = boundedMemo(parseLogQLText, 500);

function parseLogQLText(q: string): Query {
  const tree = parser.parse(q);
  let error: number | undefined;
  tree.iterate({
    enter: (n) => {
      if (error === undefined && n.type.isError) error = n.from;
    },
  });
  if (!q.trim()) throw parseError("parse error : syntax error: unexpected $end");
  if (error !== undefined) {
    const rest = q.slice(error).trimStart();
    const unexpected = rest ? `unexpected ${JSON.stringify(rest.split(/\s/)[0])}` : "unexpected $end";
    throw parseError(`parse error at ${position(q, error)}: syntax error: ${unexpected}`);
  }
  const expr = tree.topNode.getChild("Expr")?.firstChild;
  if (!expr) throw parseError("parse error : failed to parse the log query");
  return new Reader(q).expr(expr);
}

/** only a stream selector: series match[] and the labels endpoints' query */
export function parseSelector(q: string): Matcher[] {
  const parsed = parseLogQL(q);
  if (parsed.kind !== "log" || parsed.stages.length) throw parseError("only label matchers are supported");
  return parsed.matchers;
}

/** a Go-quoted or backtick string literal */
export function unquote(raw: string): string {
  if (raw.startsWith("`")) return raw.slice(1, -1);
  try {
    return JSON.parse(raw) as string;
  } catch {
    // Go escapes JSON lacks (\a, \v, \x41, \', octal): decode them one by one
    return raw.slice(1, -1).replace(/\\(x[0-9a-fA-F]{2}|[0-7]{3}|u[0-9a-fA-F]{4}|.)/g, (_, e: string) => {
      const simple: Record<string, string> = { a: "\x07", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t", v: "\v", "\\": "\\", '"': '"', "'": "'" };
      if (e in simple) return simple[e]!;
      if (e[0] === "x" || e[0] === "u") return String.fromCharCode(parseInt(e.slice(1), 16));
      if (/^[0-7]{3}$/.test(e)) return String.fromCharCode(parseInt(e, 8));
      return e;
    });
  }
}

/**
 * A user regex in RE2 (linear time, src/lib/re2.ts): matchers are anchored as
 * ^(?s:re)$, line filters are not. A pattern RE2 refuses is the real
 * product's 400: `parse error : error parsing regexp: missing closing ): `(a``.
 */
function regex(source: string, anchored: boolean): Regex {
  try {
    return anchored ? compileAnchored(source) : compileUnanchored(source);
  } catch (err) {
    if (err instanceof RegexSyntaxError) throw parseError(`parse error : ${err.message}`);
    throw err;
  }
}

/** `| regexp "re"`: Loki's regexp parser needs named captures that are valid label names */
function regexpParser(source: string): Regex {
  const re = regex(source, false);
  const names = re.names.filter((n): n is string => n !== undefined);
  for (const n of names) if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(n)) throw parseError(`parse error : invalid extracted label name '${n}'`);
  if (!names.length) throw parseError("parse error : at least one named capture must be supported");
  return re;
}

class Reader {
  constructor(private readonly q: string) {}

  private text(n: SyntaxNode): string {
    return this.q.slice(n.from, n.to);
  }

  private unsupported(n: SyntaxNode): never {
    throw parseError(`parse error at ${position(this.q, n.from)}: ${JSON.stringify(this.text(n).slice(0, 40))} is not supported by this log store`);
  }

  expr(n: SyntaxNode): Query {
    if (n.name === "LogExpr") return this.logExpr(n);
    if (n.name === "MetricExpr") return this.metric(n);
    return this.unsupported(n);
  }

  logExpr(n: SyntaxNode): LogQuery {
    const selector = n.getChild("Selector");
    if (!selector) return this.unsupported(n);
    const matchers = this.matchers(selector);
    if (!matchers.some((m) => !m.re?.test("") && m.op !== "!=" && m.op !== "!~" && !(m.op === "=" && m.value === ""))) {
      throw parseError(
        'parse error : queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will',
      );
    }
    const stages: Stage[] = [];
    const pipeline = n.getChild("PipelineExpr");
    if (pipeline) this.pipeline(pipeline, stages);
    return { kind: "log", matchers, stages };
  }

  matchers(selector: SyntaxNode): Matcher[] {
    const out: Matcher[] = [];
    const walk = (m: SyntaxNode | null) => {
      for (let c = m?.firstChild ?? null; c; c = c.nextSibling) {
        if (c.name === "Matchers") walk(c);
        else if (c.name === "Matcher") out.push(this.matcher(c));
      }
    };
    walk(selector.getChild("Matchers"));
    return out;
  }

  matcher(n: SyntaxNode): Matcher {
    const name = this.text(n.getChild("Identifier")!);
    const opNode = n.getChild("Eq") ?? n.getChild("Neq") ?? n.getChild("Re") ?? n.getChild("Nre");
    const str = n.getChild("String");
    if (!opNode || !str) return this.unsupported(n);
    const op = this.text(opNode) as MatchOp;
    const value = unquote(this.text(str));
    return op === "=~" || op === "!~" ? { name, op, value, re: regex(value, true) } : { name, op, value };
  }

  pipeline(n: SyntaxNode, stages: Stage[]): void {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.name === "PipelineExpr") this.pipeline(c, stages);
      else if (c.name === "PipelineStage") this.stage(c, stages);
    }
  }

  stage(n: SyntaxNode, stages: Stage[]): void {
    const filters = n.getChild("LineFilters");
    if (filters) return this.lineFilters(filters, stages);
    const logfmt = n.getChild("LogfmtParser");
    if (logfmt) {
      // flags (--strict, --keep-empty) and named extractions are not evaluated
      if (logfmt.getChild("LogfmtParserFlags") || logfmt.getChild("ParserFlag") || this.text(logfmt) !== "logfmt") return this.unsupported(logfmt);
      return void stages.push({ kind: "logfmt" });
    }
    const parserNode = n.getChild("LabelParser");
    if (parserNode) {
      if (parserNode.getChild("Json") && !parserNode.getChild("String")) return void stages.push({ kind: "json" });
      if (parserNode.getChild("Logfmt")) return void stages.push({ kind: "logfmt" });
      const pattern = parserNode.getChild("Regexp") ? parserNode.getChild("String") : null;
      if (pattern) return void stages.push({ kind: "regexp", re: regexpParser(unquote(this.text(pattern))) });
      return this.unsupported(parserNode);
    }
    const labelFilter = n.getChild("LabelFilter");
    if (labelFilter) return void stages.push({ kind: "labels", filter: this.labelFilter(labelFilter) });
    const lineFormat = n.getChild("LineFormatExpr");
    if (lineFormat) return void stages.push(lineFormatStage(unquote(this.text(lineFormat.getChild("String")!))));
    const labelFormat = n.getChild("LabelFormatExpr");
    if (labelFormat) return void stages.push(this.labelFormat(labelFormat));
    const keep = n.getChild("KeepLabelsExpr");
    if (keep) return void stages.push({ kind: "keep", labels: this.namedLabels(keep.getChild("KeepLabels"), "KeepLabels", "KeepLabel") });
    const drop = n.getChild("DropLabelsExpr");
    if (drop) return void stages.push({ kind: "drop", labels: this.namedLabels(drop.getChild("DropLabels"), "DropLabels", "DropLabel") });
    return this.unsupported(n);
  }

  /** label_format dst="template", dst=src, ...: templates parsed now, as line_format's */
  labelFormat(n: SyntaxNode): Stage {
    const matchers: SyntaxNode[] = [];
    const walk = (m: SyntaxNode | null) => {
      for (let c = m?.firstChild ?? null; c; c = c.nextSibling) {
        if (c.name === "LabelsFormat") walk(c);
        else if (c.name === "LabelFormatMatcher") matchers.push(c);
      }
    };
    walk(n.getChild("LabelsFormat"));
    const parts = matchers.map((m) => {
      const [dst, src] = m.getChildren("Identifier");
      const str = m.getChild("String");
      return { name: this.text(dst!), src: src ? this.text(src) : undefined, value: str ? unquote(this.text(str)) : undefined };
    });
    // the stage as the real product writes it in its errors
    const stage = `| label_format ${parts.map((p) => `${p.name}=${p.src ?? JSON.stringify(p.value)}`).join(", ")}`;
    const seen = new Set<string>();
    const formats = parts.map((p): LabelFormat => {
      if (seen.has(p.name)) throw parseError(`parse error : stage '${stage}' : multiple label name '${p.name}' not allowed in a single format operation`);
      seen.add(p.name);
      if (p.src !== undefined) return { name: p.name, rename: p.src };
      try {
        return { name: p.name, template: parseTemplate(p.value ?? "", "label", unquote) };
      } catch (err) {
        if (!(err instanceof TemplateError)) throw err;
        throw parseError(`parse error : stage '${stage}' : invalid template for label '${p.name}': ${err.message}`);
      }
    });
    return { kind: "label_format", formats };
  }

  /** the items of keep/drop (a nested list of names and matchers), in order */
  private namedLabels(n: SyntaxNode | null, list: string, item: string): NamedLabel[] {
    const out: NamedLabel[] = [];
    for (let c = n?.firstChild ?? null; c; c = c.nextSibling) {
      if (c.name === list) out.push(...this.namedLabels(c, list, item));
      else if (c.name === item) {
        const matcher = c.getChild("Matcher");
        out.push(matcher ? { name: this.text(matcher.getChild("Identifier")!), matcher: this.matcher(matcher) } : { name: this.text(c.getChild("Identifier") ?? c) });
      }
    }
    return out;
  }

  lineFilters(n: SyntaxNode, stages: Stage[]): void {
    for (let c = n.firstChild; c; c = c.nextSibling) {
      if (c.name === "LineFilters") this.lineFilters(c, stages);
      else if (c.name === "LineFilter") {
        const op = this.text(c.getChild("Filter")!) as LineFilterOp;
        const strings = c.getChildren("String");
        if (strings.length !== 1) return this.unsupported(c);
        const value = unquote(this.text(strings[0]!));
        const filter: LineFilter = op === "|~" || op === "!~" ? { op, value, re: regex(value, false) } : { op, value };
        stages.push({ kind: "line", filter });
      }
    }
  }

  labelFilter(n: SyntaxNode): LabelFilter {
    const children: SyntaxNode[] = [];
    for (let c = n.firstChild; c; c = c.nextSibling) children.push(c);
    const nested = children.filter((c) => c.name === "LabelFilter");
    if (nested.length === 2) {
      const or = children.some((c) => c.name === "Or");
      return { kind: or ? "or" : "and", left: this.labelFilter(nested[0]!), right: this.labelFilter(nested[1]!) };
    }
    if (nested.length === 1) return this.labelFilter(nested[0]!);
    const matcher = n.getChild("Matcher");
    if (matcher) return { kind: "match", matcher: this.matcher(matcher) };
    const num = n.getChild("NumberFilter");
    if (num) {
      const name = this.text(num.getChild("Identifier")!);
      const ops = ["Gtr", "Gte", "Lss", "Lte", "Eql", "Neq", "Eq"].map((k) => num.getChild(k)).find(Boolean);
      const value = num.getChild("Number") ?? num.getChild("LiteralExpr");
      if (!ops || !value) return this.unsupported(num);
      const op = this.text(ops) === "=" ? "==" : (this.text(ops) as ">");
      return { kind: "number", name, op, value: Number(this.text(value)) };
    }
    return this.unsupported(n);
  }

  metric(n: SyntaxNode): MetricQuery {
    const range = n.getChild("RangeAggregationExpr");
    if (range) return this.rangeAgg(range);
    const vector = n.getChild("VectorAggregationExpr");
    if (vector) return this.vectorAgg(vector);
    const inner = n.getChild("MetricExpr");
    if (inner) return this.metric(inner);
    return this.unsupported(n);
  }

  rangeAgg(n: SyntaxNode): RangeAggregation {
    const op = this.text(n.getChild("RangeOp")!) as RangeOp;
    if (!["count_over_time", "rate", "bytes_over_time", "bytes_rate"].includes(op)) return this.unsupported(n);
    const logRange = n.getChild("LogRangeExpr");
    if (!logRange || logRange.getChild("Unwrap") || logRange.getChild("OffsetExpr")) return this.unsupported(n);
    const selector = logRange.getChild("Selector");
    if (!selector) return this.unsupported(logRange);
    const matchers = this.matchers(selector);
    const stages: Stage[] = [];
    const pipeline = logRange.getChild("PipelineExpr");
    if (pipeline) this.pipeline(pipeline, stages);
    const duration = logRange.getChild("Range")?.getChild("Duration");
    const rangeMs = duration ? parseDuration(this.text(duration)) : undefined;
    if (!rangeMs) return this.unsupported(logRange);
    // past Go's time.Duration (int64 ns): prometheus/common model.ParseDuration's words
    if (!Number.isFinite(rangeMs) || rangeMs > 9_223_372_036_854) throw parseError(`parse error at ${position(this.q, duration!.from)}: duration out of range`);
    const query = this.logExprOf(matchers, stages);
    return { kind: "range", op, query, rangeMs };
  }

  /** identifiers of a (nested) Labels list, in order */
  private identifiers(n: SyntaxNode | null): string[] {
    const out: string[] = [];
    for (let c = n?.firstChild ?? null; c; c = c.nextSibling) {
      if (c.name === "Labels") out.push(...this.identifiers(c));
      else if (c.name === "Identifier") out.push(this.text(c));
    }
    return out;
  }

  private logExprOf(matchers: Matcher[], stages: Stage[]): LogQuery {
    return { kind: "log", matchers, stages };
  }

  vectorAgg(n: SyntaxNode): VectorAggregation {
    const op = this.text(n.getChild("VectorOp")!) as VectorOp;
    if (!["sum", "avg", "min", "max", "count", "topk", "bottomk"].includes(op)) return this.unsupported(n);
    const inner = n.getChild("MetricExpr");
    if (!inner) return this.unsupported(n);
    const grouping = n.getChild("Grouping");
    const out: VectorAggregation = { kind: "vector", op, inner: this.metric(inner) };
    if (grouping) {
      out.grouping = {
        without: Boolean(grouping.getChild("Without")),
        labels: this.identifiers(grouping.getChild("Labels")),
      };
    }
    const num = n.getChild("Number");
    if (op === "topk" || op === "bottomk") {
      if (!num) return this.unsupported(n);
      out.param = Number(this.text(num));
      if (!Number.isInteger(out.param) || out.param < 1) throw parseError(`parse error : invalid parameter (must be a positive integer): ${this.text(num)}`);
    }
    return out;
  }
}

/** the template parsed now, so a bad one is the real product's stage error (400), not text printed literally */
function lineFormatStage(template: string): Stage {
  try {
    return { kind: "line_format", template, compiled: parseTemplate(template, "line", unquote) };
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    throw parseError(`parse error : stage '| line_format ${JSON.stringify(template)}' : invalid line template: ${err.message}`);
  }
}
