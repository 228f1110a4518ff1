// Label matchers and Go RE2 regular expressions in JavaScript, shared by the
// series index and PromQL. Prometheus anchors every matcher regex as
// ^(?s:re)$; RE2 syntax is close to JS, with a few spellings translated here
// ((?P<name>), a leading (?i), POSIX classes, \z). A missing label is the
// empty value.
import type { Labels, Matcher } from "./types.ts";

const POSIX: Record<string, string> = {
  alnum: "0-9A-Za-z", alpha: "A-Za-z", ascii: "\\x00-\\x7F", blank: "\\t ", cntrl: "\\x00-\\x1F\\x7F",
  digit: "0-9", graph: "!-~", lower: "a-z", print: " -~", punct: "!-/:-@[-`{-~", space: "\\t\\n\\v\\f\\r ",
  upper: "A-Z", word: "0-9A-Za-z_", xdigit: "0-9A-Fa-f",
};

export class RegexError extends Error {}

const cache = new Map<string, RegExp>();

/** compiles an RE2 pattern, fully anchored, dot matching newlines; throws RegexError */
export function anchoredRegex(source: string): RegExp {
  const hit = cache.get(source);
  if (hit) return hit;
  let flags = "s";
  let body = source;
  const lead = /^\(\?([imsU]+)\)/.exec(body);
  if (lead) {
    if (lead[1]!.includes("i")) flags += "i";
    body = body.slice(lead[0].length);
  }
  body = body
    .replace(/\(\?P</g, "(?<")
    .replace(/\[:(\^?)([a-z]+):\]/g, (all, neg: string, name: string) => (POSIX[name] ? (neg ? `^${POSIX[name]}` : POSIX[name]!) : all))
    .replace(/\\z/g, "$(?![\\s\\S])");
  let re: RegExp;
  try {
    re = new RegExp(`^(?:${body})$`, flags + "u");
  } catch {
    try {
      re = new RegExp(`^(?:${body})$`, flags);
    } catch (err) {
      throw new RegexError((err as Error).message);
    }
  }
  if (cache.size > 1000) cache.clear();
  cache.set(source, re);
  return re;
}

/** a predicate for one matcher; a missing label matches as the empty string */
export function matcherPredicate(m: Matcher): (value: string) => boolean {
  switch (m.type) {
    case "=":
      return (v) => v === m.value;
    case "!=":
      return (v) => v !== m.value;
    case "=~": {
      const re = anchoredRegex(m.value);
      return (v) => re.test(v);
    }
    case "!~": {
      const re = anchoredRegex(m.value);
      return (v) => !re.test(v);
    }
  }
}

/** whether a series' labels satisfy every matcher */
export function matchesAll(matchers: Matcher[], labels: Labels): boolean {
  return matchers.every((m) => matcherPredicate(m)(labels[m.name] ?? ""));
}
