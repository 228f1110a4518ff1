// The dashboard's request metrics, as its real counterpart counts them:
// svc_http_request_duration_seconds{handler,method,status_code}, whose handler
// is the matched route pattern (/api/users/:id), never the path as sent, so
// the series stay bounded (a request no route answered is "notfound"), and
// svc_{api,page,proxy}_response_status_total{code} (200, 404, 500 or unknown,
// each from zero). GET /metrics itself is not counted, as there.
import type { Context } from "hono";
import { Counter, type Registry } from "prom-client";
import { unmatched } from "../../lib/http/base-app.ts";
import { RequestHistogram } from "../../lib/http/request-metrics.ts";

/** the real product's bounds, in seconds */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const CODES = ["200", "404", "500", "unknown"] as const;
export const METRICS_PATH = "/metrics";

export interface DashboardRequestMetrics {
  /** the base app's `observe`: every answered request */
  observe(c: Context, seconds: number): void;
  registerWith(registry: Registry): void;
}

export function dashboardRequestMetrics(): DashboardRequestMetrics {
  const durations = new RequestHistogram("svc_http_request_duration_seconds", "Histogram of latencies for HTTP requests.", {
    routeLabel: "handler",
    routeOf: (c) => (unmatched(c) ? "notfound" : c.req.routePath),
    buckets: BUCKETS,
  });
  const statusCounter = (kind: string) => {
    const counter = new Counter({ name: `svc_${kind}_response_status_total`, help: `${kind} http response status`, labelNames: ["code"], registers: [] });
    for (const code of CODES) counter.inc({ code }, 0);
    return counter;
  };
  const [api, page, proxy] = [statusCounter("api"), statusCounter("page"), statusCounter("proxy")];
  return {
    observe(c, seconds) {
      if (c.req.routePath === METRICS_PATH) return;
      durations.observeRequest(c, seconds);
      const status = c.res.status;
      const code = status === 200 || status === 404 || status === 500 ? String(status) : "unknown";
      const path = c.req.path;
      (path.startsWith("/api/datasources/proxy/") ? proxy : path.startsWith("/api/") ? api : page).inc({ code });
    },
    registerWith(registry) {
      durations.registerWith(registry);
      for (const counter of [api, page, proxy]) registry.registerMetric(counter);
    },
  };
}
