// Aggregation operators with by / without in both positions, topk / bottomk,
// count_values and quantile, against hand-computed values.
import { describe, expect, it } from "vitest";
import { instantQuery, rangeQuery } from "../../../src/apps/metrics/core/promql/index.ts";
import { newBudget } from "../../../src/apps/metrics/core/query-budget.ts";
import { errorOf, MemoryQuerier, sec } from "./fixture.ts";

const at = (value: number): Array<[number, number]> => [[sec(100), value]];
const q = new MemoryQuerier([
  { labels: { __name__: "http_requests", job: "api", instance: "1", method: "GET" }, samples: at(10) },
  { labels: { __name__: "http_requests", job: "api", instance: "2", method: "POST" }, samples: at(20) },
  { labels: { __name__: "http_requests", job: "web", instance: "1", method: "GET" }, samples: at(30) },
  { labels: { __name__: "http_requests", job: "web", instance: "2", method: "GET" }, samples: at(40) },
  { labels: { __name__: "odd", i: "1" }, samples: at(1) },
  { labels: { __name__: "odd", i: "2" }, samples: at(NaN) },
  { labels: { __name__: "odd", i: "3" }, samples: at(3) },
]);

const result = async (query: string) => {
  const r = await instantQuery(q, query, sec(100));
  if (r.resultType !== "vector") throw new Error(r.resultType);
  return r.result.map((s): [Record<string, string>, string] => [s.metric, s.value[1]]);
};

describe("sum, avg, min, max, count, group", () => {
  it("without grouping: one series with no labels", async () => {
    expect(await result("sum(http_requests)")).toEqual([[{}, "100"]]);
    expect(await result("avg(http_requests)")).toEqual([[{}, "25"]]);
    expect(await result("min(http_requests)")).toEqual([[{}, "10"]]);
    expect(await result("max(http_requests)")).toEqual([[{}, "40"]]);
    expect(await result("count(http_requests)")).toEqual([[{}, "4"]]);
    expect(await result("group(http_requests)")).toEqual([[{}, "1"]]);
  });

  it("by (job), written before or after the argument", async () => {
    const want = [[{ job: "api" }, "30"], [{ job: "web" }, "70"]];
    expect(await result("sum by (job) (http_requests)")).toEqual(want);
    expect(await result("sum(http_requests) by (job)")).toEqual(want);
    expect(await result("avg by (job) (http_requests)")).toEqual([[{ job: "api" }, "15"], [{ job: "web" }, "35"]]);
    expect(await result("count by (method) (http_requests)")).toEqual([[{ method: "GET" }, "3"], [{ method: "POST" }, "1"]]);
  });

  it("by a label some series lack groups those under its absence", async () => {
    expect(await result("sum by (nope) (http_requests)")).toEqual([[{}, "100"]]);
  });

  it("without (...) keeps every other label but the name; groups in the order their first series come", async () => {
    // series come sorted by labels: instance="1" (api, web) before instance="2"
    expect(await result("sum without (instance) (http_requests)")).toEqual([
      [{ job: "api", method: "GET" }, "10"],
      [{ job: "web", method: "GET" }, "70"],
      [{ job: "api", method: "POST" }, "20"],
    ]);
    expect(await result("count(http_requests) without (instance, method)")).toEqual([[{ job: "api" }, "2"], [{ job: "web" }, "2"]]);
    expect(await result("max without () (http_requests)")).toHaveLength(4);
    expect((await result("max without () (http_requests)"))[0]![0]).toEqual({ instance: "1", job: "api", method: "GET" });
  });

  it("by (__name__) keeps the name", async () => {
    expect(await result("count by (__name__) (http_requests)")).toEqual([[{ __name__: "http_requests" }, "4"]]);
  });

  it("over nothing: an empty vector", async () => {
    expect(await result("sum(nope)")).toEqual([]);
    expect(await result("count(nope)")).toEqual([]);
  });

  it("NaN: sum propagates it, max/min skip it unless it is all there is", async () => {
    expect(await result("sum(odd)")).toEqual([[{}, "NaN"]]);
    expect(await result("max(odd)")).toEqual([[{}, "3"]]);
    expect(await result("min(odd)")).toEqual([[{}, "1"]]);
  });
});

describe("stddev, stdvar, quantile", () => {
  it("population variance: mean 25, squared deviations 225 + 25 + 25 + 225 = 500, / 4", async () => {
    expect(await result("stdvar(http_requests)")).toEqual([[{}, "125"]]);
    expect(Number((await result("stddev(http_requests)"))[0]![1])).toBeCloseTo(Math.sqrt(125), 12);
    expect(await result("stddev by (job) (http_requests)")).toEqual([[{ job: "api" }, "5"], [{ job: "web" }, "5"]]);
  });

  it("quantile interpolates between ranks: 10 20 30 40", async () => {
    expect(await result("quantile(0.5, http_requests)")).toEqual([[{}, "25"]]); // rank 1.5
    expect(await result("quantile(0.9, http_requests)")).toEqual([[{}, "37"]]); // rank 2.7: 30 x 0.3 + 40 x 0.7
    expect(await result("quantile(0, http_requests)")).toEqual([[{}, "10"]]);
    expect(await result("quantile(2, http_requests)")).toEqual([[{}, "+Inf"]]);
  });
});

describe("topk and bottomk", () => {
  it("keep the input labels (name included), largest first", async () => {
    expect(await result("topk(2, http_requests)")).toEqual([
      [{ __name__: "http_requests", instance: "2", job: "web", method: "GET" }, "40"],
      [{ __name__: "http_requests", instance: "1", job: "web", method: "GET" }, "30"],
    ]);
  });

  it("per group, smallest first for bottomk", async () => {
    expect((await result("bottomk(1, http_requests) by (job)")).map(([m, v]) => [m.job, m.instance, v])).toEqual([
      ["api", "1", "10"],
      ["web", "1", "30"],
    ]);
  });

  it("k below 1 gives nothing, k beyond the input gives everything, NaN last", async () => {
    expect(await result("topk(0, http_requests)")).toEqual([]);
    expect(await result("topk(10, http_requests)")).toHaveLength(4);
    expect((await result("topk(3, odd)")).map(([m]) => m.i)).toEqual(["3", "1", "2"]);
  });

  it("a NaN parameter is a 422", async () => {
    const err = await errorOf(() => instantQuery(q, "topk(scalar(odd{i='2'}), http_requests)", sec(100)));
    expect([err.status, err.message]).toEqual([422, "Parameter value is NaN"]);
  });

  it("in a range query each series appears at the steps it was in the top", async () => {
    const moving = new MemoryQuerier([
      { labels: { __name__: "x", s: "a" }, samples: [[0, 1], [sec(60), 3]] },
      { labels: { __name__: "x", s: "b" }, samples: [[0, 2], [sec(60), 1]] },
    ]);
    expect(await rangeQuery(moving, "topk(1, x)", 0, sec(60), sec(60))).toEqual({
      resultType: "matrix",
      result: [
        { metric: { __name__: "x", s: "a" }, values: [[60, "3"]] },
        { metric: { __name__: "x", s: "b" }, values: [[0, "2"]] },
      ],
    });
  });
});

describe("count_values", () => {
  it("counts series per value, the value as a label", async () => {
    const cv = new MemoryQuerier([
      { labels: { __name__: "version", i: "1", job: "a" }, samples: at(2) },
      { labels: { __name__: "version", i: "2", job: "a" }, samples: at(2) },
      { labels: { __name__: "version", i: "3", job: "b" }, samples: at(0.5) },
    ]);
    const r = await instantQuery(cv, 'count_values("v", version)', sec(100));
    expect(r.resultType === "vector" && r.result.map((s) => [s.metric, s.value[1]])).toEqual([
      [{ v: "2" }, "2"],
      [{ v: "0.5" }, "1"],
    ]);
    const byJob = await instantQuery(cv, 'count_values by (job) ("v", version)', sec(100));
    expect(byJob.resultType === "vector" && byJob.result.map((s) => s.metric)).toEqual([
      { job: "a", v: "2" },
      { job: "b", v: "0.5" },
    ]);
  });
});

describe("an aggregation over a range function, folded", () => {
  // counters with resets, a stale marker, NaN and ±Inf values, series of other metrics and a __type__ label
  const series = (name: string, extra: Record<string, string>, value: (i: number) => number | "stale") =>
    ({ labels: { __name__: name, ...extra }, samples: Array.from({ length: 40 }, (_, i): [number, number | "stale"] => [sec(i * 7), value(i)]) });
  const ranged = new MemoryQuerier([
    series("c", { job: "a", instance: "1" }, (i) => (i % 13 === 12 ? 1 : i * 3)),
    series("c", { job: "a", instance: "2" }, (i) => (i === 20 ? "stale" : i * 5.5)),
    series("c", { job: "b", instance: "1" }, (i) => i * 0.1 + 1e16),
    series("c", { job: "b", instance: "2" }, (i) => (i === 30 ? NaN : i)),
    series("c", { job: "c", instance: "1" }, (i) => (i > 35 ? Infinity : -i)),
    series("d", { job: "a", instance: "1" }, (i) => i * 2),
    series("e", { job: "a", __type__: "counter" }, (i) => i),
    series("e", { job: "a", __type__: "gauge" }, (i) => i + 1),
  ]);
  const value = async (query: string, time: number, budget?: ReturnType<typeof newBudget>) => {
    try {
      return await instantQuery(ranged, query, time, budget ? { budget } : {});
    } catch (err) {
      return { error: String(err) };
    }
  };

  it("gives what the aggregation of the function's vector gives, at one time and over steps, samples counted alike", async () => {
    const ops = ["sum", "avg", "count", "min", "max", "group", "stddev", "stdvar"];
    const functions = ["rate(c[1m])", "increase(c[30s])", "irate(c[1m])", "delta(c[2m])", "last_over_time(c[1m])", "last_over_time({__name__=~\"c|d\"}[1m])",
      "quantile_over_time(0.3, c[1m])", "avg_over_time(c[1m])", "resets(c[5m])", "rate(e[1m])", "deriv(c[1m])", "rate(c[1m] offset 1m)", "rate(c[1m] @ 100)"];
    for (const fn of functions) {
      for (const op of ops) {
        for (const grouping of ["", " by (job)", " without (instance)", " by (__name__)"]) {
          for (const time of [sec(60), sec(150), sec(273), sec(400)]) {
            // parentheses keep the function's vector as it is: the aggregation then takes the general path
            const folded = `${op}${grouping} (${fn})`;
            const general = `${op}${grouping} ((${fn}))`;
            expect({ folded, time, v: await value(folded, time) }).toEqual({ folded, time, v: await value(general, time) });
          }
          // and over a range of steps (evaluated in slices, each folded)
          const folded = `${op}${grouping} (${fn})`;
          const general = `${op}${grouping} ((${fn}))`;
          const range = async (query: string) => {
            try {
              return await rangeQuery(ranged, query, sec(20), sec(400), sec(13));
            } catch (err) {
              return { error: String(err) };
            }
          };
          expect({ folded, v: await range(folded) }).toEqual({ folded, v: await range(general) });
        }
      }
    }
    // the max samples limit: refused (or not) alike, at the same count
    for (const limit of [1, 3, 4, 5, 6, 8, 100]) {
      for (const query of ["sum by (job) (rate(c[1m]))", "max(last_over_time(c[1m]))"]) {
        const folded = await value(query, sec(150), newBudget(0, 0, limit));
        const general = await value(query.replace(/\((\w+\(.*\))\)$/, "(($1))"), sec(150), newBudget(0, 0, limit));
        expect({ query, limit, folded }).toEqual({ query, limit, folded: general });
      }
    }
  });
});
