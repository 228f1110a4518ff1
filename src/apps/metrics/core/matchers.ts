// Label matchers, shared by the series index and PromQL. Prometheus anchors
// every matcher regex as ^(?s:re)$ and compiles it with Go's RE2; so does
// src/lib/re2.ts (linear time, RE2 syntax and messages). A missing label is
// the empty value.
import { compileAnchored, type Regex } from "../../../lib/re2.ts";
import type { Labels, Matcher } from "./types.ts";

export { RegexSyntaxError } from "../../../lib/re2.ts";

/** compiles an RE2 pattern, fully anchored, dot matching newlines; throws RegexSyntaxError */
export function anchoredRegex(source: string): Regex {
  return compileAnchored(source);
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
