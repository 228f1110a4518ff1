// Binary operators: scalar arithmetic, vector/scalar, one-to-one and
// many-to-one vector matching, comparison filters vs bool, set operators, and
// the matching errors Prometheus reports as 422.
import { describe, expect, it } from "vitest";
import { instantQuery, rangeQuery } from "../../../src/apps/metrics/core/promql/index.ts";
import { errorOf, MemoryQuerier, sec } from "./fixture.ts";

const at = (value: number): Array<[number, number]> => [[sec(100), value]];
const q = new MemoryQuerier([
  { labels: { __name__: "a", job: "x", i: "1" }, samples: at(2) },
  { labels: { __name__: "a", job: "x", i: "2" }, samples: at(4) },
  { labels: { __name__: "b", job: "x", i: "1" }, samples: at(3) },
  { labels: { __name__: "b", job: "x", i: "2" }, samples: at(5) },
  { labels: { __name__: "c", job: "x", i: "1", extra: "e" }, samples: at(10) },
  { labels: { __name__: "info", job: "x", version: "v1" }, samples: at(1) },
]);

const vec = async (query: string) => {
  const r = await instantQuery(q, query, sec(100));
  if (r.resultType !== "vector") throw new Error(r.resultType);
  return r.result.map((s): [Record<string, string>, string] => [s.metric, s.value[1]]);
};
const scalar = async (query: string) => {
  const r = await instantQuery(q, query, sec(100));
  if (r.resultType !== "scalar") throw new Error(r.resultType);
  return r.result[1];
};

describe("scalar arithmetic", () => {
  it("1+1 is the scalar 2 (the data source health check)", async () => {
    expect(await instantQuery(q, "1+1", 1_700_000_000_123)).toEqual({ resultType: "scalar", result: [1_700_000_000.123, "2"] });
  });

  it("precedence and associativity as Prometheus's grammar", async () => {
    expect(await scalar("2 + 3 * 4")).toBe("14");
    expect(await scalar("2 ^ 3 ^ 2")).toBe("512"); // 2^(3^2)
    expect(await scalar("-1 ^ 2")).toBe("-1"); // -(1^2)
    expect(await scalar("(1 + 2) * 3")).toBe("9");
    expect(await scalar("10 % 3")).toBe("1");
    expect(await scalar("-7 % 3")).toBe("-1"); // Go's math.Mod keeps the dividend's sign
    expect(await scalar("1 ^ NaN")).toBe("1"); // Go's math.Pow
  });

  it("division by zero and comparisons with bool", async () => {
    expect(await scalar("1 / 0")).toBe("+Inf");
    expect(await scalar("-1 / 0")).toBe("-Inf");
    expect(await scalar("0 / 0")).toBe("NaN");
    expect(await scalar("1 == bool 1")).toBe("1");
    expect(await scalar("2 < bool 1")).toBe("0");
  });
});

describe("vector and scalar", () => {
  it("arithmetic applies to each sample and drops the name", async () => {
    expect(await vec("a * 2")).toEqual([[{ i: "1", job: "x" }, "4"], [{ i: "2", job: "x" }, "8"]]);
    expect(await vec("10 - a")).toEqual([[{ i: "1", job: "x" }, "8"], [{ i: "2", job: "x" }, "6"]]);
  });

  it("a comparison filters and keeps the sample, name included, whichever side the scalar is on", async () => {
    expect(await vec("a > 3")).toEqual([[{ __name__: "a", i: "2", job: "x" }, "4"]]);
    expect(await vec("3 < a")).toEqual([[{ __name__: "a", i: "2", job: "x" }, "4"]]);
  });

  it("with bool it keeps every sample as 0 or 1 and drops the name", async () => {
    expect(await vec("a > bool 3")).toEqual([[{ i: "1", job: "x" }, "0"], [{ i: "2", job: "x" }, "1"]]);
  });
});

describe("vector and vector", () => {
  it("one-to-one on all labels but the name", async () => {
    expect(await vec("a + b")).toEqual([[{ i: "1", job: "x" }, "5"], [{ i: "2", job: "x" }, "9"]]);
    expect(await vec("a / b")).toEqual([
      [{ i: "1", job: "x" }, String(2 / 3)],
      [{ i: "2", job: "x" }, "0.8"],
    ]);
  });

  it("unmatched samples are dropped", async () => {
    expect(await vec("a + c")).toEqual([]);
  });

  it("on(...) matches on the listed labels only and keeps only them", async () => {
    expect(await vec("a - on(i) b")).toEqual([[{ i: "1" }, "-1"], [{ i: "2" }, "-1"]]);
  });

  it("ignoring(...) matches on everything else", async () => {
    expect(await vec("c - ignoring(extra) a")).toEqual([[{ i: "1", job: "x" }, "8"]]);
  });

  it("comparisons filter the left side and keep its name; bool keeps every match as 0/1", async () => {
    expect(await vec("a < b")).toEqual([[{ __name__: "a", i: "1", job: "x" }, "2"], [{ __name__: "a", i: "2", job: "x" }, "4"]]);
    expect(await vec("a == b")).toEqual([]);
    expect(await vec("a >= bool b")).toEqual([[{ i: "1", job: "x" }, "0"], [{ i: "2", job: "x" }, "0"]]);
  });

  it("group_left copies labels from the one side to each many-side match", async () => {
    expect(await vec("a * on(job) group_left(version) info")).toEqual([
      [{ i: "1", job: "x", version: "v1" }, "2"],
      [{ i: "2", job: "x", version: "v1" }, "4"],
    ]);
  });

  it("group_right is the mirror image", async () => {
    expect(await vec("info * on(job) group_right(version) b")).toEqual([
      [{ i: "1", job: "x", version: "v1" }, "3"],
      [{ i: "2", job: "x", version: "v1" }, "5"],
    ]);
  });

  it("duplicates on the one side are a 422 naming the match group and both series", async () => {
    const err = await errorOf(() => instantQuery(q, "info + on(job) b", sec(100)));
    expect(err.status).toBe(422);
    expect(err.message).toBe(
      'found duplicate series for the match group {job="x"} on the right hand-side of the operation: ' +
        '[{__name__="b", i="2", job="x"}, {__name__="b", i="1", job="x"}];' +
        "many-to-many matching not allowed: matching labels must be unique on one side",
    );
  });

  it("many matches on the left without group_left are a 422", async () => {
    const err = await errorOf(() => instantQuery(q, "a + on(job) info", sec(100)));
    expect([err.status, err.message]).toEqual([
      422,
      "multiple matches for labels: many-to-one matching must be explicit (group_left/group_right)",
    ]);
  });

  it("group_left whose results collide is a 422", async () => {
    // a{i="1"} and b{i="1"} both match c{i="1"}; without their names the two results are the same series
    const err = await errorOf(() => instantQuery(q, '{__name__=~"a|b", i="1"} + on(i) group_left c', sec(100)));
    expect([err.status, err.message]).toEqual([422, "multiple matches for labels: grouping labels must ensure unique matches"]);
  });
});

describe("set operators", () => {
  it("and keeps left samples with a match on the right", async () => {
    expect(await vec('a and b{i="1"}')).toEqual([[{ __name__: "a", i: "1", job: "x" }, "2"]]);
    expect(await vec("a and on(job) info")).toHaveLength(2);
  });

  it("or adds right samples whose signature the left lacks", async () => {
    expect((await vec("a or c")).map(([m]) => m.__name__)).toEqual(["a", "a", "c"]);
    expect((await vec("a or on(i) c")).map(([m]) => m.__name__)).toEqual(["a", "a"]);
    expect(await vec("nope or b")).toHaveLength(2);
  });

  it("unless keeps left samples without a match", async () => {
    expect(await vec('a unless b{i="1"}')).toEqual([[{ __name__: "a", i: "2", job: "x" }, "4"]]);
    expect(await vec("a unless nope")).toHaveLength(2);
  });
});

describe("over a range", () => {
  it("matches step by step", async () => {
    const r = new MemoryQuerier([
      { labels: { __name__: "up", job: "a" }, samples: [[0, 1], [sec(60), 0], [sec(120), 1]] },
      { labels: { __name__: "up", job: "b" }, samples: [[0, 1], [sec(60), 1], [sec(120), 1]] },
    ]);
    expect(await rangeQuery(r, "up == 0", 0, sec(120), sec(60))).toEqual({
      resultType: "matrix",
      result: [{ metric: { __name__: "up", job: "a" }, values: [[60, "0"]] }],
    });
    expect(await rangeQuery(r, "sum(up) / count(up)", 0, sec(120), sec(60))).toEqual({
      resultType: "matrix",
      result: [{ metric: {}, values: [[0, "1"], [60, "0.5"], [120, "1"]] }],
    });
  });
});
