// The lexer of alert templates (Go text/template's, for the part alert
// rules use): text, {{ actions }} with their tokens, {{- and -}} trimming,
// {{/* comments */}}; errors carry the line Go reports them on.
import { GoInt, type Value } from "./template-funcs.ts";

export type TokKind = "str" | "num" | "bool" | "nil" | "var" | "field" | "dot" | "ident" | "pipe" | "lparen" | "rparen" | "decl" | "assign" | "comma";
export interface Tok {
  kind: TokKind;
  text: string;
  value?: Value;
  /** variable name ("$x") or field chain */
  fields?: string[];
}

export class ParseError extends Error {
  constructor(readonly line: number, message: string) {
    super(message);
  }
}

const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\r" || c === "\n";

function unquote(body: string): string {
  return body.replace(/\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}|.)/g, (_m, e: string) => {
    const simple: Record<string, string> = { n: "\n", t: "\t", r: "\r", a: "\x07", b: "\b", f: "\f", v: "\v", "\\": "\\", '"': '"', "'": "'" };
    if (e.length === 1) {
      if (simple[e] === undefined) throw new Error("invalid syntax");
      return simple[e];
    }
    if (/^[0-7]{3}$/.test(e)) return String.fromCodePoint(parseInt(e, 8));
    return String.fromCodePoint(parseInt(e.slice(1), 16));
  });
}

const NUMBER_RE = /[+-]?(?:0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d+)?)/y;

function numberToken(text: string): Value {
  const clean = text.replaceAll("_", "");
  if (/^[+-]?0[xXbBoO]/.test(clean)) {
    const neg = clean.startsWith("-");
    const body = clean.replace(/^[+-]/, "");
    const base = { x: 16, b: 2, o: 8 }[body[1]!.toLowerCase() as "x" | "b" | "o"];
    const n = parseInt(body.slice(2), base);
    return new GoInt(neg ? -n : n);
  }
  if (/[.eE]/.test(clean)) return Number(clean);
  if (/^[+-]?0\d+$/.test(clean)) return new GoInt(parseInt(clean, 8));
  return new GoInt(Number(clean));
}

export type Item = { kind: "text"; text: string } | { kind: "action"; toks: Tok[]; line: number };

/** splits a template into text and the tokens of each action, applying {{- and -}} */
export function lex(src: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  let line = 1;
  let trimNext = false;
  const lines = (from: number, to: number) => {
    for (let i = from; i < to; i++) if (src[i] === "\n") line++;
  };
  while (pos <= src.length) {
    const open = src.indexOf("{{", pos);
    let text = src.slice(pos, open < 0 ? src.length : open);
    if (trimNext) text = text.replace(/^[ \t\r\n]+/, "");
    trimNext = false;
    if (open < 0) {
      if (text) items.push({ kind: "text", text });
      break;
    }
    let p = open + 2;
    if (src[p] === "-" && isSpace(src[p + 1])) {
      text = text.replace(/[ \t\r\n]+$/, "");
      p += 2;
    }
    if (text) items.push({ kind: "text", text });
    lines(pos, open);
    const actionLine = line;
    if (src.startsWith("/*", p)) {
      const end = src.indexOf("*/", p + 2);
      if (end < 0) throw new ParseError(actionLine, "unclosed comment");
      let after = end + 2;
      if (isSpace(src[after]) && src.startsWith("-}}", after + 1)) {
        trimNext = true;
        after += 4;
      } else if (src.startsWith("}}", after)) after += 2;
      else throw new ParseError(actionLine, "comment ends before closing delimiter");
      lines(open, after);
      pos = after;
      continue;
    }
    const toks: Tok[] = [];
    for (;;) {
      const c = src[p];
      if (c === undefined) throw new ParseError(actionLine, "unclosed action");
      if (isSpace(c) && src.startsWith("-}}", p + 1)) {
        trimNext = true;
        p += 4;
        break;
      }
      if (src.startsWith("}}", p)) {
        p += 2;
        break;
      }
      if (isSpace(c)) {
        p++;
        continue;
      }
      const single: Record<string, TokKind> = { "|": "pipe", "(": "lparen", ")": "rparen", ",": "comma", "=": "assign" };
      if (single[c]) {
        toks.push({ kind: single[c], text: c });
        p++;
        continue;
      }
      if (c === ":" && src[p + 1] === "=") {
        toks.push({ kind: "decl", text: ":=" });
        p += 2;
        continue;
      }
      if (c === '"') {
        let q = p + 1;
        while (q < src.length && src[q] !== '"' && src[q] !== "\n") q += src[q] === "\\" ? 2 : 1;
        if (src[q] !== '"') throw new ParseError(actionLine, "unterminated quoted string");
        let value: string;
        try {
          value = unquote(src.slice(p + 1, q));
        } catch {
          throw new ParseError(actionLine, `invalid syntax: ${src.slice(p, q + 1)}`);
        }
        toks.push({ kind: "str", text: src.slice(p, q + 1), value });
        p = q + 1;
        continue;
      }
      if (c === "`") {
        const q = src.indexOf("`", p + 1);
        if (q < 0) throw new ParseError(actionLine, "unterminated raw quoted string");
        toks.push({ kind: "str", text: src.slice(p, q + 1), value: src.slice(p + 1, q) });
        p = q + 1;
        continue;
      }
      if (c === "'") {
        const m = /'(\\.|[^\\'])'/y;
        m.lastIndex = p;
        const found = m.exec(src);
        if (!found) throw new ParseError(actionLine, "unterminated character constant");
        toks.push({ kind: "num", text: found[0], value: new GoInt(unquote(found[1]!).codePointAt(0)!) });
        p += found[0].length;
        continue;
      }
      if (c === "$") {
        const m = /\$[A-Za-z0-9_]*((?:\.[A-Za-z0-9_]+)*)/y;
        m.lastIndex = p;
        const found = m.exec(src)!;
        const name = found[0].slice(0, found[0].length - found[1]!.length);
        toks.push({ kind: "var", text: name, fields: found[1] ? found[1].slice(1).split(".") : [] });
        p += found[0].length;
        continue;
      }
      const startsNumber = /[0-9]/.test(c) || ((c === "+" || c === "-" || c === ".") && /[0-9]/.test(src[p + 1] ?? "")) || ((c === "+" || c === "-") && src[p + 1] === "." && /[0-9]/.test(src[p + 2] ?? ""));
      if (startsNumber) {
        NUMBER_RE.lastIndex = p;
        const found = NUMBER_RE.exec(src)!;
        const end = p + found[0].length;
        if (/[A-Za-z0-9_.]/.test(src[end] ?? "")) throw new ParseError(actionLine, `bad number syntax: "${src.slice(p, end + 1)}"`);
        toks.push({ kind: "num", text: found[0], value: numberToken(found[0]) });
        p = end;
        continue;
      }
      if (c === ".") {
        const m = /(?:\.[A-Za-z0-9_]+)+/y;
        m.lastIndex = p;
        const found = m.exec(src);
        if (!found) {
          toks.push({ kind: "dot", text: "." });
          p++;
        } else {
          toks.push({ kind: "field", text: found[0], fields: found[0].slice(1).split(".") });
          p += found[0].length;
        }
        continue;
      }
      if (/[A-Za-z_]/.test(c)) {
        const m = /[A-Za-z0-9_]+/y;
        m.lastIndex = p;
        const word = m.exec(src)![0];
        if (word === "true" || word === "false") toks.push({ kind: "bool", text: word, value: word === "true" });
        else if (word === "nil") toks.push({ kind: "nil", text: word, value: null });
        else toks.push({ kind: "ident", text: word });
        p += word.length;
        continue;
      }
      const cp = c.codePointAt(0)!;
      throw new ParseError(actionLine, `unrecognized character in action: U+${cp.toString(16).toUpperCase().padStart(4, "0")} '${String.fromCodePoint(cp)}'`);
    }
    lines(open, p);
    items.push({ kind: "action", toks, line: actionLine });
    pos = p;
    if (pos === src.length) break;
  }
  return items;
}
