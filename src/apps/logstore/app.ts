// The log store listener (:3100). Loki-compatible routes live under
// /svc/api/v1; each tenant is named by X-Scope-OrgID.
import type { Hono } from "hono";
import type { Config } from "../../config/schema.ts";
import type { Database } from "../../db/open.ts";
import { createStoreApp } from "../../lib/http/store-app.ts";
import type { Lifecycle } from "../../lib/lifecycle.ts";
import type { Logger } from "../../lib/logger.ts";

export interface LogStoreDeps {
  config: Config;
  db: Database;
  logger: Logger;
  lifecycle: Lifecycle;
}

export function createLogStoreApp(deps: LogStoreDeps): Hono {
  const app = createStoreApp({
    service: "logs",
    logger: deps.logger,
    lifecycle: deps.lifecycle,
    maxBodyBytes: deps.config.server.max_request_body_size,
  });
  return app;
}
