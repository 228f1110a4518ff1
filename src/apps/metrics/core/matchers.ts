// Label matchers as Prometheus evaluates them: a missing label is the empty
// value, regular expressions are anchored at both ends.
import type { Labels, Matcher } from "./types.ts";

export interface CompiledMatcher extends Matcher {
  test(value: string): boolean;
}

const cache = new Map<string, RegExp>();

function anchored(source: string): RegExp {
  let re = cache.get(source);
  if (!re) {
    re = new RegExp(`^(?:${source})$`, "su");
    if (cache.size > 1000) cache.clear();
    cache.set(source, re);
  }
  return re;
}

export function compileMatcher(m: Matcher): CompiledMatcher {
  switch (m.type) {
    case "=":
      return { ...m, test: (v) => v === m.value };
    case "!=":
      return { ...m, test: (v) => v !== m.value };
    case "=~": {
      const re = anchored(m.value);
      return { ...m, test: (v) => re.test(v) };
    }
    case "!~": {
      const re = anchored(m.value);
      return { ...m, test: (v) => !re.test(v) };
    }
  }
}

export const matchesLabels = (matchers: readonly CompiledMatcher[], labels: Labels) => matchers.every((m) => m.test(labels[m.name] ?? ""));
