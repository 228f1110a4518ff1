// Builds the metrics store's admin and limits routes on a store app of their
// own, over an in-memory database, with the log lines captured.
import { openStoreAccess } from "../../../src/store-access/access-store.ts";
import { createStoreAuth } from "../../../src/store-access/http.ts";
import type { Hono } from "hono";
import { ensureAdminToken } from "../../../src/apps/metrics/core/admin-token.ts";
import { createMetricsLimits, type MetricsLimitsService } from "../../../src/apps/metrics/core/limits.ts";
import { openMetricsTenants, type MetricsTenants } from "../../../src/apps/metrics/core/tenants.ts";
import { renderMetricsError } from "../../../src/apps/metrics/render-error.ts";
import { registerAdminApi } from "../../../src/apps/metrics/routes/admin.ts";
import { registerLimitsRoutes } from "../../../src/apps/metrics/routes/limits.ts";
import { loadConfig } from "../../../src/config/load.ts";
import type { Config } from "../../../src/config/schema.ts";
import { openDatabase, type Database } from "../../../src/db/open.ts";
import { createStoreApp } from "../../../src/lib/http/store-app.ts";
import { createLifecycle } from "../../../src/lib/lifecycle.ts";
import { createLogger, silentLogger } from "../../../src/lib/logger.ts";

export const ADMIN_TOKEN = "test-admin-token";
export const adminAuth = (user = "", password = ADMIN_TOKEN) => `Basic ${btoa(`${user}:${password}`)}`;

export interface AdminApp {
  app: Hono;
  config: Config;
  db: Database;
  tenants: MetricsTenants;
  limits: MetricsLimitsService;
  logs: Array<Record<string, unknown>>;
  /** a request with the admin credentials and a JSON body */
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

export async function startAdminApp(flags: Record<string, unknown> = {}): Promise<AdminApp> {
  const config = loadConfig({ flags: { "storage.in_memory": true, "metrics.admin_token": ADMIN_TOKEN, ...flags } });
  const logs: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: "info", format: "json", write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>) });
  const lifecycle = createLifecycle();
  const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
  const tenants = await openMetricsTenants({ pg: db.pg, config: config.metrics, logger });
  const limits = createMetricsLimits({ config: config.metrics, tenants, logger });
  const adminToken = await ensureAdminToken({ pg: db.pg, configured: config.metrics.admin_token, announce: () => {} });
  const app = createStoreApp({ service: "metrics", logger, lifecycle, maxBodyBytes: config.server.max_request_body_size, render: renderMetricsError });
  const access = await openStoreAccess({ pg: db.pg, cluster: config.metrics.cluster_name });
  const auth = createStoreAuth({ store: "metrics", mode: "header", access, certTenant: { from: "", allowed: [] }, realm: "test" });
  registerAdminApi(app, { tenants, adminToken, access, defaults: limits.defaults });
  registerLimitsRoutes(app, { limits, gate: { isInactive: (t) => tenants.isInactive(t), auth } });
  lifecycle.markReady();
  return {
    app,
    config,
    db,
    tenants,
    limits,
    logs,
    admin: async (method, path, body) =>
      app.request(path, {
        method,
        headers: { Authorization: adminAuth(), ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      }),
    async close() {
      tenants.close();
      limits.close();
      await db.close();
    },
  };
}
