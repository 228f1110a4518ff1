// GET /metrics' formats (lib/http/metrics-exposition.ts): which one an Accept
// header asks for, and Prometheus's text rewritten as OpenMetrics 1.0.
import { describe, expect, it } from "vitest";
import { prefersOpenMetrics, toOpenMetrics } from "../../src/lib/http/metrics-exposition.ts";

describe("metrics exposition formats", () => {
  it("Accept: OpenMetrics preferred by Prometheus's header, by q, or first of equals; text/plain, */* or none -> Prometheus text", () => {
    expect(prefersOpenMetrics("application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")).toBe(true);
    expect(prefersOpenMetrics("text/plain;q=0.4, application/openmetrics-text; version=1.0.0; q=0.9")).toBe(true);
    expect(prefersOpenMetrics("application/openmetrics-text, text/plain")).toBe(true);
    expect(prefersOpenMetrics("text/plain, application/openmetrics-text")).toBe(false);
    expect(prefersOpenMetrics("text/plain;version=0.0.4")).toBe(false);
    expect(prefersOpenMetrics("*/*")).toBe(false);
    expect(prefersOpenMetrics("application/openmetrics-text;q=0")).toBe(false);
    expect(prefersOpenMetrics(undefined)).toBe(false);
  });

  it("counters lose _total in the family name (samples keep it, or take it), quotes in HELP are escaped, untyped is unknown, # EOF ends it", () => {
    const prometheus = [
      '# HELP a_total Requests by "code".\n# TYPE a_total counter\na_total{code="200"} 3\na_total{code="500"} 0',
      "# HELP b Bare counter.\n# TYPE b counter\nb 2\nb{x=\"y\"} 1",
      "# HELP g A gauge.\n# TYPE g gauge\ng 1.5",
      '# HELP h A histogram.\n# TYPE h histogram\nh_bucket{le="1"} 1\nh_bucket{le="+Inf"} 2\nh_sum 3\nh_count 2',
      "# HELP u Untyped.\n# TYPE u untyped\nu 7",
    ].join("\n\n") + "\n";
    expect(toOpenMetrics(prometheus)).toBe([
      '# HELP a Requests by \\"code\\".', "# TYPE a counter", 'a_total{code="200"} 3', 'a_total{code="500"} 0',
      "# HELP b Bare counter.", "# TYPE b counter", "b_total 2", 'b_total{x="y"} 1',
      "# HELP g A gauge.", "# TYPE g gauge", "g 1.5",
      "# HELP h A histogram.", "# TYPE h histogram", 'h_bucket{le="1"} 1', 'h_bucket{le="+Inf"} 2', "h_sum 3", "h_count 2",
      "# HELP u Untyped.", "# TYPE u unknown", "u 7",
      "# EOF", "",
    ].join("\n"));
  });
});
