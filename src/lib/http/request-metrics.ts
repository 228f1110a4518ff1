// Request durations of a store listener as a prom-client histogram (by
// method, route pattern and status), recorded by one middleware.
import type { MiddlewareHandler } from "hono";
import { Histogram, type Registry } from "prom-client";

export function requestDurations(registry: Registry, name: string): MiddlewareHandler {
  const duration = new Histogram({
    name,
    help: "Time (in seconds) spent serving HTTP requests.",
    labelNames: ["method", "route", "status_code"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return async (c, next) => {
    const started = performance.now();
    await next();
    duration.observe({ method: c.req.method, route: c.req.routePath, status_code: String(c.res.status) }, (performance.now() - started) / 1000);
  };
}
