// Result shapes as Prometheus's HTTP API writes them (reference §10): vector,
// matrix, scalar and string results, float-second timestamps, Go-formatted
// sample values, and the ruler's instant-vector evaluation.
import { describe, expect, it } from "vitest";
import {
  evaluateInstantVector, formatSampleValue, instantQuery, parsePromQL, PromQLParseError, rangeQuery,
} from "../../../src/apps/metrics/core/promql/index.ts";
import { errorOf, MemoryQuerier, samplesEvery, sec } from "./fixture.ts";

const q = new MemoryQuerier([
  // 0, 1, 2, ... every 15s from 0s to 300s
  { labels: { __name__: "counter_total", job: "b" }, samples: samplesEvery(0, sec(15), 21, (i) => i) },
  { labels: { __name__: "counter_total", job: "a" }, samples: samplesEvery(0, sec(15), 21, (i) => 2 * i) },
  // only until 60s
  { labels: { __name__: "short" }, samples: samplesEvery(0, sec(30), 3, () => 7) },
]);

describe("sample values are written as Go's strconv.FormatFloat, as Prometheus's JSON", () => {
  it("integers, fractions and the special values", () => {
    expect(formatSampleValue(1)).toBe("1");
    expect(formatSampleValue(0.5)).toBe("0.5");
    expect(formatSampleValue(-2.25)).toBe("-2.25");
    expect(formatSampleValue(NaN)).toBe("NaN");
    expect(formatSampleValue(Infinity)).toBe("+Inf");
    expect(formatSampleValue(-Infinity)).toBe("-Inf");
    expect(formatSampleValue(-0)).toBe("-0");
    expect(formatSampleValue(1 / 3)).toBe("0.3333333333333333");
  });

  it("an exponent below 1e-6 and from 1e21, with at least two digits", () => {
    expect(formatSampleValue(1e20)).toBe("100000000000000000000");
    expect(formatSampleValue(1e21)).toBe("1e+21");
    expect(formatSampleValue(1.5e300)).toBe("1.5e+300");
    expect(formatSampleValue(0.000001)).toBe("0.000001");
    expect(formatSampleValue(1e-7)).toBe("1e-07");
    expect(formatSampleValue(-2.5e-10)).toBe("-2.5e-10");
  });
});

describe("instant queries", () => {
  it("a vector: metric and [seconds, value]", async () => {
    expect(await instantQuery(q, 'counter_total{job="a"}', 60_250)).toEqual({
      resultType: "vector",
      result: [{ metric: { __name__: "counter_total", job: "a" }, value: [60.25, "8"] }],
    });
  });

  it("a scalar and a string", async () => {
    expect(await instantQuery(q, "vector(1) and on() vector(1)", 1000)).toEqual({ resultType: "vector", result: [{ metric: {}, value: [1, "1"] }] });
    expect(await instantQuery(q, "pi()", 1000)).toEqual({ resultType: "scalar", result: [1, String(Math.PI)] });
    expect(await instantQuery(q, '"hello"', 1000)).toEqual({ resultType: "string", result: [1, "hello"] });
  });

  it("a subquery at the top: the inner steps in (T - range, T]", async () => {
    const r = await instantQuery(q, 'counter_total{job="a"}[1m:30s]', sec(300));
    expect(r).toEqual({
      resultType: "matrix",
      result: [{ metric: { __name__: "counter_total", job: "a" }, values: [[270, "36"], [300, "40"]] }],
    });
  });

  it("accepts a parsed expression as well as text", async () => {
    const expr = parsePromQL("sum(counter_total)");
    expect(await instantQuery(q, expr, sec(30))).toEqual({ resultType: "vector", result: [{ metric: {}, value: [30, "6"] }] });
  });

  it("a parse error is a PromQLParseError for the caller to wrap as a 400", async () => {
    const err = await errorOf(() => instantQuery(q, "up{", 0));
    expect(err).toBeInstanceOf(PromQLParseError);
    expect(err.message).toBe("1:4: parse error: unexpected end of input inside braces");
  });
});

describe("range queries", () => {
  it("a matrix sorted by labels, values at start, start+step, ... <= end, times in float seconds", async () => {
    const r = await rangeQuery(q, "counter_total", sec(0), sec(40), sec(20));
    expect(r).toEqual({
      resultType: "matrix",
      result: [
        // 0s, 20s (sample of 15s), 40s (sample of 30s)
        { metric: { __name__: "counter_total", job: "a" }, values: [[0, "0"], [20, "2"], [40, "4"]] },
        { metric: { __name__: "counter_total", job: "b" }, values: [[0, "0"], [20, "1"], [40, "2"]] },
      ],
    });
  });

  it("a scalar becomes one series without labels", async () => {
    expect(await rangeQuery(q, "time() * 2", sec(1.5), sec(3.5), sec(1))).toEqual({
      resultType: "matrix",
      result: [{ metric: {}, values: [[1.5, "3"], [2.5, "5"], [3.5, "7"]] }],
    });
  });

  it("series without points are left out; a series stops after the lookback", async () => {
    const r = await rangeQuery(q, "short", sec(300), sec(420), sec(60), { lookbackDelta: 300_000 });
    // the last sample (60s) is seen until 360s, exclusive
    expect(r).toEqual({ resultType: "matrix", result: [{ metric: { __name__: "short" }, values: [[300, "7"]] }] });
    expect(await rangeQuery(q, "nope", 0, sec(60), sec(15))).toEqual({ resultType: "matrix", result: [] });
  });

  it("rate over a steady counter: 2 per 15s on job a", async () => {
    const r = await rangeQuery(q, "rate(counter_total[1m])", sec(120), sec(180), sec(60));
    expect(r.resultType).toBe("matrix");
    if (r.resultType !== "matrix") return;
    expect(r.result.map((s) => [s.metric.job, s.values.map(([t, v]) => [t, Number(v).toFixed(6)])])).toEqual([
      ["a", [[120, (2 / 15).toFixed(6)], [180, (2 / 15).toFixed(6)]]],
      ["b", [[120, (1 / 15).toFixed(6)], [180, (1 / 15).toFixed(6)]]],
    ]);
  });

  it("a thousand series over a thousand steps", async () => {
    const big = new MemoryQuerier(
      Array.from({ length: 1000 }, (_, i) => ({
        labels: { __name__: "req_total", job: `j${i % 10}`, instance: `i${i}` },
        samples: samplesEvery(0, sec(15), 1100, (k) => k * (i + 1)),
      })),
    );
    const r = await rangeQuery(big, "sum by (job) (rate(req_total[5m]))", sec(300), sec(300 + 999 * 15), sec(15));
    expect(r.resultType === "matrix" && r.result.map((s) => s.values.length)).toEqual(Array(10).fill(1000));
  });
});

describe("evaluateInstantVector (the ruler)", () => {
  it("returns labels and numbers", async () => {
    expect(await evaluateInstantVector(q, "sum by (job) (counter_total)", sec(30))).toEqual([
      { labels: { job: "a" }, value: 4 },
      { labels: { job: "b" }, value: 2 },
    ]);
  });

  it("a scalar becomes one sample without labels", async () => {
    expect(await evaluateInstantVector(q, "1 + 1", sec(30))).toEqual([{ labels: {}, value: 2 }]);
  });

  it("a range vector is refused", async () => {
    const err = await errorOf(() => evaluateInstantVector(q, "counter_total[1m]", sec(30)));
    expect(err.status).toBe(422);
  });
});
