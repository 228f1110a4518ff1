// Turns a place where the lezer grammar gave up into the message Prometheus's
// own parser would print. The grammar does the parsing; this only re-reads the
// text around the failure: a light scan that mirrors the states of Prometheus's
// lexer (promql/parser/lex.go) finds the errors its lexer reports (unclosed
// parentheses, unterminated strings, stray characters), and the token at the
// failure is described as its yacc parser does ("unexpected <op:+>", ...).
import { FUNCTIONS } from "./ast.ts";
import { PromQLParseError, quoteRune, quoteString } from "./parse-error.ts";

type TokenType = "ident" | "number" | "duration" | "string" | "punct" | "op" | "eof";

interface Token {
  type: TokenType;
  text: string;
  start: number;
  /** inside a `{...}` label matcher list */
  inBraces: boolean;
  /** inside a `[...]` range or subquery */
  inBrackets: boolean;
}

interface LexError {
  /** where Prometheus reports it (the lexer's start position) */
  pos: number;
  /** where the token that failed began, to order it against syntax errors */
  tokenStart: number;
  message: string;
}

const OPERATOR_WORDS = new Set(["and", "or", "unless", "atan2"]);
const AGGREGATORS = new Set([
  "sum", "avg", "count", "min", "max", "group", "stddev", "stdvar", "topk", "bottomk", "count_values", "quantile", "limitk", "limit_ratio",
]);
const KEYWORDS = new Set(["offset", "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "smoothed", "anchored", "fill", "fill_left", "fill_right"]);
const ESCAPES = new Set(["a", "b", "f", "n", "r", "t", "v", "\\"]);

const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r";
const isDigit = (c: string | undefined) => c !== undefined && c >= "0" && c <= "9";
const isAlpha = (c: string | undefined) => c !== undefined && ((c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_");
const isAlnum = (c: string | undefined) => isAlpha(c) || isDigit(c);

const NUMBER = /^(0[xX][0-9a-fA-F_]+|(\d[\d_]*\.?[\d_]*|\.\d[\d_]*)([eE][+-]?\d+)?)$/;
const DURATION = /^(\d+(ms|s|m|h|d|w|y))+$/;

/** scans the query like Prometheus's lexer; stops at the first lexical error */
function scan(q: string): { tokens: Token[]; error?: LexError } {
  const tokens: Token[] = [];
  let i = 0;
  let parens = 0;
  let braces = false;
  let brackets = false;
  let colon = false;
  const push = (type: TokenType, start: number, end: number) =>
    tokens.push({ type, text: q.slice(start, end), start, inBraces: braces, inBrackets: brackets });
  const fail = (pos: number, message: string, tokenStart = pos) => ({ tokens, error: { pos, tokenStart, message } });

  while (true) {
    const c = q[i];
    if (c === "#") {
      while (i < q.length && q[i] !== "\n" && q[i] !== "\r") i++;
      continue;
    }
    if (c === undefined) {
      if (braces) return fail(i, "unexpected end of input inside braces");
      if (parens !== 0) return fail(i, "unclosed left parenthesis");
      if (brackets) return fail(i, "unclosed left bracket");
      push("eof", i, i);
      return { tokens };
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    const start = i;
    if (c === '"' || c === "'") {
      const err = scanString(q, i, c);
      if (typeof err === "object") return fail(err.pos, err.message, start);
      i = err;
      push("string", start, i);
      continue;
    }
    if (c === "`") {
      const end = q.indexOf("`", i + 1);
      if (end < 0) return fail(start, "unterminated raw string");
      i = end + 1;
      push("string", start, i);
      continue;
    }
    if (braces) {
      if (isAlpha(c)) {
        while (isAlnum(q[i])) i++;
        push("ident", start, i);
      } else if (c === ",") {
        push("punct", start, ++i);
      } else if (c === "=") {
        i += q[i + 1] === "~" ? 2 : 1;
        push(i - start === 2 ? "op" : "punct", start, i);
      } else if (c === "!") {
        const n = q[i + 1];
        if (n !== "~" && n !== "=") return fail(start, `unexpected character after '!' inside braces: ${quoteRune(n)}`);
        i += 2;
        push("op", start, i);
      } else if (c === "{") {
        return fail(start, "unexpected left brace '{'");
      } else if (c === "}") {
        push("punct", start, ++i);
        braces = false;
      } else {
        return fail(start, `unexpected character inside braces: ${quoteRune(String.fromCodePoint(q.codePointAt(i)!))}`);
      }
      continue;
    }
    if (isDigit(c) || (c === "." && isDigit(q[i + 1]))) {
      while (isAlnum(q[i]) || q[i] === "." || ((q[i] === "+" || q[i] === "-") && /[eE]/.test(q[i - 1] ?? "") && !/[xX]/.test(q.slice(start, i)))) i++;
      const text = q.slice(start, i);
      if (NUMBER.test(text)) push("number", start, i);
      else if (DURATION.test(text)) push("duration", start, i);
      else return fail(start, `bad number or duration syntax: ${quoteString(text)}`);
      continue;
    }
    if (isAlpha(c) || c === ":") {
      if (brackets && c === ":") {
        if (colon) return fail(start, "unexpected colon ':'");
        colon = true;
        push("punct", start, ++i);
        continue;
      }
      while (isAlnum(q[i]) || q[i] === ":") i++;
      push("ident", start, i);
      continue;
    }
    switch (c) {
      case ",":
        push("punct", start, ++i);
        continue;
      case "*": case "/": case "%": case "+": case "-": case "^": case "@":
        push("op", start, ++i);
        continue;
      case "=":
        if (q[i + 1] === "~") return fail(start, "unexpected character after '=': '~'");
        i += q[i + 1] === "=" ? 2 : 1;
        push(i - start === 2 ? "op" : "punct", start, i);
        continue;
      case "!":
        if (q[i + 1] !== "=") return fail(start, `unexpected character after '!': ${quoteRune(q[i + 1])}`);
        i += 2;
        push("op", start, i);
        continue;
      case "<": case ">":
        i += q[i + 1] === "=" ? 2 : 1;
        push("op", start, i);
        continue;
      case "(":
        parens++;
        push("punct", start, ++i);
        continue;
      case ")":
        push("punct", start, ++i);
        if (--parens < 0) return fail(i, "unexpected right parenthesis ')'", start);
        continue;
      case "{":
        braces = true;
        push("punct", start, ++i);
        continue;
      case "[":
        if (brackets) return fail(start, "unexpected left bracket '['");
        brackets = true;
        colon = false;
        push("punct", start, ++i);
        continue;
      case "]":
        if (!brackets) return fail(start, "unexpected right bracket ']'");
        brackets = false;
        tokens.push({ type: "punct", text: "]", start, inBraces: false, inBrackets: true });
        i++;
        continue;
      default:
        return fail(start, `unexpected character: ${quoteRune(String.fromCodePoint(q.codePointAt(i)!))}`);
    }
  }
}

/** the end of a quoted string starting at i, or Prometheus's error for it */
function scanString(q: string, i: number, quote: string): number | { pos: number; message: string } {
  const start = i;
  i++;
  while (true) {
    const c = q[i];
    if (c === undefined || c === "\n") return { pos: start, message: "unterminated quoted string" };
    if (c === quote) return i + 1;
    if (c === "\\") {
      const e = q[i + 1];
      if (e === undefined) return { pos: start, message: "escape sequence not terminated" };
      if (ESCAPES.has(e) || e === quote) i += 2;
      else if (/[0-7]/.test(e)) i += 4;
      else if (e === "x") i += 4;
      else if (e === "u") i += 6;
      else if (e === "U") i += 10;
      else {
        const code = e.codePointAt(0)!;
        return { pos: start, message: `unknown escape sequence U+${code.toString(16).toUpperCase().padStart(4, "0")} '${e}'` };
      }
      continue;
    }
    i++;
  }
}

/** Prometheus's Item.desc(): how its parser names a token in "unexpected ..." */
function describe(t: Token): string {
  switch (t.type) {
    case "eof":
      return "end of input";
    case "number":
      return `number ${quoteString(t.text)}`;
    case "duration":
      return `duration ${quoteString(t.text)}`;
    case "string":
      return `string ${t.text.length > 10 ? quoteString(t.text.slice(0, 10)) + "..." : quoteString(t.text)}`;
    case "op":
      return `<op:${t.text}>`;
    case "punct":
      return quoteString(t.text);
    case "ident": {
      const lower = t.text.toLowerCase();
      if (t.inBraces) return `identifier ${quoteString(t.text)}`;
      if (lower === "inf" || lower === "nan") return `number ${quoteString(t.text)}`;
      if (OPERATOR_WORDS.has(lower)) return `<op:${t.text}>`;
      if (AGGREGATORS.has(lower)) return `<aggr:${t.text}>`;
      if (KEYWORDS.has(lower)) return `<${t.text}>`;
      return `${t.text.includes(":") ? "metric identifier" : "identifier"} ${quoteString(t.text)}`;
    }
  }
}

/** the "in <context>, expected <what>" tail some of Prometheus's grammar rules add */
function context(tokens: Token[], at: number): string {
  const t = tokens[at]!;
  const prev = tokens[at - 1];
  const prevLower = prev?.text.toLowerCase() ?? "";
  if (t.inBraces) {
    if (prev?.type === "ident" && prev.inBraces) return " in label matching, expected label matching operator";
    if (prev && prev.inBraces && (prev.text === "=" || prev.text === "!=" || prev.text === "=~" || prev.text === "!~")) {
      return " in label matching, expected string";
    }
    if (prev?.type === "string") return ' in label matching, expected "," or "}"';
    return ' in label matching, expected identifier or "}"';
  }
  if (prev && prev.type === "ident" && ["by", "without", "on", "ignoring"].includes(prevLower) && t.text !== "(") {
    return ' in grouping opts, expected "("';
  }
  const open = lastOpenParen(tokens, at);
  if (open > 0) {
    const kw = tokens[open - 1]!.text.toLowerCase();
    if (["by", "without", "on", "ignoring", "group_left", "group_right"].includes(kw)) {
      return prev?.type === "ident" ? ' in grouping opts, expected "," or ")"' : " in grouping opts, expected label";
    }
  }
  if (prev && AGGREGATORS.has(prevLower) && !prev.inBraces) return " in aggregation";
  if (prevLower === "offset") return " in offset, expected duration";
  if (prev?.text === "@") return " in @, expected timestamp";
  if (t.inBrackets || prev?.inBrackets) {
    if (prev?.text === "[") return " in subquery selector, expected duration";
    if (prev?.text === ":") return ' in subquery selector, expected duration or "]"';
    return ' in subquery or range, expected ":" or "]"';
  }
  return "";
}

function lastOpenParen(tokens: Token[], at: number): number {
  let depth = 0;
  for (let i = at - 1; i >= 0; i--) {
    const text = tokens[i]!.text;
    if (text === ")") depth++;
    else if (text === "(") {
      if (depth === 0) return i;
      depth--;
    }
  }
  return -1;
}

/**
 * The parse error for a query the grammar could not read, given where the
 * grammar failed (undefined when it read the text but Prometheus's lexer
 * would still refuse it, as for an unterminated string at the end).
 */
export function diagnose(q: string, failedAt: number | undefined): PromQLParseError | undefined {
  const { tokens, error } = scan(q);
  if (tokens.length === 0 || (tokens.length === 1 && tokens[0]!.type === "eof")) {
    if (!error) return new PromQLParseError(q, 0, "no expression found in input");
  }
  if (error && (failedAt === undefined || error.tokenStart <= failedAt)) return new PromQLParseError(q, error.pos, error.message);
  if (failedAt === undefined) return undefined;
  let at = tokens.findIndex((t) => t.start >= failedAt || t.type === "eof");
  if (at < 0) at = tokens.length - 1;
  // lezer can stop just after a token that is itself the culprit (a bare "(" after a name)
  const t = tokens[at]!;
  const prev = tokens[at - 1];
  if (t.text === "(" && prev?.type === "ident" && !prev.inBraces && prev.start + prev.text.length === lastNonSpace(q, t.start)) {
    const name = prev.text;
    const lower = name.toLowerCase();
    if (!FUNCTIONS[name] && !AGGREGATORS.has(lower) && !KEYWORDS.has(lower) && !OPERATOR_WORDS.has(lower)) {
      return new PromQLParseError(q, prev.start, `unknown function with name ${quoteString(name)}`);
    }
  }
  return new PromQLParseError(q, t.start, `unexpected ${describe(t)}${context(tokens, at)}`);
}

function lastNonSpace(q: string, end: number): number {
  let i = end;
  while (i > 0 && isSpace(q[i - 1])) i--;
  return i;
}
