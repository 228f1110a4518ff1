// The step and $__interval rules of the real prometheus and loki plugins.
import { describe, expect, it } from "vitest";
import {
  formatInterval, goDuration, interpolate, lokiStep, parseIntervalText, prometheusStep, prometheusVariables, roundInterval,
} from "../../../../src/apps/dashboard/core/queries/query-step.ts";

const H = 3_600_000;

describe("query steps", () => {
  it("roundInterval, formatInterval and Go's duration text", () => {
    expect([roundInterval(36_000), roundInterval(327), roundInterval(3_000), roundInterval(100 * H)]).toEqual([30_000, 200, 2_000, 24 * H]);
    expect([formatInterval(15_000), formatInterval(90_000), formatInterval(500), formatInterval(2 * 86_400_000)]).toEqual(["15s", "1m", "500ms", "2d"]);
    expect([goDuration(15_000), goDuration(60_000), goDuration(H), goDuration(1_500), goDuration(500), goDuration(0)]).toEqual(["15s", "1m0s", "1h0m0s", "1.5s", "500ms", "0s"]);
  });

  it("parseIntervalText: bare seconds, brackets, Go durations, days; junk -> 400 naming the field", () => {
    expect([parseIntervalText("30", "i"), parseIntervalText("<10m>", "i"), parseIntervalText("1m30s", "i"), parseIntervalText("2d", "i")]).toEqual([30_000, 600_000, 90_000, 172_800_000]);
    expect(() => parseIntervalText("soon", "interval")).toThrow(/interval: "soon"/);
  });

  it("prometheus: at least the minimum step, about maxDataPoints points, never over 11,000 points", () => {
    const base = { fromMs: 0, toMs: H, intervalMs: 0, maxDataPoints: 100 };
    expect(prometheusStep(base)).toBe(30_000); // 36 s rounded down to 30 s
    expect(prometheusStep({ ...base, maxDataPoints: 1000 })).toBe(15_000); // 3.6 s is under the 15 s default minimum
    expect(prometheusStep({ ...base, maxDataPoints: 10_000, intervalMs: 2_000 })).toBe(2_000);
    expect(prometheusStep({ ...base, maxDataPoints: 1000, intervalMs: 2_000 })).toBe(5_000); // 3.6 s rounded to 5 s
    expect(prometheusStep({ ...base, maxDataPoints: 100_000, interval: "1s" })).toBe(1_000);
    expect(prometheusStep({ ...base, toMs: 1000 * H, maxDataPoints: 1_000_000, interval: "1s" })).toBe(5 * 60_000); // safe: 327 s -> 5m
    expect(prometheusStep({ ...base, maxDataPoints: 1000, scrapeInterval: "1m" })).toBe(60_000);
    expect(prometheusStep({ ...base, maxDataPoints: 1000, interval: "$__rate_interval" })).toBe(60_000); // max(15+15, 4x15) s
  });

  it("prometheus variables: $__interval, $__rate_interval, $__range", () => {
    const input = { fromMs: 0, toMs: H, intervalMs: 30_000, maxDataPoints: 100 };
    const vars = prometheusVariables(input, prometheusStep(input));
    expect(prometheusStep(input)).toBe(30_000);
    expect(interpolate("rate(x[$__rate_interval]) / $__interval_ms / ${__interval} [$__range] $__range_s", vars))
      .toBe("rate(x[1m0s]) / 30000 / 30s [3600s] 3600");
  });

  it("loki: the query's step, else max(interval, range / 11,000) in whole ms", () => {
    expect(lokiStep("10s", 1000, H)).toBe(10_000);
    expect(lokiStep(undefined, 1000, H)).toBe(1000);
    expect(lokiStep(undefined, 1000, 100 * H)).toBe(32_728);
    expect(lokiStep(undefined, 2000, H, 2)).toBe(4000);
  });
});
