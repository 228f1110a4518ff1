// User regular expressions with Go's RE2 syntax and linear-time matching
// (issue 16 #3). Every regex a user sends (PromQL and LogQL matchers, line
// filters, label_replace, rule templates) is compiled here, never with
// JavaScript's backtracking RegExp: `(a|aa)+$` over "a"x40+"!" takes seconds
// there and microseconds here. The engine is re2js, a pure-JS port of RE2 (the
// same parser and error messages as Go's regexp/syntax); see
// docs/choices.md "Regular expressions" for the measurements behind the choice.
// Patterns that are literals or simple alternations of literals are answered
// without the engine (src/lib/re2-fast.ts), as Prometheus's FastRegexMatcher
// and Loki's line filter simplification do; others skip inputs lacking a
// literal every match needs before running the engine.
import { RE2JS, RE2JSException } from "re2js";
import { fastTester, literalBranches, requiredLiteral, stickyBranch } from "./re2-fast.ts";

/** a pattern RE2 refuses; `message` is Go's regexp error text ("error parsing regexp: missing closing ): `(a`") */
export class RegexSyntaxError extends Error {}

export interface RegexMatch {
  /** index 0 is the whole match; an unmatched group is undefined */
  groups: (string | undefined)[];
  /** the group names by index (RE2's SubexpNames) */
  names: readonly (string | undefined)[];
}

export interface Regex {
  readonly source: string;
  /** the group names by index (RE2's SubexpNames; undefined for index 0 and unnamed groups) */
  readonly names: readonly (string | undefined)[];
  test(input: string): boolean;
  /** the leftmost match and its groups, or null */
  exec(input: string): RegexMatch | null;
}

const cache = new Map<string, Regex>();
const engines = new WeakMap<Regex, RE2JS>();
const CACHE_MAX = 1000;

function compile(source: string, wrapped: string, anchored: boolean): Regex {
  const key = `${anchored ? "a" : "u"}${source}`;
  const hit = cache.get(key);
  if (hit) return hit;
  let re: RE2JS;
  try {
    // the user's own pattern is checked alone first, so the message quotes it and not our wrapper
    if (wrapped !== source) RE2JS.compile(source);
    re = RE2JS.compile(wrapped);
  } catch (err) {
    if (err instanceof RE2JSException) throw new RegexSyntaxError(err.message);
    throw err;
  }
  const engineTest = anchored ? requiredLiteralTest(re, source) : unanchoredTest(re, source);
  const names = namesOf(re, re.groupCount() + 1);
  const regex: Regex = {
    source,
    names,
    test: fastTester(source, anchored) ?? engineTest,
    exec(input) {
      const m = re.exec(input);
      if (!m) return null;
      return { groups: Array.from(m, (g) => g ?? undefined), names };
    },
  };
  engines.set(regex, re);
  if (cache.size >= CACHE_MAX) cache.clear();
  cache.set(key, regex);
  return regex;
}

/** the engine behind the literal every match needs, when there is one (anchored patterns, and unanchored ones with flags) */
function requiredLiteralTest(re: RE2JS, source: string): (input: string) => boolean {
  const needed = requiredLiteral(source);
  return needed === undefined ? (input) => re.test(input) : (input) => input.includes(needed) && re.test(input);
}

/** occurrences of an opening literal tried one by one before the whole line goes to the engine (keeps the search linear) */
const MAX_ANCHORED_TRIES = 8;

/**
 * An unanchored search: when every top-level alternative opens with a literal
 * (`duration=[0-9]{5,}ms|"duration_ms":[0-9]{5,}`), a match starts at an
 * occurrence of one of them, so the alternative runs anchored at each
 * occurrence only (RE2 reads a few characters there instead of the whole
 * line; the alternative's assertions only look at characters from the
 * occurrence on, since it opens with a literal); otherwise a line lacking every alternative's literal is skipped.
 */
function unanchoredTest(re: RE2JS, source: string): (input: string) => boolean {
  const branches = literalBranches(source);
  // a pattern with flags has no literal set, but may have one literal every match needs
  if (!branches) return requiredLiteralTest(re, source);
  if (branches.every((b) => b.prefix)) {
    // the simplest alternatives (literals, ASCII classes, one quantifier) as sticky JavaScript RegExps: the same matches, linear there too
    const at = branches.map((b) => {
      const sticky = stickyBranch(b.branch);
      const engine = sticky ? undefined : RE2JS.compile(b.branch);
      const at = sticky
        ? (input: string, p: number) => {
            sticky.lastIndex = p;
            return sticky.test(input);
          }
        : (input: string, p: number) => engine!.matcher(p === 0 ? input : input.slice(p)).lookingAt();
      return { literal: b.literal, at };
    });
    return (input) => {
      let tries = 0;
      for (const b of at) {
        for (let p = input.indexOf(b.literal); p >= 0; p = input.indexOf(b.literal, p + 1)) {
          if (++tries > MAX_ANCHORED_TRIES) return re.test(input);
          if (b.at(input, p)) return true;
        }
      }
      return false;
    };
  }
  const literals = branches.map((b) => b.literal);
  if (literals.length === 1) {
    const needed = literals[0]!;
    return (input) => input.includes(needed) && re.test(input);
  }
  return (input) => literals.some((l) => input.includes(l)) && re.test(input);
}

function namesOf(re: RE2JS, count: number): (string | undefined)[] {
  const names: (string | undefined)[] = new Array(count).fill(undefined);
  for (const [name, index] of Object.entries(re.namedGroups() as Record<string, number>)) names[index] = name;
  return names;
}

/** fully anchored as Prometheus and Loki anchor matchers: ^(?s:re)$ (dot matches newline) */
export function compileAnchored(source: string): Regex {
  return compile(source, `^(?s:${source})$`, true);
}

/** unanchored, as Loki's line filters |~ !~ and Go's regexp.MatchString */
export function compileUnanchored(source: string): Regex {
  return compile(source, source, false);
}

/** Go's Regexp.Expand: $1, ${1}, $name, ${name}, $$; the longest name wins, so "$1x" is the group "1x" */
export function expandTemplate(template: string, m: RegexMatch): string {
  let out = "";
  walkTemplate(template, m, (piece) => {
    out += piece;
  });
  return out;
}

/** the length expandTemplate(template, m) would have, found without building it */
export function expandedLength(template: string, m: RegexMatch): number {
  let n = 0;
  walkTemplate(template, m, (piece) => {
    n += piece.length;
  });
  return n;
}

/** hands the pieces of the expansion, in order, to emit */
function walkTemplate(template: string, m: RegexMatch, emit: (piece: string) => void): void {
  let i = 0;
  while (i < template.length) {
    const dollar = template.indexOf("$", i);
    if (dollar < 0) break;
    emit(template.slice(i, dollar));
    i = dollar + 1;
    if (template[i] === "$") {
      emit("$");
      i++;
      continue;
    }
    const brace = template[i] === "{";
    const nameStart = brace ? i + 1 : i;
    let j = nameStart;
    while (j < template.length && /[\p{L}\p{N}_]/u.test(template[j]!)) j++;
    if (j === nameStart || (brace && template[j] !== "}")) {
      // Go copies a malformed "$" through as is
      emit("$");
      continue;
    }
    const name = template.slice(nameStart, j);
    i = brace ? j + 1 : j;
    if (/^\d+$/.test(name)) {
      const n = Number(name);
      if (n < m.groups.length) emit(m.groups[n] ?? "");
    } else {
      const n = m.names.indexOf(name);
      if (n >= 0) emit(m.groups[n] ?? "");
    }
  }
  emit(template.slice(i));
}

/** Go's Regexp.ReplaceAllString: every non-overlapping match replaced by the expanded template */
export function replaceAll(re: Regex, input: string, template: string): string {
  const engine = engines.get(re)!;
  const names = re.names;
  const matcher = engine.matcher(input);
  let out = "";
  let lastMatchEnd = 0;
  let searchPos = 0;
  // the loop of Go's Regexp.replaceAll, step for step (empty matches included)
  while (searchPos <= input.length && matcher.find(searchPos)) {
    const start = matcher.start();
    const end = matcher.end();
    out += input.slice(lastMatchEnd, start);
    if (end > lastMatchEnd || start === 0) {
      const groups = Array.from({ length: names.length }, (_, g) => matcher.group(g) ?? undefined);
      out += expandTemplate(template, { groups, names });
    }
    lastMatchEnd = end;
    const width = searchPos < input.length ? (input.codePointAt(searchPos)! > 0xffff ? 2 : 1) : 0;
    if (searchPos + width > end) searchPos += width;
    else if (searchPos + 1 > end) searchPos++;
    else searchPos = end;
  }
  return out + input.slice(lastMatchEnd);
}
