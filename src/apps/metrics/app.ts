// The metrics store listener (:9009): Prometheus remote write, the tenant
// admin API, rules and queries; each tenant is named by X-Scope-OrgID.
import type { Hono } from "hono";
import type { Config } from "../../config/schema.ts";
import type { Database } from "../../db/open.ts";
import { createStoreApp } from "../../lib/http/store-app.ts";
import type { Lifecycle } from "../../lib/lifecycle.ts";
import type { Logger } from "../../lib/logger.ts";

export interface MetricsDeps {
  config: Config;
  db: Database;
  logger: Logger;
  lifecycle: Lifecycle;
}

export function createMetricsApp(deps: MetricsDeps): Hono {
  const app = createStoreApp({
    service: "metrics",
    logger: deps.logger,
    lifecycle: deps.lifecycle,
    maxBodyBytes: deps.config.server.max_request_body_size,
  });
  return app;
}
