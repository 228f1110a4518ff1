// line_format templates as the real product reads them: Go's text/template,
// parsed when the query is, so a malformed template or an unknown function is
// a 400 with Go's own words ("template: line:1: unclosed action",
// `function "foo" not defined`), never text printed literally. Evaluated here:
// text, fields, literals, pipelines, parentheses, if/else/with and the common
// string and comparison functions. Other constructs of Go templates (range,
// variables, define/template/block) and the rest of the real product's
// functions are refused by name. A rendering may not grow past
// TemplateContext.maxLength characters (checked as it grows, and before a
// function that multiplies text builds it): over it, rendering stops with a
// TemplateError, an execution error (the line keeps its text).

export class TemplateError extends Error {}

/** the most characters one rendering may make without a configured cap: the real product's default max_line_size (256KB) */
export const TEMPLATE_MAX_OUTPUT = 256 * 1024;

/** functions the real product defines for templates (Go's builtins, its own and its sprig subset) */
const KNOWN = new Set([
  "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf", "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
  "__line__", "__timestamp__",
  "ToLower", "ToUpper", "Replace", "Trim", "TrimLeft", "TrimRight", "TrimPrefix", "TrimSuffix", "TrimSpace", "regexReplaceAll", "regexReplaceAllLiteral",
  "count", "urldecode", "urlencode", "b64enc", "b64dec", "unixEpoch", "unixEpochMillis", "unixEpochNanos", "toDateInZone", "unixToTime", "alignLeft", "alignRight",
  "lower", "upper", "title", "trunc", "substr", "contains", "hasPrefix", "hasSuffix", "indent", "nindent", "replace", "repeat", "trim", "trimAll", "trimSuffix",
  "trimPrefix", "int", "float64", "add", "sub", "mul", "div", "mod", "addf", "subf", "mulf", "divf", "max", "min", "maxf", "minf", "ceil", "floor", "round",
  "fromJson", "date", "toDate", "now", "default",
]);

type Value = string | number | boolean | null | Record<string, string>;
export interface TemplateContext {
  labels: Record<string, string>;
  line: string;
  /** the most characters the rendering and any value within it may have (default TEMPLATE_MAX_OUTPUT) */
  maxLength?: number;
}

const capOf = (ctx: TemplateContext) => ctx.maxLength ?? TEMPLATE_MAX_OUTPUT;

/** throws the execution error once text of `length` characters would pass the rendering's cap */
function checkLength(ctx: TemplateContext, length: number): void {
  const cap = capOf(ctx);
  if (length > cap) throw new TemplateError(`template output exceeds the limit of ${cap} characters`);
}

type Arg =
  | { k: "field"; path: string[] }
  | { k: "dot" }
  | { k: "lit"; v: Value }
  | { k: "fn"; name: string }
  | { k: "pipe"; pipe: Cmd[] };
type Cmd = Arg[];
type Node = { k: "text"; v: string } | { k: "action"; pipe: Cmd[] } | { k: "if" | "with"; pipe: Cmd[]; then: Node[]; else: Node[] };

interface Item {
  t: "text" | "left" | "right" | "space" | "pipe" | "lparen" | "rparen" | "string" | "number" | "char" | "ident" | "field" | "dot" | "variable" | "declare" | "error" | "eof";
  v: string;
  line: number;
}

/** Go's %q of a short token */
const q = (s: string) => JSON.stringify(s);
const itemText = (i: Item) => (i.t === "eof" ? "EOF" : i.t === "error" ? i.v : i.t === "right" ? "}}" : i.t === "left" ? "{{" : q(i.v));
const KEYWORDS = new Set(["block", "break", "continue", "define", "else", "end", "if", "range", "nil", "template", "with"]);

function lex(src: string): Item[] {
  const out: Item[] = [];
  let pos = 0;
  const lineAt = (p: number) => src.slice(0, p).split("\n").length;
  const emit = (t: Item["t"], v: string, at = pos) => out.push({ t, v, line: lineAt(at) });
  while (pos <= src.length) {
    const open = src.indexOf("{{", pos);
    if (open < 0) {
      if (pos < src.length) emit("text", src.slice(pos));
      break;
    }
    let text = src.slice(pos, open);
    let p = open + 2;
    const trimLeft = /^-[ \t\r\n]/.test(src.slice(p, p + 2));
    if (trimLeft) {
      text = text.replace(/[ \t\r\n]+$/, "");
      p += 2;
    }
    if (text) emit("text", text, pos);
    if (src.startsWith("/*", p)) {
      const end = src.indexOf("*/", p + 2);
      if (end < 0) return [...out, { t: "error", v: "unclosed comment", line: lineAt(p) }];
      p = end + 2;
      const trimRight = src.startsWith(" -}}", p);
      if (!trimRight && !src.startsWith("}}", p)) return [...out, { t: "error", v: "comment ends before closing delimiter", line: lineAt(p) }];
      pos = p + (trimRight ? 4 : 2);
      if (trimRight) while (/[ \t\r\n]/.test(src[pos] ?? "")) pos++;
      continue;
    }
    emit("left", "{{", open);
    let depth = 0;
    for (;;) {
      if (src.startsWith(" -}}", p) || src.startsWith("}}", p)) {
        const trimRight = src[p] === " ";
        if (depth > 0) return [...out, { t: "error", v: "unclosed left paren", line: lineAt(p) }];
        out.push({ t: "right", v: "}}", line: lineAt(p) });
        p += trimRight ? 4 : 2;
        if (trimRight) while (/[ \t\r\n]/.test(src[p] ?? "")) p++;
        break;
      }
      const c = src[p];
      const start = p;
      if (c === undefined) return [...out, { t: "error", v: "unclosed action", line: lineAt(p) }];
      if (/[ \t\r\n]/.test(c)) {
        while (/[ \t\r\n]/.test(src[p] ?? "") && !src.startsWith(" -}}", p)) p++;
        if (p === start) p++;
        out.push({ t: "space", v: " ", line: lineAt(start) });
      } else if (c === "|") {
        p++;
        out.push({ t: "pipe", v: "|", line: lineAt(start) });
      } else if (c === "(") {
        p++;
        depth++;
        out.push({ t: "lparen", v: "(", line: lineAt(start) });
      } else if (c === ")") {
        if (--depth < 0) return [...out, { t: "error", v: `unexpected right paren`, line: lineAt(p) }];
        p++;
        out.push({ t: "rparen", v: ")", line: lineAt(start) });
      } else if (c === ":" && src[p + 1] === "=") {
        p += 2;
        out.push({ t: "declare", v: ":=", line: lineAt(start) });
      } else if (c === '"' || c === "'") {
        p++;
        while (p < src.length && src[p] !== c && src[p] !== "\n") p += src[p] === "\\" ? 2 : 1;
        if (src[p] !== c) return [...out, { t: "error", v: c === '"' ? "unterminated quoted string" : "unterminated character constant", line: lineAt(start) }];
        p++;
        out.push({ t: c === '"' ? "string" : "char", v: src.slice(start, p), line: lineAt(start) });
      } else if (c === "`") {
        const end = src.indexOf("`", p + 1);
        if (end < 0) return [...out, { t: "error", v: "unterminated raw quoted string", line: lineAt(start) }];
        p = end + 1;
        out.push({ t: "string", v: src.slice(start, p), line: lineAt(start) });
      } else if (/[0-9]/.test(c) || (/[+\-.]/.test(c) && /[0-9]/.test(src[p + 1] ?? ""))) {
        p++;
        while (/[0-9a-zA-Z_.+\-]/.test(src[p] ?? "") && !(/[+\-]/.test(src[p]!) && !/[eEpP]/.test(src[p - 1]!))) p++;
        const v = src.slice(start, p);
        if (!/^[+-]?(\d[\d_]*(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?0[xX][0-9a-fA-F_]+$/.test(v)) return [...out, { t: "error", v: `bad number syntax: ${q(v)}`, line: lineAt(start) }];
        out.push({ t: "number", v, line: lineAt(start) });
      } else if (c === "." || c === "$" || /[a-zA-Z_]/.test(c)) {
        p++;
        while (/[a-zA-Z0-9_.]/.test(src[p] ?? "")) p++;
        const v = src.slice(start, p);
        const t = c === "$" ? "variable" : c === "." ? (v === "." ? "dot" : "field") : "ident";
        out.push({ t, v, line: lineAt(start) });
      } else if (c.charCodeAt(0) < 0x7f && c.charCodeAt(0) >= 0x20) {
        p++;
        out.push({ t: "char", v: c, line: lineAt(start) });
      } else {
        const cp = src.codePointAt(p)!;
        return [...out, { t: "error", v: `unrecognized character in action: U+${cp.toString(16).toUpperCase().padStart(4, "0")} ${q(String.fromCodePoint(cp)).replace(/^"|"$/g, "'")}`, line: lineAt(start) }];
      }
    }
    pos = p;
  }
  out.push({ t: "eof", v: "", line: lineAt(src.length) });
  return out;
}

class Parser {
  private i = 0;
  constructor(private readonly items: Item[], private readonly name: string, private readonly unquote: (raw: string) => string) {}

  private fail(item: Item, message: string): never {
    throw new TemplateError(`template: ${this.name}:${item.line}: ${message}`);
  }
  private unexpected(item: Item, context: string): never {
    if (item.t === "error") this.fail(item, item.v);
    this.fail(item, `unexpected ${itemText(item)} in ${context}`);
  }
  private unsupported(item: Item, what: string): never {
    this.fail(item, `${what} is not supported by this log store`);
  }
  private next(): Item {
    return this.items[this.i++]!;
  }
  private peek(): Item {
    return this.items[this.i]!;
  }
  private nextNonSpace(): Item {
    let it = this.next();
    while (it.t === "space") it = this.next();
    return it;
  }
  private peekNonSpace(): Item {
    const it = this.nextNonSpace();
    this.i--;
    return it;
  }

  /** the whole template; `{{end}}` or `{{else}}` with nothing open is an error */
  root(): Node[] {
    const { nodes, stop } = this.list();
    if (stop !== "eof") this.fail(this.items[this.i - 1]!, `unexpected {{${stop}}}`);
    return nodes;
  }

  /** nodes up to {{end}}, {{else}} or the end of the input */
  private list(): { nodes: Node[]; stop: "end" | "else" | "eof"; elseItem?: Item } {
    const nodes: Node[] = [];
    for (;;) {
      const it = this.next();
      if (it.t === "eof") return { nodes, stop: "eof" };
      if (it.t === "error") this.fail(it, it.v);
      if (it.t === "text") {
        nodes.push({ k: "text", v: it.v });
        continue;
      }
      // it is "{{"
      const head = this.peekNonSpace();
      if (head.t === "ident" && KEYWORDS.has(head.v) && head.v !== "nil") {
        this.nextNonSpace();
        switch (head.v) {
          case "end":
            this.expectRight("end");
            return { nodes, stop: "end" };
          case "else":
            return { nodes, stop: "else", elseItem: head };
          case "if":
          case "with":
            nodes.push(this.control(head.v));
            continue;
          default:
            this.unsupported(head, `{{${head.v}}}`);
        }
      }
      nodes.push({ k: "action", pipe: this.pipeline("command", "right") });
    }
  }

  private expectRight(context: string): void {
    const it = this.nextNonSpace();
    if (it.t !== "right") this.unexpected(it, context);
  }

  private control(kind: "if" | "with"): Node {
    const pipe = this.pipeline(kind, "right");
    const body = this.list();
    if (body.stop === "eof") this.fail(this.items[this.i - 1]!, "unexpected EOF");
    let otherwise: Node[] = [];
    if (body.stop === "else") {
      const after = this.peekNonSpace();
      if (after.t === "ident" && (after.v === "if" || after.v === "with")) {
        // {{else if ...}}: an if nested in the else branch, closed by the same {{end}}
        this.nextNonSpace();
        otherwise = [this.control(after.v)];
      } else {
        this.expectRight("else");
        const rest = this.list();
        if (rest.stop === "eof") this.fail(this.items[this.i - 1]!, "unexpected EOF");
        if (rest.stop === "else") this.fail(rest.elseItem!, "expected end; found {{else}}");
        otherwise = rest.nodes;
      }
    }
    return { k: kind, pipe, then: body.nodes, else: otherwise };
  }

  private pipeline(context: string, end: "right" | "rparen"): Cmd[] {
    const cmds: Cmd[] = [];
    for (;;) {
      const it = this.nextNonSpace();
      if (it.t === end) break;
      if (it.t === "variable" || it.t === "declare") this.unsupported(it, "a template variable");
      if (["string", "char", "number", "ident", "field", "dot", "lparen"].includes(it.t)) {
        this.i--;
        cmds.push(this.command());
        continue;
      }
      this.unexpected(it, context);
    }
    if (!cmds.length) this.fail(this.items[this.i - 1]!, `missing value for ${context}`);
    cmds.slice(1).forEach((c, n) => {
      if (c[0]!.k === "lit" || c[0]!.k === "dot") this.fail(this.items[this.i - 1]!, `non executable command in pipeline stage ${n + 2}`);
    });
    return cmds;
  }

  private command(): Cmd {
    const cmd: Cmd = [];
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.push(operand);
      const it = this.next();
      if (it.t === "space") continue;
      if (it.t === "right" || it.t === "rparen") this.i--;
      else if (it.t !== "pipe") this.unexpected(it, "operand");
      break;
    }
    if (!cmd.length) this.fail(this.peek(), "empty command");
    return cmd;
  }

  private operand(): Arg | undefined {
    const it = this.next();
    switch (it.t) {
      case "field":
        return { k: "field", path: it.v.slice(1).split(".") };
      case "dot":
        return { k: "dot" };
      case "string":
        return { k: "lit", v: this.unquote(it.v) };
      case "char":
        if (it.v.length < 3 || !it.v.startsWith("'")) return this.unexpected(it, "operand");
        return { k: "lit", v: this.unquote(`"${it.v.slice(1, -1)}"`).codePointAt(0) ?? 0 };
      case "number":
        return { k: "lit", v: Number(it.v.replace(/_/g, "")) };
      case "lparen": {
        const pipe = this.pipeline("parenthesized pipeline", "rparen");
        if (this.peek().t === "field") this.unsupported(this.peek(), "a field of a parenthesized pipeline");
        return { k: "pipe", pipe };
      }
      case "ident":
        if (it.v === "true" || it.v === "false") return { k: "lit", v: it.v === "true" };
        if (it.v === "nil") this.fail(it, "nil is not a command");
        if (KEYWORDS.has(it.v)) this.unexpected(it, "operand");
        if (it.v.includes(".")) this.unsupported(it, "a field of a function result");
        if (!KNOWN.has(it.v)) this.fail(it, `function ${q(it.v)} not defined`);
        if (!(it.v in FUNCS)) this.unsupported(it, `the template function ${q(it.v)}`);
        return { k: "fn", name: it.v };
      default:
        this.i--;
        return undefined;
    }
  }
}

/** a compiled template: render(context) gives the text, or throws TemplateError at execution (the line keeps its text then) */
export interface Template {
  render(ctx: TemplateContext): string;
}

export function parseTemplate(src: string, name: string, unquote: (raw: string) => string): Template {
  const nodes = new Parser(lex(src), name, unquote).root();
  return { render: (ctx) => renderNodes(nodes, ctx, ctx.labels) };
}

const str = (v: Value): string => {
  if (v === null) return "<no value>";
  if (typeof v === "object") return `map[${Object.keys(v).sort().map((k) => `${k}:${v[k]}`).join(" ")}]`;
  return String(v);
};
const truthy = (v: Value) => !(v === null || v === "" || v === 0 || v === false || (typeof v === "object" && !Object.keys(v).length));

function renderNodes(nodes: Node[], ctx: TemplateContext, dot: Value): string {
  let out = "";
  for (const n of nodes) {
    if (n.k === "text") out += n.v;
    else if (n.k === "action") out += str(runPipe(n.pipe, ctx, dot));
    else {
      const v = runPipe(n.pipe, ctx, dot);
      out += truthy(v) ? renderNodes(n.then, ctx, n.k === "with" ? v : dot) : renderNodes(n.else, ctx, dot);
    }
    checkLength(ctx, out.length);
  }
  return out;
}

function runPipe(pipe: Cmd[], ctx: TemplateContext, dot: Value): Value {
  let last: Value | undefined;
  for (const cmd of pipe) last = runCmd(cmd, ctx, dot, last);
  return last ?? null;
}

function runCmd(cmd: Cmd, ctx: TemplateContext, dot: Value, piped: Value | undefined): Value {
  const [head, ...rest] = cmd;
  const arg = (a: Arg): Value => {
    switch (a.k) {
      case "field": {
        // missingkey=zero over map[string]string: an absent label is ""
        if (typeof dot !== "object" || dot === null) throw new TemplateError(`can't evaluate field ${a.path[0]} in type ${typeof dot}`);
        if (a.path.length > 1) throw new TemplateError(`can't evaluate field ${a.path[1]} in type string`);
        return dot[a.path[0]!] ?? "";
      }
      case "dot": return dot;
      case "lit": return a.v;
      case "pipe": return runPipe(a.pipe, ctx, dot);
      case "fn": return FUNCS[a.name]!(ctx, []);
    }
  };
  if (head!.k !== "fn") {
    if (rest.length || piped !== undefined) throw new TemplateError(`can't give argument to non-function ${head!.k === "field" ? "." + head!.path.join(".") : str(arg(head!))}`);
    return arg(head!);
  }
  const args = rest.map(arg);
  if (piped !== undefined) args.push(piped);
  const result = FUNCS[head!.name]!(ctx, args);
  if (typeof result === "string") checkLength(ctx, result.length);
  return result;
}

type Fn = (ctx: TemplateContext, args: Value[]) => Value;
const want = (name: string, args: Value[], n: number) => {
  if (args.length !== n) throw new TemplateError(`wrong number of args for ${name}: want ${n} got ${args.length}`);
  return args.map((a) => (a === null ? "" : typeof a === "object" ? str(a) : a));
};
const s1 = (name: string, f: (s: string) => string): Fn => (_, a) => f(String(want(name, a, 1)[0]));
const s2 = (name: string, f: (x: string, y: string) => Value): Fn => (_, a) => {
  const [x, y] = want(name, a, 2);
  return f(String(x), String(y));
};
const cutset = (set: string) => new RegExp(`[${set.replace(/[\\\]^-]/g, "\\$&")}]`);
const trimSet = (s: string, set: string, left: boolean, right: boolean) => {
  if (!set) return s;
  const re = cutset(set);
  let a = 0;
  let b = s.length;
  while (left && a < b && re.test(s[a]!)) a++;
  while (right && b > a && re.test(s[b - 1]!)) b--;
  return s.slice(a, b);
};
const compare = (name: string, test: (c: number) => boolean): Fn => (_, a) => {
  const [x, y] = want(name, a, 2);
  if (typeof x !== typeof y) throw new TemplateError(`error calling ${name}: incompatible types for comparison`);
  return test(x! < y! ? -1 : x! > y! ? 1 : 0);
};
const toNumber = (v: Value) => (typeof v === "number" ? v : Number.isNaN(Number(v)) ? 0 : Number(v));
const arith = (name: string, f: (x: number, y: number) => number): Fn => (_, a) => {
  const [x, y] = want(name, a, 2).map(toNumber);
  return Math.trunc(f(x!, y!));
};

function printf(ctx: TemplateContext, format: string, args: Value[]): string {
  let n = 0;
  let made = format.length;
  const verbOf = (verb: string): string => {
    if (verb === "%") return "%";
    if (n >= args.length) return `%!${verb}(MISSING)`;
    const v = args[n++]!;
    if (verb === "q") return JSON.stringify(str(v));
    if (verb === "d" && typeof v !== "number") return `%!d(string=${str(v)})`;
    if (verb === "x" || verb === "X") return typeof v === "number" ? v.toString(16)[verb === "X" ? "toUpperCase" : "toLowerCase"]() : Buffer.from(str(v)).toString("hex");
    return str(v);
  };
  return format.replace(/%([-+ #0]*\d*(?:\.\d+)?)([svdqtfxX%])/g, (_all, _flags: string, verb: string) => {
    const piece = verbOf(verb);
    checkLength(ctx, (made += piece.length));
    return piece;
  }) + (n < args.length ? `%!(EXTRA ${args.slice(n).map((v) => `${typeof v === "number" ? "int" : "string"}=${str(v)}`).join(", ")})` : "");
}

/** the parts joined by sep, refused before it is built when it would pass the cap */
function joined(ctx: TemplateContext, parts: string[], sep: string): string {
  checkLength(ctx, parts.reduce((n, p) => n + p.length, sep.length * Math.max(0, parts.length - 1)));
  return parts.join(sep);
}

/** the most characters replacing `count` occurrences of `from` by `to` in s makes */
const replacedLength = (s: string, count: number, from: string, to: string) => s.length + count * Math.max(0, to.length - from.length);

const FUNCS: Record<string, Fn> = {
  __line__: (ctx, a) => (want("__line__", a, 0), ctx.line),
  ToLower: s1("ToLower", (s) => s.toLowerCase()),
  ToUpper: s1("ToUpper", (s) => s.toUpperCase()),
  lower: s1("lower", (s) => s.toLowerCase()),
  upper: s1("upper", (s) => s.toUpperCase()),
  title: s1("title", (s) => s.replace(/(^|[^\p{L}\p{N}_'])(\p{L})/gu, (_, p: string, c: string) => p + c.toUpperCase())),
  TrimSpace: s1("TrimSpace", (s) => s.trim()),
  trim: s1("trim", (s) => s.trim()),
  Trim: s2("Trim", (s, set) => trimSet(s, set, true, true)),
  TrimLeft: s2("TrimLeft", (s, set) => trimSet(s, set, true, false)),
  TrimRight: s2("TrimRight", (s, set) => trimSet(s, set, false, true)),
  TrimPrefix: s2("TrimPrefix", (s, p) => (p && s.startsWith(p) ? s.slice(p.length) : s)),
  TrimSuffix: s2("TrimSuffix", (s, p) => (p && s.endsWith(p) ? s.slice(0, -p.length) : s)),
  trimAll: s2("trimAll", (set, s) => trimSet(s, set, true, true)),
  trimPrefix: s2("trimPrefix", (p, s) => (p && s.startsWith(p) ? s.slice(p.length) : s)),
  trimSuffix: s2("trimSuffix", (p, s) => (p && s.endsWith(p) ? s.slice(0, -p.length) : s)),
  contains: s2("contains", (sub, s) => s.includes(sub)),
  hasPrefix: s2("hasPrefix", (p, s) => s.startsWith(p)),
  hasSuffix: s2("hasSuffix", (p, s) => s.endsWith(p)),
  replace: (ctx, a) => {
    const [from, to, s] = want("replace", a, 3).map(String);
    const parts = s!.split(from!);
    checkLength(ctx, replacedLength(s!, parts.length - 1, from!, to!));
    return parts.join(to!);
  },
  Replace: (ctx, a) => {
    const [s, from, to, n] = want("Replace", a, 4);
    let count = toNumber(n!);
    const parts = String(s).split(String(from));
    checkLength(ctx, replacedLength(String(s), parts.length - 1, String(from), String(to)));
    if (count < 0 || count >= parts.length - 1) return parts.join(String(to));
    let out = parts[0]!;
    for (let i = 1; i < parts.length; i++) out += (count-- > 0 ? String(to) : String(from)) + parts[i];
    return out;
  },
  repeat: (ctx, a) => {
    const [n, s] = want("repeat", a, 2);
    const times = Math.max(0, Math.min(toNumber(n!), 10_000));
    checkLength(ctx, String(s).length * times);
    return String(s).repeat(times);
  },
  trunc: (_, a) => {
    const [n, s] = want("trunc", a, 2);
    const c = toNumber(n!);
    const t = String(s);
    return c >= 0 ? t.slice(0, c) : t.slice(Math.max(0, t.length + c));
  },
  substr: (_, a) => {
    const [from, to, s] = want("substr", a, 3);
    const t = String(s);
    const f = toNumber(from!);
    const e = toNumber(to!);
    return f < 0 ? t.slice(0, e) : e < 0 || e > t.length ? t.slice(f) : t.slice(f, e);
  },
  default: (_, a) => {
    const [def, given] = want("default", a, 2);
    return truthy(given!) ? given! : def!;
  },
  len: (_, a) => String(want("len", a, 1)[0]).length,
  print: (ctx, a) => joined(ctx, a.map(str), ""),
  println: (ctx, a) => joined(ctx, a.map(str), " ") + "\n",
  printf: (ctx, a) => {
    if (!a.length) throw new TemplateError("wrong number of args for printf: want at least 1 got 0");
    return printf(ctx, str(a[0]!), a.slice(1));
  },
  not: (_, a) => !truthy(want("not", a, 1)[0]!),
  and: (_, a) => a.find((v) => !truthy(v)) ?? a.at(-1) ?? null,
  or: (_, a) => a.find(truthy) ?? a.at(-1) ?? null,
  eq: compare("eq", (c) => c === 0),
  ne: compare("ne", (c) => c !== 0),
  lt: compare("lt", (c) => c < 0),
  le: compare("le", (c) => c <= 0),
  gt: compare("gt", (c) => c > 0),
  ge: compare("ge", (c) => c >= 0),
  int: (_, a) => Math.trunc(toNumber(want("int", a, 1)[0]!)),
  float64: (_, a) => toNumber(want("float64", a, 1)[0]!),
  add: arith("add", (x, y) => x + y),
  sub: arith("sub", (x, y) => x - y),
  mul: arith("mul", (x, y) => x * y),
  urlencode: s1("urlencode", (s) => encodeURIComponent(s)),
  urldecode: s1("urldecode", (s) => decodeURIComponent(s)),
  b64enc: s1("b64enc", (s) => Buffer.from(s).toString("base64")),
  b64dec: s1("b64dec", (s) => Buffer.from(s, "base64").toString()),
  alignLeft: (ctx, a) => {
    const [n, s] = want("alignLeft", a, 2);
    checkLength(ctx, toNumber(n!));
    return String(s).padEnd(toNumber(n!)).slice(0, toNumber(n!));
  },
  alignRight: (ctx, a) => {
    const [n, s] = want("alignRight", a, 2);
    checkLength(ctx, toNumber(n!));
    const t = String(s).padStart(toNumber(n!));
    return t.slice(t.length - toNumber(n!));
  },
};
