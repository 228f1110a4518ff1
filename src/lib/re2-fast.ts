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
