// LogQL stream selectors at the syntax level, for the LBAC rewriting
// (logql-inject.ts): the query read with the real grammar (@grafana/lezer-logql),
// each selector's matchers decoded from the syntax tree, and selectors
// rendered back with values quoted by Go's string literal rules, which is how
// the log store (Loki and Outpost's own) reads them. Nothing here pastes text
// it did not produce itself: values are decoded, then re-encoded.
import { parser } from "@grafana/lezer-logql";
import type { SyntaxNode, Tree } from "@lezer/common";
import { badRequest } from "../../../../lib/errors.ts";

export type MatchOp = "=" | "!=" | "=~" | "!~";

export interface LabelMatcher {
  name: string;
  op: MatchOp;
  value: string;
}

/** label names as the log store accepts them (Prometheus' rule) */
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

/** line and column (1-based) of an offset, as the real product reports them */
function position(text: string, offset: number): string {
  const before = text.slice(0, offset);
  return `line ${before.split("\n").length}, col ${offset - before.lastIndexOf("\n")}`;
}

/**
 * The syntax tree of a LogQL expression; a 400 in the real product's words when
 * the grammar rejects it (`what` names the input in the message).
 */
export function parseLogQLTree(text: string, what = "parse error"): Tree {
  if (!text.trim()) throw badRequest(`${what} : syntax error: unexpected $end`);
  const tree = parser.parse(text);
  let error: number | undefined;
  tree.iterate({
    enter: (n) => {
      if (error === undefined && n.type.isError) error = n.from;
      return error === undefined;
    },
  });
  if (error !== undefined) {
    const rest = text.slice(error).trimStart();
    const unexpected = rest ? `unexpected ${JSON.stringify(rest.split(/\s/)[0])}` : "unexpected $end";
    throw badRequest(`${what} at ${position(text, error)}: syntax error: ${unexpected}`);
  }
  return tree;
}

/** every stream selector of a parsed expression, in text order */
export function selectorNodes(tree: Tree): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  tree.iterate({
    enter: (n) => {
      if (n.name !== "Selector") return true;
      out.push(n.node);
      return false;
    },
  });
  return out;
}

/** the matchers of one Selector node, values decoded */
export function matchersOf(text: string, selector: SyntaxNode, what = "parse error"): LabelMatcher[] {
  const out: LabelMatcher[] = [];
  const walk = (n: SyntaxNode | null) => {
    for (let c = n?.firstChild ?? null; c; c = c.nextSibling) {
      if (c.name === "Matchers") walk(c);
      else if (c.name === "Matcher") out.push(matcherOf(text, c, what));
    }
  };
  walk(selector.getChild("Matchers"));
  if (!out.length) throw badRequest(`${what} at ${position(text, selector.from)}: syntax error: a stream selector needs at least one matcher`);
  return out;
}

function matcherOf(text: string, n: SyntaxNode, what: string): LabelMatcher {
  const id = n.getChild("Identifier");
  const op = n.getChild("Eq") ?? n.getChild("Neq") ?? n.getChild("Re") ?? n.getChild("Nre");
  const str = n.getChild("String");
  const fail = (why: string) => badRequest(`${what} at ${position(text, n.from)}: ${why}`);
  if (!id || !op || !str) throw fail("syntax error: unexpected matcher");
  const name = text.slice(id.from, id.to);
  if (!LABEL_NAME.test(name)) throw fail(`invalid label name ${JSON.stringify(name)}`);
  try {
    return { name, op: text.slice(op.from, op.to) as MatchOp, value: unquoteGo(text.slice(str.from, str.to)) };
  } catch (err) {
    throw fail((err as Error).message);
  }
}

const SIMPLE_ESCAPES: Record<string, number> = { a: 7, b: 8, f: 12, n: 10, r: 13, t: 9, v: 11, "\\": 92, '"': 34 };
const utf8 = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * A string literal decoded as Go's strconv.Unquote does (the log store's
 * lexer): backtick strings are raw (carriage returns dropped); double-quoted
 * ones take Go's escapes, which produce bytes, so the result must be UTF-8.
 * Anything Go would refuse is refused here (\', \q, a short \x, ...).
 */
export function unquoteGo(raw: string): string {
  if (/\p{Cs}/u.test(raw)) throw new Error("string literal is not valid Unicode");
  if (raw.length >= 2 && raw.startsWith("`") && raw.endsWith("`")) return raw.slice(1, -1).replaceAll("\r", "");
  if (raw.length < 2 || !raw.startsWith('"') || !raw.endsWith('"')) throw new Error("invalid string literal");
  const body = raw.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; ) {
    const ch = body[i]!;
    if (ch === '"' || ch === "\n") throw new Error("invalid string literal");
    if (ch !== "\\") {
      const cp = body.codePointAt(i)!;
      const s = String.fromCodePoint(cp);
      bytes.push(...utf8.encode(s));
      i += s.length;
      continue;
    }
    const e = body[i + 1] ?? "";
    if (e in SIMPLE_ESCAPES) {
      bytes.push(SIMPLE_ESCAPES[e]!);
      i += 2;
    } else if (e === "x" && /^[0-9a-fA-F]{2}$/.test(body.slice(i + 2, i + 4))) {
      bytes.push(parseInt(body.slice(i + 2, i + 4), 16));
      i += 4;
    } else if (/^[0-7]{3}$/.test(body.slice(i + 1, i + 4)) && parseInt(body.slice(i + 1, i + 4), 8) <= 255) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 4;
    } else if ((e === "u" || e === "U") && new RegExp(`^[0-9a-fA-F]{${e === "u" ? 4 : 8}}$`).test(body.slice(i + 2, i + (e === "u" ? 6 : 10)))) {
      const digits = e === "u" ? 4 : 8;
      const cp = parseInt(body.slice(i + 2, i + 2 + digits), 16);
      if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw new Error(`invalid Unicode code point in string literal: \\${e}${body.slice(i + 2, i + 2 + digits)}`);
      bytes.push(...utf8.encode(String.fromCodePoint(cp)));
      i += 2 + digits;
    } else {
      throw new Error(`invalid escape sequence in string literal: ${JSON.stringify(`\\${e}`)}`);
    }
  }
  try {
    return strictUtf8.decode(new Uint8Array(bytes));
  } catch {
    throw new Error("string literal is not valid UTF-8");
  }
}

/**
 * A double-quoted literal both Go and JSON read back as exactly `value`:
 * quotes, backslashes and control characters escaped. Refuses a lone
 * surrogate, which no UTF-8 label value can hold.
 */
export function quoteGo(value: string): string {
  if (/\p{Cs}/u.test(value)) throw badRequest("a label value is not valid Unicode");
  return JSON.stringify(value).replace(/[\u007f-\u009f\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export const matcherKey = (m: LabelMatcher) => `${m.name}\u0000${m.op}\u0000${m.value}`;

/** `{name op "value", ...}`; identical matchers once */
export function renderSelector(matchers: readonly LabelMatcher[]): string {
  const seen = new Set<string>();
  const parts: string[] = [];
  for (const m of matchers) {
    const key = matcherKey(m);
    if (seen.has(key)) continue;
    seen.add(key);
    if (!LABEL_NAME.test(m.name)) throw badRequest(`invalid label name ${JSON.stringify(m.name)}`);
    parts.push(`${m.name}${m.op}${quoteGo(m.value)}`);
  }
  return `{${parts.join(", ")}}`;
}
