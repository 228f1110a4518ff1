// The LBAC rewriting as pure functions: rule parsing, OR-ing rules into one
// set of matchers, and injecting it into every stream selector of a query.
// Every rewritten query is also read back by the log store's own parser, so
// the quoting is checked against the reader that will see it.
import { describe, expect, it } from "vitest";
import { combineRules, injectMatchers, parseRule, quoteMeta } from "../../../../src/apps/dashboard/core/datasources/logql-inject.ts";
import { quoteGo, unquoteGo, type LabelMatcher } from "../../../../src/apps/dashboard/core/datasources/logql-matchers.ts";
import { parseLogQL, type Query } from "../../../../src/apps/logstore/core/logql/parse.ts";
import { ApiError } from "../../../../src/lib/errors.ts";

const m = (name: string, op: LabelMatcher["op"], value: string): LabelMatcher => ({ name, op, value });
const PROD = [m("env", "=", "prod")];

/** the status and message of what fn throws */
function failure(fn: () => unknown): { status: number; message: string } {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error("expected an ApiError");
}

/** every stream selector's matchers, as the log store reads the query */
function storeSelectors(q: string): Array<Array<[string, string, string]>> {
  const out: Array<Array<[string, string, string]>> = [];
  const walk = (node: Query): void => {
    if (node.kind === "log") out.push(node.matchers.map((x) => [x.name, x.op, x.value]));
    else if (node.kind === "range") walk(node.query);
    else walk(node.inner);
  };
  walk(parseLogQL(q));
  return out;
}

describe("injectMatchers: one restriction", () => {
  it("adds the matchers to a log query's selector and keeps the pipeline", () => {
    const out = injectMatchers('{app="api"} |= "error" | json', PROD);
    expect(out).toBe('{app="api", env="prod"} |= "error" | json');
    expect(storeSelectors(out)).toEqual([[["app", "=", "api"], ["env", "=", "prod"]]]);
  });

  it("rewrites EVERY selector of a metric query with a binary operation", () => {
    const q = 'sum by (app) (rate({app="api"}[5m])) / sum by (app) (count_over_time({app!="web"} | logfmt [5m]))';
    const out = injectMatchers(q, PROD);
    expect(out).toBe('sum by (app) (rate({app="api", env="prod"}[5m])) / sum by (app) (count_over_time({app!="web", env="prod"} | logfmt [5m]))');
    expect(storeSelectors(out.split(" / ")[0]!)).toEqual([[["app", "=", "api"], ["env", "=", "prod"]]]);
  });

  it("rewrites selectors under and/or/unless with on(), label_replace and comparison", () => {
    const q = 'count_over_time({a="1"}[1m]) > 2 and on(a) label_replace(rate({b="2"}[1m]), "x", "$1", "a", "(.*)") or vector(1)';
    const out = injectMatchers(q, PROD);
    expect(out).toBe(
      'count_over_time({a="1", env="prod"}[1m]) > 2 and on(a) label_replace(rate({b="2", env="prod"}[1m]), "x", "$1", "a", "(.*)") or vector(1)',
    );
  });

  it("a bare selector (match[] of series, query of labels) -> the selector with the rule", () => {
    expect(injectMatchers('{job=~"api.*"}', PROD)).toBe('{job=~"api.*", env="prod"}');
    expect(injectMatchers("  ", PROD)).toBe('{env="prod"}');
  });

  it("re-renders regex matchers and backtick strings with Go quoting", () => {
    const out = injectMatchers("{path=~`/api/v[0-9]+\\.json`, app=~\"a|b\"}", PROD);
    expect(out).toBe('{path=~"/api/v[0-9]+\\\\.json", app=~"a|b", env="prod"}');
    expect(storeSelectors(out)).toEqual([[["path", "=~", "/api/v[0-9]+\\.json"], ["app", "=~", "a|b"], ["env", "=", "prod"]]]);
  });

  it("keeps quotes, backslashes and escapes in values, decoded and encoded again", () => {
    const out = injectMatchers('{msg="say \\"hi\\" \\\\ now\\t\\x41\\101\\u00e9\\U0001F600"}', PROD);
    expect(storeSelectors(out)).toEqual([[["msg", "=", 'say "hi" \\ now\tAAé😀'], ["env", "=", "prod"]]]);
  });

  it("a value that looks like matchers stays one value: the rule is still there", () => {
    // the caller tries to close the selector inside a value and widen it
    const q = '{app="x\\"}, env=~\\".*"} |= "y"';
    const out = injectMatchers(q, PROD);
    expect(storeSelectors(out)).toEqual([[["app", "=", 'x"}, env=~".*'], ["env", "=", "prod"]]]);
  });

  it("a selector inside a comment is text, and the real selector is restricted", () => {
    const q = '{app="x"} # {env="dev"}\n|= "a"';
    const out = injectMatchers(q, PROD);
    expect(out).toBe('{app="x", env="prod"} # {env="dev"}\n|= "a"');
    expect(storeSelectors(out)).toEqual([[["app", "=", "x"], ["env", "=", "prod"]]]);
  });

  it("the caller's own matcher on the same label stays: both must hold", () => {
    expect(injectMatchers('{env="dev"}', PROD)).toBe('{env="dev", env="prod"}');
    expect(injectMatchers('{env="prod"}', PROD)).toBe('{env="prod"}');
  });

  it("a restriction value with quotes and newlines is quoted, never pasted", () => {
    const out = injectMatchers('{app="x"}', [m("team", "=", 'a"} or {b="c\nd')]);
    expect(out).toBe('{app="x", team="a\\"} or {b=\\"c\\nd"}');
    expect(storeSelectors(out)).toEqual([[["app", "=", "x"], ["team", "=", 'a"} or {b="c\nd']]]);
  });

  it("a query that does not parse -> 400 with the parse error", () => {
    expect(failure(() => injectMatchers('{app="x"', PROD))).toEqual({ status: 400, message: "parse error at line 1, col 9: syntax error: unexpected $end" });
    expect(failure(() => injectMatchers('{app="x"} |= ', PROD)).status).toBe(400);
    expect(failure(() => injectMatchers("{}", PROD)).status).toBe(400);
    expect(failure(() => injectMatchers("{app='x'}", PROD)).status).toBe(400);
  });

  it("invalid string literals -> 400 (Go refuses them too)", () => {
    expect(failure(() => injectMatchers('{a="\\q"}', PROD)).message).toContain("invalid escape sequence");
    expect(failure(() => injectMatchers("{a=\"\\'\"}", PROD)).message).toContain("invalid escape sequence");
    expect(failure(() => injectMatchers('{a="\\xff"}', PROD)).message).toContain("not valid UTF-8");
    expect(failure(() => injectMatchers('{a="\\ud800"}', PROD)).message).toContain("invalid Unicode code point");
  });
});

describe("Go string literals", () => {
  it("unquote: escapes, UTF-8 bytes, raw strings without carriage returns", () => {
    expect(unquoteGo('"\\xc3\\xa9\\a\\v"')).toBe("é\x07\v");
    expect(unquoteGo("`a\\n\r\nb`")).toBe("a\\n\nb");
    expect(() => unquoteGo('"\\400"')).toThrow();
    expect(() => unquoteGo('"\\x4"')).toThrow();
  });

  it("quote: reads back as the same value, control characters escaped", () => {
    for (const v of ['a"b', "back\\slash", "tab\tnew\nline", "\u0000\u007f\u0085", "é😀", "\u2028"]) {
      const q = quoteGo(v);
      expect(q).not.toMatch(/[\n\r\u0000-\u001f\u007f-\u009f\u2028]/);
      expect(unquoteGo(q)).toBe(v);
      expect(JSON.parse(q)).toBe(v);
    }
  });
});

describe("parseRule", () => {
  it("a stream selector -> its matchers", () => {
    expect(parseRule('{ service_name="api", team=~"a|b" }')).toEqual([m("service_name", "=", "api"), m("team", "=~", "a|b")]);
  });

  it("anything but a bare selector -> 400 naming the rule", () => {
    for (const bad of ['{a="b"} |= "x"', 'rate({a="b"}[1m])', "{}", "", "a=b", '{a="b"', '{a=~"("}', '{a="b"} or {c="d"}']) {
      const f = failure(() => parseRule(bad, "rules[0].rules[1]"));
      expect(f.status).toBe(400);
      expect(f.message).toContain(`rules[0].rules[1]: ${JSON.stringify(bad)} is not a valid label selector`);
    }
  });
});

describe("combineRules: OR of rules as one set of matchers", () => {
  const rule = (text: string) => parseRule(text);

  it("one rule, or the same rule twice -> its matchers", () => {
    expect(combineRules([rule('{env="prod"}')])).toEqual(PROD);
    expect(combineRules([rule('{env="prod"}'), rule('{ env="prod" }')])).toEqual(PROD);
  });

  it("a rule implied by a broader one is dropped", () => {
    expect(combineRules([rule('{env="prod", team="a"}'), rule('{env="prod"}')])).toEqual(PROD);
  });

  it("rules differing in one label's = / =~ matcher -> one anchored alternation", () => {
    const out = combineRules([rule('{env="prod", team="a.b"}'), rule('{env="prod", team=~"c|d+"}'), rule('{team="e", env="prod"}')]);
    expect(out).toEqual([m("env", "=", "prod"), m("team", "=~", "a\\.b|(?:c|d+)|e")]);
    const re = new RegExp(`^(?:${out[1]!.value})$`, "u");
    for (const yes of ["a.b", "c", "dd", "e"]) expect(re.test(yes)).toBe(true);
    for (const no of ["axb", "a.bc", "cd", "ee", ""]) expect(re.test(no)).toBe(false);
  });

  it("quoteMeta escapes every regex metacharacter", () => {
    const s = "a.b+c*d?e(f)g|h[i]j{k}l^m$n\\o";
    expect(new RegExp(`^${quoteMeta(s)}$`, "u").test(s)).toBe(true);
  });

  it("rules that one selector cannot express exactly -> 403 saying why", () => {
    const twoLabels = failure(() => combineRules([rule('{env="prod", team="a"}'), rule('{env="dev", team="b"}')]));
    expect(twoLabels.status).toBe(403);
    expect(twoLabels.message).toContain("differ in more than one label (env, team)");
    const negative = failure(() => combineRules([rule('{env!="dev"}'), rule('{env="x"}')]));
    expect(negative).toEqual({ status: 403, message: expect.stringContaining("negative matcher (env!=)") });
    const several = failure(() => combineRules([rule('{env=~"p.*", env!="pre"}'), rule('{env="dev"}')]));
    expect(several.message).toContain("several matchers on label env");
  });

  it("the combined restriction injected: a caller gets streams of at least one rule", () => {
    const out = injectMatchers('{app="api"}', combineRules([rule('{team="a"}'), rule('{team="b"}')]));
    expect(out).toBe('{app="api", team=~"a|b"}');
  });
});
