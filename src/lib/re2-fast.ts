// Regexes answered without a regex engine, as Prometheus's FastRegexMatcher
// (literal alternations as a set, prefix/suffix/contains around `.*`) and
// Loki's line filter simplification do. Only shapes whose meaning is certain
// are taken: literals (with escaped punctuation), top-level alternations of
// literals, an optional enclosing group, a leading (?i) over ASCII literals, and
// `.*` before and/or after; anything else goes to the engine.

const META = new Set("\\.+*?()|[]{}^$");
const ASCII_PUNCT = /[!-/:-@[-`{-~]/;
const NON_ASCII = /[^\x00-\x7f]/;

/** the literal a piece of RE2 spells, or undefined when it holds an operator */
function literalOf(piece: string): string | undefined {
  let out = "";
  for (let i = 0; i < piece.length; i++) {
    const c = piece[i]!;
    if (c === "\\") {
      const next = piece[i + 1];
      // RE2: a backslash before any ASCII punctuation is that character
      if (next === undefined || !ASCII_PUNCT.test(next)) return undefined;
      out += next;
      i++;
    } else if (META.has(c)) return undefined;
    else out += c;
  }
  return out;
}

/** the alternatives of `a|b|c` (one for a plain literal), or undefined */
function alternativesOf(body: string): string[] | undefined {
  const parts: string[] = [];
  let current = "";
  for (let i = 0; i < body.length; i++) {
    if (body[i] === "\\") {
      current += body.slice(i, i + 2);
      i++;
    } else if (body[i] === "|") {
      parts.push(current);
      current = "";
    } else current += body[i];
  }
  parts.push(current);
  const literals = parts.map(literalOf);
  return literals.every((l) => l !== undefined) ? (literals as string[]) : undefined;
}

/** `(x)` or `(?:x)` enclosing the whole pattern, else the pattern */
function unwrapGroup(p: string): string {
  const open = p.startsWith("(?:") ? 3 : p.startsWith("(") && !p.startsWith("(?") ? 1 : 0;
  if (!open || !p.endsWith(")") || p.endsWith("\\)")) return p;
  const inner = p.slice(open, -1);
  // only when no other parenthesis or class is inside (so the outer pair really encloses all)
  return /[()[\]]/.test(inner.replace(/\\./g, "")) ? p : inner;
}

type Shape = "exact" | "prefix" | "suffix" | "contains";

/**
 * A tester equal to the RE2 pattern's test(), or undefined when the pattern
 * is not one of the simple shapes. `anchored` is Prometheus's ^(?s:re)$;
 * otherwise the search is unanchored (and `.` excludes "\n" as in Go, which
 * never matters here: `.*` may match the empty string).
 */
export function fastTester(source: string, anchored: boolean): ((input: string) => boolean) | undefined {
  let p = source;
  const ci = p.startsWith("(?i)");
  if (ci) p = p.slice(4);
  let shape: Shape = "exact";
  const lead = p.startsWith(".*");
  if (lead) p = p.slice(2);
  const trail = p.endsWith(".*") && !p.endsWith("\\.*");
  if (trail) p = p.slice(0, -2);
  if (lead || trail) {
    // `.*` must stand outside the group: "(a|b).*"; "a|b.*" would bind the `.*` to b alone
    const unwrapped = unwrapGroup(p);
    if (unwrapped === p && p.includes("|")) return undefined;
    p = unwrapped;
    shape = lead && trail ? "contains" : lead ? "suffix" : "prefix";
  } else p = unwrapGroup(p);
  const alts = alternativesOf(p);
  if (!alts) return undefined;
  if (!anchored) shape = "contains";
  if (ci && alts.some((a) => NON_ASCII.test(a))) return undefined;
  if (ci) return caseless(alts, shape);
  const set = new Set(alts);
  const one = alts.length === 1 ? alts[0]! : undefined;
  switch (shape) {
    case "exact": return (s) => set.has(s);
    case "prefix": return one !== undefined ? (s) => s.startsWith(one) : (s) => alts.some((w) => s.startsWith(w));
    case "suffix": return one !== undefined ? (s) => s.endsWith(one) : (s) => alts.some((w) => s.endsWith(w));
    case "contains": return one !== undefined ? (s) => s.includes(one) : (s) => alts.some((w) => s.includes(w));
  }
}

/**
 * (?i) over ASCII literals. Unicode simple case folding (RE2's (?i), and
 * JavaScript's with the u flag) also folds K KELVIN SIGN to k and LONG S to s;
 * a JavaScript RegExp made only of escaped literals does that, and cannot
 * backtrack more than the literals' length at each position.
 */
function caseless(alts: string[], shape: Shape): (input: string) => boolean {
  const body = alts.map((a) => a.replace(/[\\^$.*+?()[\]{}|]/g, "\\$&")).join("|");
  const re = new RegExp(shape === "exact" ? `^(?:${body})$` : shape === "prefix" ? `^(?:${body})` : shape === "suffix" ? `(?:${body})$` : body, "iu");
  return (s) => re.test(s);
}

/** escapes that stand for one position or class and take no operand: skipped, they end a literal run */
const CLASS_ESCAPES = new Set("dDwWsSbBAz");

/**
 * The longest literal every match must contain, or undefined: a prefilter
 * (`input.includes(it)` before the engine runs) for patterns that are not
 * one of the shapes above, like `user=\d+ .*timeout` (needs "timeout").
 * Conservative: top-level alternations, case-insensitive flags and escapes
 * with operands (\x41, \pL, \Q...\E) give none; groups and classes are
 * skipped; a literal followed by ?, * or {…} loses its last character.
 */
export function requiredLiteral(source: string): string | undefined {
  if (/\(\?[a-zA-Z-]*i/.test(source)) return undefined;
  const runs: string[] = [];
  let run = "";
  const end = () => {
    if (run) runs.push(run);
    run = "";
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === "|") return undefined;
    if (c === "\\") {
      const next = source[i + 1];
      if (next === undefined) return undefined;
      if (ASCII_PUNCT.test(next)) run += next;
      else if (CLASS_ESCAPES.has(next)) end();
      else return undefined;
      i++;
    } else if (c === "(") {
      end();
      i = skipGroup(source, i);
      if (i < 0) return undefined;
    } else if (c === "[") {
      end();
      i = skipClass(source, i);
      if (i < 0) return undefined;
    } else if (c === "?" || c === "*" || c === "{") {
      // the character before was optional (or repeated a count we do not read)
      run = run.slice(0, -(run.length ? lastCharLength(run) : 0));
      end();
    } else if (c === "+") {
      end();
    } else if (META.has(c)) end();
    else run += c;
  }
  end();
  const best = runs.reduce((a, b) => (b.length > a.length ? b : a), "");
  return best.length >= 3 ? best : undefined;
}

const lastCharLength = (s: string) => (s.length >= 2 && /[\udc00-\udfff]/.test(s[s.length - 1]!) && /[\ud800-\udbff]/.test(s[s.length - 2]!) ? 2 : 1);

/** the index of the `)` closing the group opened at `open`, or -1 */
function skipGroup(source: string, open: number): number {
  let depth = 0;
  for (let i = open; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[") {
      i = skipClass(source, i);
      if (i < 0) return -1;
    } else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i;
  }
  return -1;
}

/** the index of the `]` closing the class opened at `open` (`[]a]`, `[^]a]`, `[[:alpha:]]`), or -1 */
function skipClass(source: string, open: number): number {
  let i = open + 1;
  if (source[i] === "^") i++;
  if (source[i] === "]") i++;
  for (; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "[" && source[i + 1] === ":") {
      const close = source.indexOf(":]", i + 2);
      if (close < 0) return -1;
      i = close + 1;
    } else if (c === "]") return i;
  }
  return -1;
}

/** one top-level alternative of a pattern and the literal every match of it contains */
export interface LiteralBranch {
  /** the alternative's source */
  branch: string;
  literal: string;
  /** true when every match of the alternative starts with `literal` (it opens the alternative) */
  prefix: boolean;
}

/** the top-level alternatives of a pattern (`|` outside groups and classes), or undefined when it is malformed */
function topLevelBranches(source: string): string[] | undefined {
  const out: string[] = [];
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === "\\") i++;
    else if (c === "(") {
      i = skipGroup(source, i);
      if (i < 0) return undefined;
    } else if (c === "[") {
      i = skipClass(source, i);
      if (i < 0) return undefined;
    } else if (c === "|") {
      out.push(source.slice(start, i));
      start = i + 1;
    }
  }
  out.push(source.slice(start));
  return out;
}

/** the literal an alternative opens with (shortened by one when a quantifier follows it), or "" */
function leadingLiteral(branch: string): string {
  let run = "";
  for (let i = 0; i < branch.length; i++) {
    const c = branch[i]!;
    if (c === "\\") {
      const next = branch[i + 1];
      if (next === undefined || !ASCII_PUNCT.test(next)) break;
      run += next;
      i++;
    } else if (c === "?" || c === "*" || c === "{") return run.slice(0, -(run.length ? lastCharLength(run) : 0));
    else if (META.has(c)) break;
    else run += c;
  }
  return run;
}

/**
 * A literal per top-level alternative such that every match of the pattern
 * contains at least one of them (each alternative's own required literal), or
 * undefined when some alternative has none of at least 3 characters. A
 * pattern without `|` gives one branch (its requiredLiteral). Flags anywhere
 * ((?i), (?s), (?m), (?U)...) give none: a flag group at the front would apply
 * to every alternative, and (?i) makes a byte search inexact.
 * An alternative opening with a literal of at least 3 characters takes that
 * one (`prefix`): every match of it starts at an occurrence of the literal.
 */
export function literalBranches(source: string): LiteralBranch[] | undefined {
  if (/\(\?[a-zA-Z-]/.test(source)) return undefined;
  const branches = topLevelBranches(source);
  if (!branches) return undefined;
  const out: LiteralBranch[] = [];
  for (const branch of branches) {
    const lead = leadingLiteral(branch);
    if (lead.length >= 3) {
      out.push({ branch, literal: lead, prefix: true });
      continue;
    }
    const needed = requiredLiteral(branch);
    if (needed === undefined) return undefined;
    out.push({ branch, literal: needed, prefix: false });
  }
  return out;
}

/**
 * A sticky JavaScript RegExp equal to the RE2 alternative `branch` matched at
 * a given position (lastIndex), or undefined. Taken only where the two
 * engines agree and backtracking stays linear: literal characters (escaped
 * punctuation included), `\d`, classes of ASCII letters, digits, escaped
 * punctuation and ranges of those (not negated), each optionally followed by
 * one greedy quantifier (?, *, +, {n}, {n,}, {n,m}) — at most one quantifier
 * of variable count in the whole alternative.
 */
export function stickyBranch(branch: string): RegExp | undefined {
  let out = "";
  let variable = 0;
  let canRepeat = false;
  for (let i = 0; i < branch.length; i++) {
    const c = branch[i]!;
    if (c === "\\") {
      const next = branch[i + 1];
      if (next === undefined) return undefined;
      if (next === "d") out += "[0-9]";
      else if (ASCII_PUNCT.test(next)) out += `\\${next}`;
      else return undefined;
      i++;
      canRepeat = true;
    } else if (c === "[") {
      const close = asciiClassEnd(branch, i);
      if (close < 0) return undefined;
      out += branch.slice(i, close + 1).replace(/\\d/g, "0-9");
      i = close;
      canRepeat = true;
    } else if (c === "?" || c === "*" || c === "+" || c === "{") {
      if (!canRepeat) return undefined;
      let q = c;
      if (c === "{") {
        const m = /^\{(\d{1,3})(,(\d{1,3})?)?\}/.exec(branch.slice(i));
        if (!m) return undefined;
        q = m[0];
        i += q.length - 1;
        if (m[2] !== undefined && m[3] !== m[1]) variable++;
      } else variable++;
      if (variable > 1 || branch[i + 1] === "?" || branch[i + 1] === "+" || branch[i + 1] === "*" || branch[i + 1] === "{") return undefined;
      out += q;
      canRepeat = false;
    } else if (META.has(c)) return undefined;
    else {
      // a character outside the BMP is two code units here: a quantifier would repeat only the second
      if (c.charCodeAt(0) >= 0xd800 && c.charCodeAt(0) <= 0xdfff) {
        out += c;
        canRepeat = false;
        continue;
      }
      out += /[A-Za-z0-9_ ]/.test(c) || c.charCodeAt(0) > 0x7f ? c : `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}`;
      canRepeat = true;
    }
  }
  return new RegExp(out, "y");
}

/** the index of the `]` closing a class made only of ASCII letters, digits, `\d`, escaped punctuation and ranges, or -1 */
function asciiClassEnd(source: string, open: number): number {
  let i = open + 1;
  if (source[i] === "^" || source[i] === "]") return -1;
  let prevSingle = false;
  for (; i < source.length; i++) {
    const c = source[i]!;
    if (c === "]") return i > open + 1 ? i : -1;
    if (c === "\\") {
      const next = source[i + 1];
      if (next === "d") prevSingle = false;
      else if (next !== undefined && next !== "\\" && ASCII_PUNCT.test(next)) prevSingle = true;
      else return -1;
      i++;
    } else if (c === "-") {
      // a range between two single characters (a-z, 0-9); a leading or trailing "-" is refused
      const to = source[i + 1];
      if (!prevSingle || to === undefined || !/[A-Za-z0-9]/.test(to)) return -1;
      i++;
      prevSingle = false;
    } else if (/[A-Za-z0-9]/.test(c)) prevSingle = true;
    else return -1;
  }
  return -1;
}
