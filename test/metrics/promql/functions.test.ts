// PromQL functions against hand-computed values (Prometheus's
// promql/functions.go semantics): extrapolated rates, *_over_time, instant
// vector functions, label functions and histogram_quantile.
import { describe, expect, it } from "vitest";
import { instantQuery, rangeQuery, type QueryResult } from "../../../src/apps/metrics/core/promql/index.ts";
import { errorOf, MemoryQuerier, sec } from "./fixture.ts";

const q = new MemoryQuerier([
  // a counter with a reset at 60s: 0 10 20 30 | 5 15 25, every 15s
  {
    labels: { __name__: "c_total", job: "a" },
    samples: [[0, 0], [sec(15), 10], [sec(30), 20], [sec(45), 30], [sec(60), 5], [sec(75), 15], [sec(90), 25]],
  },
  // a gauge that only covers part of a window
  { labels: { __name__: "g" }, samples: [[sec(50), 1], [sec(60), 2], [sec(70), 3]] },
  // a counter starting near zero inside the window
  { labels: { __name__: "c3_total" }, samples: [[sec(45), 1], [sec(60), 11], [sec(75), 21]] },
  // values for the *_over_time functions: 3 1 4 1 5 at 10s..50s
  { labels: { __name__: "m", job: "x" }, samples: [[sec(10), 3], [sec(20), 1], [sec(30), 4], [sec(40), 1], [sec(50), 5]] },
  { labels: { __name__: "v", i: "1" }, samples: [[sec(100), -1.5]] },
  { labels: { __name__: "v", i: "2" }, samples: [[sec(100), 2.25]] },
  { labels: { __name__: "v", i: "3" }, samples: [[sec(100), 9]] },
  { labels: { __name__: "info", instance: "host-1:9100", job: "node" }, samples: [[sec(100), 1]] },
  { labels: { __name__: "up", instance: "a", job: "j" }, samples: [[sec(100), 1]] },
  { labels: { __name__: "up", instance: "b", job: "j" }, samples: [[sec(100), 1]] },
  { labels: { __name__: "up2", instance: "a", job: "j" }, samples: [[sec(100), 2]] },
]);

const vector = async (query: string, t: number): Promise<Array<[Record<string, string>, number]>> => {
  const r: QueryResult = await instantQuery(q, query, sec(t));
  if (r.resultType !== "vector") throw new Error(`vector expected, got ${r.resultType}`);
  return r.result.map((s) => [s.metric, Number(s.value[1])]);
};
const one = async (query: string, t: number): Promise<number> => {
  const v = await vector(query, t);
  expect(v).toHaveLength(1);
  return v[0]![1];
};

describe("rate, increase, delta: Prometheus's extrapolatedRate", () => {
  // Window (30s, 90s]: samples 45s=30, 60s=5, 75s=15, 90s=25.
  // Raw increase 25-30 = -5, plus the 30 lost at the reset at 60s = 25.
  // First sample 15s after the window start: within 1.1 x the average interval (15s), so extrapolate
  // the full 15s; the counter would reach zero 45s x 30/25 = 54s back, further than 15s, no limit.
  // Last sample at the window end. Factor (45 + 15 + 0) / 45 = 4/3.
  it("increase corrects the counter reset and extrapolates to the window start", async () => {
    expect(await one("increase(c_total[1m])", 90)).toBeCloseTo((25 * 60) / 45, 12);
  });

  it("rate is increase per second of the range", async () => {
    expect(await one("rate(c_total[1m])", 90)).toBeCloseTo((25 * 60) / 45 / 60, 12);
  });

  it("delta does not treat the drop as a reset", async () => {
    // -5 extrapolated by the same factor 4/3
    expect(await one("delta(c_total[1m])", 90)).toBeCloseTo((-5 * 60) / 45, 12);
  });

  it("a sample far from an edge extrapolates only half an interval there", async () => {
    // window (40s, 100s]: 50s=1, 60s=2, 70s=3; avg interval 10s, threshold 11s.
    // start gap 10s < 11s: full 10s; end gap 30s >= 11s: only 5s. (20 + 10 + 5) / 20 x 2 = 3.5
    expect(await one("delta(g[1m])", 100)).toBe(3.5);
  });

  it("a counter is not extrapolated below zero", async () => {
    // window (15s, 75s]: 45s=1, 60s=11, 75s=21: increase 20 over 30s; start gap 30s >= 16.5s -> 7.5s,
    // but zero is reached 30s x 1/20 = 1.5s before the first sample: (30 + 1.5) / 30 x 20 = 21
    expect(await one("increase(c3_total[1m])", 75)).toBeCloseTo(21, 12);
  });

  it("needs two samples in the window; drops the metric name", async () => {
    expect(await vector("rate(c_total[10s])", 90)).toEqual([]);
    expect((await vector("rate(c_total[1m])", 90))[0]![0]).toEqual({ job: "a" });
  });

  it("the window is open on the left: a sample exactly range ago is out", async () => {
    // (45s, 90s]: 60s=5, 75s=15, 90s=25 -> 20 over 30s, start gap 15s <= 16.5s: (30 + 15) / 30 x 20 = 30;
    // zero point 30s x 5/20 = 7.5s back is nearer than 15s: (30 + 7.5) / 30 x 20 = 25
    expect(await one("increase(c_total[45s])", 90)).toBeCloseTo(25, 12);
  });
});

describe("irate and idelta: the last two samples", () => {
  it("irate after a reset is the new value over the interval", async () => {
    expect(await one("irate(c_total[1m])", 90)).toBeCloseTo(10 / 15, 12); // (25 - 15) / 15s
    expect(await one("irate(c_total[1m])", 60)).toBeCloseTo(5 / 15, 12); // reset 30 -> 5: 5 / 15s
  });

  it("idelta is the plain difference", async () => {
    expect(await one("idelta(c_total[1m])", 60)).toBe(-25);
  });
});

describe("*_over_time over (20s, 50s] = 4, 1, 5", () => {
  const cases: Array<[string, number]> = [
    ["sum_over_time", 10],
    ["count_over_time", 3],
    ["min_over_time", 1],
    ["max_over_time", 5],
    ["last_over_time", 5],
    ["present_over_time", 1],
  ];
  for (const [fn, want] of cases) {
    it(`${fn} = ${want}`, async () => {
      expect(await one(`${fn}(m[30s])`, 50)).toBe(want);
    });
  }

  it("avg, stdvar and stddev", async () => {
    expect(await one("avg_over_time(m[30s])", 50)).toBeCloseTo(10 / 3, 12);
    // deviations from 10/3: 2/3, -7/3, 5/3 -> squares 4/9 + 49/9 + 25/9 = 78/9, / 3 = 26/9
    expect(await one("stdvar_over_time(m[30s])", 50)).toBeCloseTo(26 / 9, 12);
    expect(await one("stddev_over_time(m[30s])", 50)).toBeCloseTo(Math.sqrt(26 / 9), 12);
  });

  it("quantile_over_time interpolates between ranks", async () => {
    expect(await one("quantile_over_time(0.5, m[30s])", 50)).toBe(4);
    // sorted 1 4 5, rank 0.25 x 2 = 0.5: 1 + (4 - 1) x 0.5
    expect(await one("quantile_over_time(0.25, m[30s])", 50)).toBe(2.5);
  });

  it("changes, resets, deriv and predict_linear", async () => {
    expect(await one("changes(m[30s])", 50)).toBe(2);
    expect(await one("resets(m[30s])", 50)).toBe(1);
    // least squares over (30,4) (40,1) (50,5): slope = sum((x-40)(y-10/3)) / sum((x-40)^2) = 10 / 200
    expect(await one("deriv(m[30s])", 50)).toBeCloseTo(0.05, 12);
    // value at 50s on the line: 10/3 + 0.05 x 10, then 10s further: + 0.5
    expect(await one("predict_linear(m[30s], 10)", 50)).toBeCloseTo(10 / 3 + 1, 12);
  });

  it("last_over_time keeps the metric name, the others drop it", async () => {
    expect((await vector("last_over_time(m[30s])", 50))[0]![0]).toEqual({ __name__: "m", job: "x" });
    expect((await vector("max_over_time(m[30s])", 50))[0]![0]).toEqual({ job: "x" });
  });

  it("absent_over_time is 1 with the selector's equality labels when nothing is in range", async () => {
    expect(await vector('absent_over_time(m{job="x"}[5s])', 55)).toEqual([[{ job: "x" }, 1]]);
    expect(await vector('absent_over_time(m{job="x"}[30s])', 50)).toEqual([]);
  });

  it("over a subquery: max of the 10s-step values of m in (10s, 50s]", async () => {
    // steps 20s..50s see 1, 4, 1, 5
    expect(await one("max_over_time(m[40s:10s])", 50)).toBe(5);
    expect(await one("count_over_time(m[40s:10s])", 50)).toBe(4);
  });
});

describe("instant-vector functions", () => {
  it("math functions drop the name and map each value", async () => {
    expect(await vector("abs(v)", 100)).toEqual([[{ i: "1" }, 1.5], [{ i: "2" }, 2.25], [{ i: "3" }, 9]]);
    expect((await vector("ceil(v)", 100)).map((s) => s[1])).toEqual([-1, 3, 9]);
    expect((await vector("floor(v)", 100)).map((s) => s[1])).toEqual([-2, 2, 9]);
    expect((await vector("sqrt(v)", 100)).map((s) => s[1])).toEqual([NaN, 1.5, 3]);
    expect((await vector("sgn(v)", 100)).map((s) => s[1])).toEqual([-1, 1, 1]);
  });

  it("round to 1 or to a given nearest, ties up", async () => {
    expect((await vector("round(v)", 100)).map((s) => s[1])).toEqual([-1, 2, 9]);
    expect((await vector("round(v, 0.5)", 100)).map((s) => s[1])).toEqual([-1.5, 2.5, 9]);
  });

  it("clamp, clamp_min, clamp_max; clamp with max < min returns nothing", async () => {
    expect((await vector("clamp(v, 0, 5)", 100)).map((s) => s[1])).toEqual([0, 2.25, 5]);
    expect((await vector("clamp_min(v, 0)", 100)).map((s) => s[1])).toEqual([0, 2.25, 9]);
    expect((await vector("clamp_max(v, 2)", 100)).map((s) => s[1])).toEqual([-1.5, 2, 2]);
    expect(await vector("clamp(v, 5, 0)", 100)).toEqual([]);
  });

  it("sort and sort_desc order an instant result by value and keep the name", async () => {
    expect((await vector("sort_desc(v)", 100)).map((s) => s[0].i)).toEqual(["3", "2", "1"]);
    expect((await vector("sort(-v)", 100)).map((s) => s[0].i)).toEqual(["3", "2", "1"]);
    expect((await vector("sort(v)", 100))[0]![0]).toEqual({ __name__: "v", i: "1" });
  });

  it("time(), vector(), scalar()", async () => {
    expect(await instantQuery(q, "time()", sec(100))).toEqual({ resultType: "scalar", result: [100, "100"] });
    expect(await vector("vector(2)", 100)).toEqual([[{}, 2]]);
    expect(await instantQuery(q, 'scalar(v{i="2"})', sec(100))).toEqual({ resultType: "scalar", result: [100, "2.25"] });
    // more than one sample: NaN
    expect(await instantQuery(q, "scalar(v)", sec(100))).toEqual({ resultType: "scalar", result: [100, "NaN"] });
  });

  it("absent: 1 with the selector's equality labels when nothing matches, nothing otherwise", async () => {
    expect(await vector('absent(nope{job="x", env=~"p.*"})', 100)).toEqual([[{ job: "x" }, 1]]);
    expect(await vector("absent(v)", 100)).toEqual([]);
    expect(await vector("absent(sum(nope))", 100)).toEqual([[{}, 1]]);
  });

  it("timestamp: the sample's own time for a selector, the step's time otherwise", async () => {
    expect(await vector('timestamp(v{i="1"})', 160)).toEqual([[{ i: "1" }, 100]]);
    expect(await vector('timestamp(abs(v{i="1"}))', 160)).toEqual([[{ i: "1" }, 160]]);
  });

  it("date functions read the value as a Unix time, or the evaluation time", async () => {
    // 2024-02-29T13:45:00Z = 1709214300
    expect(await vector("hour(vector(1709214300))", 100)).toEqual([[{}, 13]]);
    expect(await vector("minute(vector(1709214300))", 100)).toEqual([[{}, 45]]);
    expect(await vector("day_of_month(vector(1709214300))", 100)).toEqual([[{}, 29]]);
    expect(await vector("day_of_week(vector(1709214300))", 100)).toEqual([[{}, 4]]);
    expect(await vector("day_of_year(vector(1709214300))", 100)).toEqual([[{}, 60]]);
    expect(await vector("days_in_month(vector(1709214300))", 100)).toEqual([[{}, 29]]);
    expect(await vector("month(vector(1709214300))", 100)).toEqual([[{}, 2]]);
    expect(await vector("year()", 100)).toEqual([[{}, 1970]]);
  });
});

describe("label_replace and label_join", () => {
  it("label_replace sets a label from a regex match, keeping the name", async () => {
    expect(await vector('label_replace(info, "host", "$1", "instance", "(.*):.*")', 100)).toEqual([
      [{ __name__: "info", host: "host-1", instance: "host-1:9100", job: "node" }, 1],
    ]);
  });

  it("label_replace leaves series whose source does not match the (anchored) regex", async () => {
    expect((await vector('label_replace(info, "host", "$1", "instance", "host")', 100))[0]![0]).toEqual({
      __name__: "info",
      instance: "host-1:9100",
      job: "node",
    });
  });

  it("expands like Go: ${1}, named groups, $$, and $1x as the (missing) group 1x", async () => {
    const dst = async (repl: string) => (await vector(`label_replace(info, "d", "${repl}", "instance", "(?P<h>[^:]+):(.*)")`, 100))[0]![0].d;
    expect(await dst("${1}x")).toBe("host-1x");
    expect(await dst("$h/$2")).toBe("host-1/9100");
    expect(await dst("$$1")).toBe("$1");
    expect(await dst("$1x")).toBeUndefined(); // empty: the label is not set
  });

  it("label_join joins source labels with a separator", async () => {
    expect((await vector('label_join(info, "id", "/", "job", "instance", "missing")', 100))[0]![0].id).toBe("node/host-1:9100/");
  });

  it("label_replace making two series equal at one step is a 422", async () => {
    const err = await errorOf(() => instantQuery(q, 'label_replace(up, "instance", "", "instance", ".*")', sec(100)));
    expect(err.status).toBe(422);
    expect(err.message).toBe("vector cannot contain metrics with the same labelset");
  });

  it("an invalid regex in label_replace is a 422", async () => {
    const err = await errorOf(() => instantQuery(q, 'label_replace(up, "x", "", "instance", "(")', sec(100)));
    expect([err.status, err.message]).toEqual([422, "invalid regular expression in label_replace(): ("]);
  });
});

describe("vector cannot contain metrics with the same labelset", () => {
  it("a function dropping the name of two metrics with otherwise equal labels", async () => {
    const err = await errorOf(() => instantQuery(q, 'abs({__name__=~"up|up2", instance="a"})', sec(100)));
    expect([err.status, err.message]).toEqual([422, "vector cannot contain metrics with the same labelset"]);
  });

  it("a range function, even when the two never overlap in time", async () => {
    const q2 = new MemoryQuerier([
      { labels: { __name__: "a_total" }, samples: [[0, 1], [sec(10), 2]] },
      { labels: { __name__: "b_total" }, samples: [[sec(600), 1], [sec(610), 2]] },
    ]);
    const err = await errorOf(() => rangeQuery(q2, 'rate({__name__=~"a_total|b_total"}[1m])', 0, sec(700), sec(10)));
    expect(err.status).toBe(422);
  });

  it("an instant-vector function joins equal label sets that do not overlap in time", async () => {
    const q2 = new MemoryQuerier([
      { labels: { __name__: "a" }, samples: [[0, 1]] },
      { labels: { __name__: "b" }, samples: [[sec(600), 2]] },
    ]);
    const r = await rangeQuery(q2, 'abs({__name__=~"a|b"})', 0, sec(600), sec(300));
    // at 300s the sample at 0s is exactly 5m old: out of the left-open lookback window
    expect(r).toEqual({ resultType: "matrix", result: [{ metric: {}, values: [[0, "1"], [600, "2"]] }] });
  });
});

const buckets = (name: string, job: string, counts: Array<[string, number]>) =>
  counts.map(([le, v]) => ({ labels: { __name__: name, job, le }, samples: [[sec(100), v]] as Array<[number, number]> }));

describe("histogram_quantile over classic buckets", () => {
  const h = new MemoryQuerier([
    // 10 at or below 0.1, 30 at or below 0.5, 40 at or below 1, 50 in all
    ...buckets("rq_bucket", "a", [["0.1", 10], ["0.5", 30], ["1", 40], ["+Inf", 50]]),
    ...buckets("rq_bucket", "b", [["0.1", 0], ["0.5", 0], ["1", 0], ["+Inf", 0]]),
    ...buckets("noinf_bucket", "a", [["0.1", 1], ["1", 2]]),
    // not monotonic: 0.5 has fewer than 0.1
    ...buckets("bad_bucket", "a", [["0.1", 10], ["0.5", 8], ["1", 15], ["+Inf", 20]]),
    ...buckets("x_bucket", "a", [["1", 1], ["+Inf", 2]]),
    ...buckets("y_bucket", "a", [["1", 1], ["+Inf", 2]]),
  ]);
  const hq = async (query: string) => {
    const r = await instantQuery(h, query, sec(100));
    if (r.resultType !== "vector") throw new Error(r.resultType);
    return r.result.map((s) => [s.metric, s.value[1]]);
  };

  it("interpolates inside the bucket holding the rank", async () => {
    // rank 0.5 x 50 = 25 falls in (0.1, 0.5] holding 20: 0.1 + 0.4 x (25 - 10) / 20
    const [labels, value] = (await hq('histogram_quantile(0.5, rq_bucket{job="a"})'))[0]!;
    expect(labels).toEqual({ job: "a" });
    expect(Number(value)).toBeCloseTo(0.4, 12);
    // rank 5 in the first bucket, lower bound 0: 0.1 x 5 / 10
    expect(Number((await hq('histogram_quantile(0.1, rq_bucket{job="a"})'))[0]![1])).toBeCloseTo(0.05, 12);
  });

  it("a rank in the +Inf bucket gives the highest finite bound", async () => {
    expect(await hq('histogram_quantile(0.9, rq_bucket{job="a"})')).toEqual([[{ job: "a" }, "1"]]);
  });

  it("φ outside [0, 1] gives ±Inf, no observations or no +Inf bucket give NaN", async () => {
    expect(await hq('histogram_quantile(1.5, rq_bucket{job="a"})')).toEqual([[{ job: "a" }, "+Inf"]]);
    expect(await hq('histogram_quantile(-1, rq_bucket{job="a"})')).toEqual([[{ job: "a" }, "-Inf"]]);
    expect(await hq('histogram_quantile(0.5, rq_bucket{job="b"})')).toEqual([[{ job: "b" }, "NaN"]]);
    expect(await hq("histogram_quantile(0.5, noinf_bucket)")).toEqual([[{ job: "a" }, "NaN"]]);
  });

  it("forces monotonic counts before searching", async () => {
    // counts become 10 10 15 20; rank 10 is reached in the first bucket: 0.1 x 10 / 10
    expect(await hq("histogram_quantile(0.5, bad_bucket)")).toEqual([[{ job: "a" }, "0.1"]]);
  });

  it("works on summed rates grouped by le", async () => {
    const r = new MemoryQuerier(
      [["0.1", 10], ["0.5", 30], ["+Inf", 40]].flatMap(([le, perMinute]) =>
        ["1", "2"].map((instance) => ({
          labels: { __name__: "lat_bucket", le: le as string, instance },
          samples: Array.from({ length: 5 }, (_, i): [number, number] => [sec(60 * i), i * (perMinute as number)]),
        })),
      ),
    );
    const res = await instantQuery(r, "histogram_quantile(0.5, sum by (le) (rate(lat_bucket[5m])))", sec(240));
    // per instance rates 10/60, 30/60, 40/60 (x2 summed); rank 0.5 x 80/60 = 40/60 in (0.1, 0.5]:
    // 0.1 + 0.4 x (40 - 20) / (60 - 20)
    expect(res.resultType === "vector" && Number(res.result[0]!.value[1])).toBeCloseTo(0.3, 12);
  });

  it("two histograms whose labels collide once the name is dropped are a 422", async () => {
    const err = await errorOf(() => instantQuery(h, 'histogram_quantile(0.5, {__name__=~"x_bucket|y_bucket"})', sec(100)));
    expect([err.status, err.message]).toEqual([422, "vector cannot contain metrics with the same labelset"]);
  });
});
