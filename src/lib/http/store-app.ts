// The common base of the log store and metrics store listeners: their real
// counterparts (Loki, Mimir) share the dskit server, so they share this too:
// Prometheus-style error bodies, the tenant in each request log line, /ready.
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { Lifecycle } from "../lifecycle.ts";
import type { Logger } from "../logger.ts";
import { allowedHosts, type AllowedHostsOptions } from "./allowed-hosts.ts";
import { createBaseApp, type ErrorRenderer } from "./base-app.ts";
import { renderPrometheusError } from "./prometheus-errors.ts";
import { registerReady } from "./ready.ts";
import type { RequestHistogram } from "./request-metrics.ts";

export interface StoreAppOptions {
  service: string;
  logger: Logger;
  lifecycle: Lifecycle;
  maxBodyBytes: number;
  /** the error body (default: Prometheus-style JSON) */
  render?: ErrorRenderer;
  /** middleware that runs before the body is read */
  early?: MiddlewareHandler[];
  /** the Host names this listener answers to (DNS rebinding); checked before everything else */
  hosts?: AllowedHostsOptions;
  /** the request duration histogram */
  durations?: RequestHistogram;
  /** path prefixes routed as others: [alias, prefix] */
  pathAliases?: ReadonlyArray<readonly [string, string]>;
  /** who the request was, for its log line (default: the X-Scope-OrgID header) */
  subjectOf?: (c: Context) => Record<string, string | undefined>;
}

export function createStoreApp(options: StoreAppOptions): Hono {
  const app = createBaseApp({
    logger: options.logger.child({ service: options.service }),
    lifecycle: options.lifecycle,
    maxBodyBytes: options.maxBodyBytes,
    render: options.render ?? renderPrometheusError,
    subjectOf: options.subjectOf ?? ((c) => ({ tenant: c.req.header("X-Scope-OrgID") })),
    early: [...(options.hosts ? [allowedHosts(options.hosts)] : []), ...(options.early ?? [])],
    ...(options.durations ? { observe: options.durations.observeRequest } : {}),
    ...(options.pathAliases ? { pathAliases: options.pathAliases } : {}),
  });
  registerReady(app, options.lifecycle);
  return app;
}
