// PromQL parsing: the typed tree built from Prometheus's lezer grammar, and
// parse errors in Prometheus's words and positions (reference §10).
import { describe, expect, it } from "vitest";
import { parsePromQL, PromQLParseError, selectorsOf } from "../../../src/apps/metrics/core/promql/index.ts";
import type { Expr } from "../../../src/apps/metrics/core/promql/index.ts";

const message = (query: string): string => {
  try {
    parsePromQL(query);
  } catch (err) {
    expect(err).toBeInstanceOf(PromQLParseError);
    return (err as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(query)} to fail`);
};

describe("parsePromQL: the tree", () => {
  it("reads a metric name and every matcher type, the name's matcher last", () => {
    const e = parsePromQL('http_requests_total{job="api", code!="500", path=~"/v1/.*", method!~"GET|HEAD"}');
    expect(e.kind).toBe("vectorSelector");
    if (e.kind !== "vectorSelector") return;
    expect(e.name).toBe("http_requests_total");
    expect(e.matchers).toEqual([
      { type: "=", name: "job", value: "api" },
      { type: "!=", name: "code", value: "500" },
      { type: "=~", name: "path", value: "/v1/.*" },
      { type: "!~", name: "method", value: "GET|HEAD" },
      { type: "=", name: "__name__", value: "http_requests_total" },
    ]);
    expect(e.offset).toBe(0);
  });

  it("reads a name given inside the braces, quoted or as __name__", () => {
    const quoted = parsePromQL('{"my.metric", a="b"}');
    expect(quoted.kind === "vectorSelector" && quoted.matchers).toEqual([
      { type: "=", name: "__name__", value: "my.metric" },
      { type: "=", name: "a", value: "b" },
    ]);
    const regex = parsePromQL('{__name__=~"a|b"}');
    expect(regex.kind === "vectorSelector" && regex.matchers).toEqual([{ type: "=~", name: "__name__", value: "a|b" }]);
  });

  it("reads an aggregation over a range function with offset, modifier before or after", () => {
    const before = parsePromQL('sum by (job) (rate(x{a="b"}[5m] offset 1m))');
    const after = parsePromQL('sum(rate(x{a="b"}[5m] offset 1m)) by (job)');
    for (const e of [before, after]) {
      expect(e.kind).toBe("aggregate");
      if (e.kind !== "aggregate") continue;
      expect(e.op).toBe("sum");
      expect(e.grouping).toEqual(["job"]);
      expect(e.without).toBe(false);
      const call = e.expr;
      expect(call.kind === "call" && call.func).toBe("rate");
      if (call.kind !== "call") continue;
      const ms = call.args[0]!;
      expect(ms.kind).toBe("matrixSelector");
      if (ms.kind !== "matrixSelector") continue;
      expect(ms.range).toBe(300_000);
      expect(ms.selector.offset).toBe(60_000);
    }
  });

  it("reads without, topk's parameter, bool and vector matching", () => {
    const w = parsePromQL("sum without (instance) (x)");
    expect(w.kind === "aggregate" && [w.without, w.grouping]).toEqual([true, ["instance"]]);
    const k = parsePromQL("topk(3, x)");
    expect(k.kind === "aggregate" && k.param).toMatchObject({ kind: "number", value: 3 });
    const b = parsePromQL("a > bool on(job) group_left(version) b");
    expect(b.kind).toBe("binary");
    if (b.kind !== "binary") return;
    expect(b.op).toBe(">");
    expect(b.returnBool).toBe(true);
    expect(b.matching).toEqual({ card: "many-to-one", on: true, labels: ["job"], include: ["version"] });
    const set = parsePromQL("a and ignoring(x) b");
    expect(set.kind === "binary" && set.matching).toEqual({ card: "many-to-many", on: false, labels: ["x"], include: [] });
  });

  it("drops vector matching between a scalar and a vector, as Prometheus's checker", () => {
    const e = parsePromQL("x * 2");
    expect(e.kind === "binary" && e.matching).toBeUndefined();
  });

  it("reads numbers as Go does (hex, octal, exponents, Inf, NaN) and durations as seconds", () => {
    const value = (q: string) => {
      const e = parsePromQL(q);
      return e.kind === "number" ? e.value : undefined;
    };
    expect(value("0x1F")).toBe(31);
    expect(value("0755")).toBe(493); // Go's base-0 ParseInt: a leading 0 is octal
    expect(value("5e-3")).toBe(0.005);
    expect(value(".5")).toBe(0.5);
    expect(value("-Inf")).toBe(-Infinity);
    expect(value("NaN")).toBeNaN();
    expect(value("1m")).toBe(60);
    expect(value("-1")).toBe(-1);
  });

  it("gives unary minus a lower precedence than ^, as Prometheus's grammar: -1^2 is -(1^2)", () => {
    const e = parsePromQL("-1^2");
    expect(e.kind).toBe("unary");
    if (e.kind !== "unary") return;
    expect(e.expr.kind === "binary" && e.expr.op).toBe("^");
    // 2^3^2 is right-associative: 2^(3^2)
    const pow = parsePromQL("2 ^ 3 ^ 2");
    expect(pow.kind === "binary" && pow.rhs.kind).toBe("binary");
  });

  it("reads @ timestamps (seconds to ms), @ start() and negative offsets", () => {
    const at = parsePromQL("x @ 1609746000");
    expect(at.kind === "vectorSelector" && at.at).toEqual({ time: 1_609_746_000_000 });
    const start = parsePromQL("rate(x[5m] @ start())");
    expect(start.kind === "call" && start.args[0]!.kind === "matrixSelector" && start.args[0]!.selector.at).toEqual({ preprocessor: "start" });
    const neg = parsePromQL("x offset -5m");
    expect(neg.kind === "vectorSelector" && neg.offset).toBe(-300_000);
  });

  it("binds offset, @, ranges and subqueries tighter than operators, as Prometheus's grammar", () => {
    const e = parsePromQL("a + x offset 1m");
    expect(e.kind).toBe("binary");
    if (e.kind !== "binary") return;
    expect(e.lhs.kind === "vectorSelector" && e.lhs.offset).toBe(0);
    expect(e.rhs.kind === "vectorSelector" && e.rhs.offset).toBe(60_000);
    const at = parsePromQL("a * -x @ 10");
    expect(at.kind === "binary" && at.rhs.kind === "unary" && at.rhs.expr.kind === "vectorSelector" && at.rhs.expr.at).toEqual({ time: 10_000 });
    expect(message("-x[5m]")).toBe('1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got "range vector"');
    expect(message("a + x[5m:1m]")).toBe("1:5: parse error: binary expression must contain only scalar and instant vector types");
  });

  it("reads subqueries with and without a step", () => {
    const e = parsePromQL("max_over_time(rate(x[1m])[30m:1m])");
    expect(e.kind).toBe("call");
    if (e.kind !== "call") return;
    const sq = e.args[0]!;
    expect(sq.kind === "subquery" && [sq.range, sq.step]).toEqual([1_800_000, 60_000]);
    const noStep = parsePromQL("x[5m:]");
    expect(noStep.kind === "subquery" && noStep.step).toBeUndefined();
  });

  it("unquotes Go strings: escapes, single quotes and raw strings", () => {
    const e = parsePromQL(`label_join(x, "dst", '\\t', \`a\\b\`)`);
    expect(e.kind).toBe("call");
    if (e.kind !== "call") return;
    expect(e.args.slice(1).map((a) => (a.kind === "string" ? a.value : ""))).toEqual(["dst", "\t", "a\\b"]);
  });

  it("lists the matchers of every selector (selectorsOf)", () => {
    const e: Expr = parsePromQL('sum(rate(a{x="1"}[5m])) / on() group_left b + max_over_time(c[5m:1m])');
    expect(selectorsOf(e).map((ms) => ms.find((m) => m.name === "__name__")?.value)).toEqual(["a", "b", "c"]);
  });
});

describe("parsePromQL: errors in Prometheus's words", () => {
  it("an unclosed brace: the reference's example", () => {
    expect(message("up{")).toBe("1:4: parse error: unexpected end of input inside braces");
  });

  it("an empty query has no position; a blank one is at 1:1", () => {
    expect(message("")).toBe("unknown position: parse error: no expression found in input");
    expect(message("   ")).toBe("1:1: parse error: no expression found in input");
    expect(message("# only a comment\n")).toBe("1:1: parse error: no expression found in input");
  });

  it("an unknown function is named, at the name", () => {
    expect(message("foo(x)")).toBe('1:1: parse error: unknown function with name "foo"');
    expect(message("a > bar()")).toBe('1:5: parse error: unknown function with name "bar"');
  });

  it("experimental functions and aggregations are refused", () => {
    expect(message("sort_by_label(x, \"a\")")).toBe('1:1: parse error: function "sort_by_label" is not enabled');
    expect(message("limitk(2, x)")).toBe(
      "1:1: parse error: limitk() is experimental and must be enabled with --enable-feature=promql-experimental-functions",
    );
  });

  it("type errors: a range function given an instant vector, and the reverse", () => {
    expect(message("rate(up)")).toBe('1:6: parse error: expected type range vector in call to function "rate", got instant vector');
    expect(message("abs(up[5m])")).toBe('1:5: parse error: expected type instant vector in call to function "abs", got range vector');
    expect(message("sum(up[5m])")).toBe("1:5: parse error: expected type instant vector in aggregation expression, got range vector");
    expect(message("topk(x, y)")).toBe("1:6: parse error: expected type scalar in aggregation parameter, got instant vector");
  });

  it("argument counts", () => {
    expect(message("rate()")).toBe('1:1: parse error: expected 1 argument(s) in call to "rate", got 0');
    expect(message("round(x, 1, 2)")).toBe('1:1: parse error: expected at most 2 argument(s) in call to "round", got 3');
    expect(message("label_join(x)")).toBe('1:1: parse error: expected at least 3 argument(s) in call to "label_join", got 1');
    expect(message("topk(x)")).toBe("1:1: parse error: wrong number of arguments for aggregate expression provided, expected 2, got 1");
  });

  it("a selector must have a matcher that does not match the empty string", () => {
    expect(message('{job=""}')).toBe("1:1: parse error: vector selector must contain at least one non-empty matcher");
    expect(message('{job=~".*"}')).toBe("1:1: parse error: vector selector must contain at least one non-empty matcher");
    expect(message('foo{__name__="bar"}')).toBe('1:1: parse error: metric name must not be set twice: "foo" or "bar"');
  });

  it("binary operator rules", () => {
    expect(message("1 == 1")).toBe("1:3: parse error: comparisons between scalars must use BOOL modifier");
    expect(message("1 and 1")).toBe('1:1: parse error: set operator "and" not allowed in binary scalar expression');
    expect(message("a + bool b")).toBe("1:3: parse error: bool modifier can only be used on comparison operators");
    expect(message("a and on(x) group_left b")).toBe('1:1: parse error: no grouping allowed for "and" operation');
    expect(message("x[5m] + 1")).toBe("1:1: parse error: binary expression must contain only scalar and instant vector types");
    expect(message('-"a"')).toBe('1:1: parse error: unary expression only allowed on expressions of type scalar or instant vector, got "string"');
  });

  it("modifiers in the wrong place", () => {
    expect(message("1 offset 1d")).toBe(
      "1:1: parse error: offset modifier must be preceded by an instant vector selector or range vector selector or a subquery",
    );
    expect(message("x offset 1s offset 2s")).toBe("1:1: parse error: offset may not be set multiple times");
    expect(message("rate(x[5m])[1m]")).toBe("1:12: parse error: ranges only allowed for vector selectors");
  });

  it("lexical errors: parentheses, strings, characters", () => {
    expect(message("x)")).toBe("1:3: parse error: unexpected right parenthesis ')'");
    expect(message("((1)")).toBe("1:5: parse error: unclosed left parenthesis");
    expect(message('x{a="b}')).toBe("1:5: parse error: unterminated quoted string");
    expect(message('"abc')).toBe("1:1: parse error: unterminated quoted string");
    expect(message("x $ y")).toBe("1:3: parse error: unexpected character: '$'");
    expect(message("1 =~ 1")).toBe("1:3: parse error: unexpected character after '=': '~'");
  });

  it("syntax errors name the unexpected token", () => {
    expect(message("1 +")).toBe("1:4: parse error: unexpected end of input");
    expect(message("*1")).toBe("1:1: parse error: unexpected <op:*>");
    expect(message("a b")).toBe('1:3: parse error: unexpected identifier "b"');
    expect(message("sum x")).toBe('1:5: parse error: unexpected identifier "x" in aggregation');
    expect(message("foo{bar}")).toBe('1:8: parse error: unexpected "}" in label matching, expected label matching operator');
    expect(message("sum(x) by (a b)")).toBe('1:14: parse error: unexpected identifier "b" in grouping opts, expected "," or ")"');
  });

  it("positions count lines and byte columns", () => {
    expect(message("sum(\n  rate(up)\n)")).toBe('2:8: parse error: expected type range vector in call to function "rate", got instant vector');
  });

  it("an invalid regular expression is reported", () => {
    expect(message('x{a=~"("}')).toMatch(/^1:3: parse error: error parsing regexp: /);
  });
});
