// Alert label and annotation templates: the part of Go's text/template that
// alert rules use, with Prometheus's variables ($labels, $value,
// $externalLabels, $externalURL, and .Labels / .Value on the dot), pipelines,
// parenthesised calls, {{if}}/{{else if}}/{{else}}, variables and the
// functions of template-funcs.ts.
// Parsing reports what Go's parser reports (rulefmt checks templates when a
// group is posted): `template: __alert_X:1: function "foo" not defined`,
// unclosed actions, undefined variables, unbalanced {{end}}. {{range}},
// {{with}}, {{define}}, {{template}} and {{block}} parse but fail when
// expanded; a failed expansion gives `<error expanding template: ...>`, as
// Prometheus does, and never fails the rule.
import type { Labels } from "../types.ts";
import { lex, ParseError, type Item, type Tok } from "./template-lex.ts";
import { AlertData, LabelMap, TemplateError, callFunction, isFunction, printValue, truth, type Value } from "./template-funcs.ts";

type Arg =
  | { k: "lit"; v: Value }
  | { k: "var"; name: string; fields: string[] }
  | { k: "field"; fields: string[] }
  | { k: "dot" }
  | { k: "fn"; name: string }
  | { k: "pipe"; pipe: Pipe };
interface Pipe {
  decl?: { names: string[]; assign: boolean };
  cmds: Arg[][];
}
type Node =
  | { k: "text"; text: string }
  | { k: "action"; pipe: Pipe; line: number }
  | { k: "if"; pipe: Pipe; then: Node[]; else: Node[]; line: number }
  | { k: "unsupported"; what: string; line: number };

const KEYWORDS = new Set(["if", "else", "end", "range", "with", "define", "template", "block", "break", "continue"]);
const PREDEFINED = ["$", "$labels", "$externalLabels", "$externalURL", "$value"];

class Parser {
  private scopes: Array<Set<string>> = [new Set(PREDEFINED)];

  private defined(name: string): boolean {
    return this.scopes.some((s) => s.has(name));
  }

  pipe(toks: Tok[], context: string, line: number): Pipe {
    let i = 0;
    let decl: Pipe["decl"];
    if (toks[0]?.kind === "var" && toks[0].fields!.length === 0) {
      if (toks[1]?.kind === "decl" || toks[1]?.kind === "assign") {
        decl = { names: [toks[0].text], assign: toks[1].kind === "assign" };
        i = 2;
      } else if (context === "range" && toks[1]?.kind === "comma" && toks[2]?.kind === "var" && (toks[3]?.kind === "decl" || toks[3]?.kind === "assign")) {
        decl = { names: [toks[0].text, toks[2].text], assign: toks[3].kind === "assign" };
        i = 4;
      }
      if (decl?.assign) for (const n of decl.names) if (!this.defined(n)) throw new ParseError(line, `undefined variable "${n}"`);
    }
    const pipe = this.commands(toks.slice(i), context, line);
    if (decl) {
      pipe.decl = decl;
      if (!decl.assign) for (const n of decl.names) this.scopes[this.scopes.length - 1]!.add(n);
    }
    return pipe;
  }

  private commands(toks: Tok[], context: string, line: number): Pipe {
    const cmds: Arg[][] = [];
    let cur: Arg[] = [];
    for (let i = 0; i < toks.length; i++) {
      const t = toks[i]!;
      switch (t.kind) {
        case "pipe":
          if (cur.length === 0) throw new ParseError(line, "missing value for command");
          cmds.push(cur);
          cur = [];
          break;
        case "lparen": {
          let depth = 1;
          let j = i + 1;
          for (; j < toks.length && depth > 0; j++) {
            if (toks[j]!.kind === "lparen") depth++;
            else if (toks[j]!.kind === "rparen") depth--;
          }
          if (depth > 0) throw new ParseError(line, "unclosed left paren");
          const inner = toks.slice(i + 1, j - 1);
          if (inner.length === 0) throw new ParseError(line, "missing value for parenthesized pipeline");
          cur.push({ k: "pipe", pipe: this.commands(inner, "parenthesized pipeline", line) });
          i = j - 1;
          break;
        }
        case "rparen":
          throw new ParseError(line, "unexpected right paren");
        case "ident":
          if (!isFunction(t.text)) throw new ParseError(line, `function "${t.text}" not defined`);
          cur.push({ k: "fn", name: t.text });
          break;
        case "var":
          if (!this.defined(t.text)) throw new ParseError(line, `undefined variable "${t.text}"`);
          cur.push({ k: "var", name: t.text, fields: t.fields! });
          break;
        case "field":
          cur.push({ k: "field", fields: t.fields! });
          break;
        case "dot":
          cur.push({ k: "dot" });
          break;
        case "str":
        case "num":
        case "bool":
        case "nil":
          cur.push({ k: "lit", v: t.value ?? null });
          break;
        default:
          throw new ParseError(line, `unexpected "${t.text}" in ${context}`);
      }
    }
    if (cur.length === 0) throw new ParseError(line, `missing value for ${context}`);
    cmds.push(cur);
    return { cmds };
  }

  parse(items: Item[]): Node[] {
    const root: Node[] = [];
    interface Frame { kind: string; list: Node[]; node?: Extract<Node, { k: "if" }>; inElse: boolean }
    const stack: Frame[] = [];
    const list = () => stack[stack.length - 1]?.list ?? root;
    for (const item of items) {
      if (item.kind === "text") {
        list().push({ k: "text", text: item.text });
        continue;
      }
      const { toks, line } = item;
      if (toks.length === 0) throw new ParseError(line, "missing value for command");
      const kw = toks[0]!.kind === "ident" && KEYWORDS.has(toks[0]!.text) ? toks[0]!.text : undefined;
      switch (kw) {
        case undefined:
          list().push({ k: "action", pipe: this.pipe(toks, "command", line), line });
          break;
        case "end": {
          if (toks.length > 1) throw new ParseError(line, `unexpected "${toks[1]!.text}" in end`);
          if (!stack.pop()) throw new ParseError(line, "unexpected {{end}}");
          this.scopes.pop();
          break;
        }
        case "else": {
          const top = stack[stack.length - 1];
          if (!top || !["if", "range", "with"].includes(top.kind)) throw new ParseError(line, "unexpected {{else}}");
          if (top.inElse) throw new ParseError(line, "expected end; found {{else}}");
          if (toks[1]?.kind === "ident" && toks[1].text === "if" && top.node) {
            const node: Extract<Node, { k: "if" }> = { k: "if", pipe: this.pipe(toks.slice(2), "if", line), then: [], else: [], line };
            top.node.else.push(node);
            top.node = node;
            top.list = node.then;
          } else {
            if (toks.length > 1) throw new ParseError(line, `unexpected "${toks[1]!.text}" in else`);
            top.inElse = true;
            top.list = top.node ? top.node.else : [];
          }
          break;
        }
        case "if": {
          this.scopes.push(new Set());
          const node: Extract<Node, { k: "if" }> = { k: "if", pipe: this.pipe(toks.slice(1), "if", line), then: [], else: [], line };
          list().push(node);
          stack.push({ kind: "if", list: node.then, node, inElse: false });
          break;
        }
        case "range":
        case "with":
          this.scopes.push(new Set());
          this.pipe(toks.slice(1), kw, line);
          list().push({ k: "unsupported", what: kw, line });
          stack.push({ kind: kw, list: [], inElse: false });
          break;
        case "define":
        case "block":
          this.scopes.push(new Set());
          list().push({ k: "unsupported", what: kw, line });
          stack.push({ kind: kw, list: [], inElse: false });
          break;
        case "break":
        case "continue":
          if (!stack.some((f) => f.kind === "range")) throw new ParseError(line, `{{${kw}}} outside {{range}}`);
          list().push({ k: "unsupported", what: kw, line });
          break;
        default:
          list().push({ k: "unsupported", what: kw, line });
      }
    }
    if (stack.length > 0) throw new ParseError(0, "unexpected EOF");
    return root;
  }
}

export interface Template {
  /** the expansion for one alert; errors become `<error expanding template: ...>` */
  expand(data: TemplateData): string;
}

export interface TemplateData {
  labels: Labels;
  value: number;
  externalLabels?: Labels;
  externalURL?: string;
}

class ExecError extends Error {
  constructor(readonly line: number, message: string) {
    super(message);
  }
}

function field(v: Value, name: string, line: number): Value {
  if (v instanceof AlertData) {
    if (name === "Labels" || name === "ExternalLabels" || name === "ExternalURL" || name === "Value") return v[name];
    throw new ExecError(line, `can't evaluate field ${name} in type *template.AlertTemplateData`);
  }
  if (v instanceof LabelMap) return v.m[name] ?? "";
  if (v === null) throw new ExecError(line, `nil pointer evaluating interface {}.${name}`);
  throw new ExecError(line, `can't evaluate field ${name} in type ${typeof v === "number" ? "float64" : typeof v}`);
}

function execute(nodes: Node[], dot: AlertData, vars: Map<string, Value>): string {
  let out = "";
  const arg = (a: Arg, line: number): Value => {
    switch (a.k) {
      case "lit": return a.v;
      case "dot": return dot;
      case "fn": return call(a.name, [], line);
      case "pipe": return pipe(a.pipe, line);
      case "field": return a.fields.reduce<Value>((v, f) => field(v, f, line), dot);
      case "var": return a.fields.reduce<Value>((v, f) => field(v, f, line), vars.get(a.name) ?? null);
    }
  };
  const call = (name: string, args: Value[], line: number): Value => {
    try {
      return callFunction(name, args);
    } catch (err) {
      if (err instanceof TemplateError) throw new ExecError(line, `error calling ${name}: ${err.message.replace(/^error calling \w+: /, "")}`);
      throw new ExecError(line, `error calling ${name}: ${(err as Error).message}`);
    }
  };
  const pipe = (p: Pipe, line: number): Value => {
    let piped: Value | undefined;
    for (const cmd of p.cmds) {
      const first = cmd[0]!;
      if (first.k === "fn") {
        const args = cmd.slice(1).map((a) => arg(a, line));
        if (piped !== undefined) args.push(piped);
        piped = call(first.name, args, line);
      } else {
        if (cmd.length > 1 || piped !== undefined) throw new ExecError(line, `can't give argument to non-function ${printValue(arg(first, line))}`);
        piped = arg(first, line);
      }
    }
    const value = piped ?? null;
    if (p.decl) for (const n of p.decl.names) vars.set(n, value);
    return value;
  };
  for (const node of nodes) {
    switch (node.k) {
      case "text":
        out += node.text;
        break;
      case "action": {
        const v = pipe(node.pipe, node.line);
        if (!node.pipe.decl) out += printValue(v);
        break;
      }
      case "if":
        out += execute(truth(pipe(node.pipe, node.line)) ? node.then : node.else, dot, vars);
        break;
      case "unsupported":
        throw new ExecError(node.line, `{{${node.what}}} is not supported by this ruler's templates`);
    }
  }
  return out;
}

/** Go's parse error text for one label or annotation of alert `alert` (rulefmt), or undefined */
export function templateParseError(text: string, alert: string): string | undefined {
  try {
    new Parser().parse(lex(text));
    return undefined;
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    return `template: __alert_${alert}:${err.line || text.split("\n").length}: ${err.message}`;
  }
}

/** compiles a label or annotation template of alert `alert` */
export function compileTemplate(text: string, alert: string): Template {
  const name = `__alert_${alert}`;
  if (!text.includes("{{")) return { expand: () => text };
  let nodes: Node[];
  try {
    nodes = new Parser().parse(lex(text));
  } catch (err) {
    if (!(err instanceof ParseError)) throw err;
    const message = `error parsing template ${name}: template: ${name}:${err.line || text.split("\n").length}: ${err.message}`;
    return { expand: () => `<error expanding template: ${message}>` };
  }
  return {
    expand(data) {
      const dot = new AlertData(new LabelMap(data.labels), new LabelMap(data.externalLabels ?? {}), data.externalURL ?? "", data.value);
      const vars = new Map<string, Value>([
        ["$", dot],
        ["$labels", dot.Labels],
        ["$externalLabels", dot.ExternalLabels],
        ["$externalURL", dot.ExternalURL],
        ["$value", dot.Value],
      ]);
      try {
        return execute(nodes, dot, vars);
      } catch (err) {
        if (!(err instanceof ExecError)) throw err;
        return `<error expanding template: error executing template ${name}: template: ${name}:${err.line}: executing "${name}": ${err.message}>`;
      }
    },
  };
}
