// Operational endpoints of the metrics store (reference §10): GET /metrics,
// build info under /api/v1 and /prometheus/api/v1, GET /config (secrets
// masked), and the empty status endpoints kept for compatibility. None needs
// a tenant; in tokens mode /metrics and /config need a token reaching every tenant.
import type { Hono } from "hono";
import { stringify } from "yaml";
import { maskedConfig } from "../../../config/masked.ts";
import { metricsAnswer } from "../../../lib/http/metrics-exposition.ts";
import type { Config } from "../../../config/schema.ts";
import { runtimeVersion } from "../../../platform/runtime.ts";
import { COMMIT, VERSION } from "../../../version.ts";
import type { MetricsStoreMetrics } from "../core/metrics.ts";
import type { StoreAuth } from "../../../store-access/http.ts";

export function registerStatus(app: Hono, config: Config, metrics: MetricsStoreMetrics, auth: StoreAuth): void {
  app.get("/metrics", async (c) => {
    auth.allTenants(c, "metrics:read");
    return metricsAnswer(c, metrics.registry);
  });
  const buildinfo = {
    status: "success",
    data: {
      application: "Outpost metrics store",
      version: VERSION,
      revision: COMMIT,
      branch: "main",
      goVersion: runtimeVersion(),
      features: { ruler_config_api: "true", query_sharding: "false" },
    },
  };
  for (const prefix of ["/api/v1", "/prometheus/api/v1"]) {
    app.get(`${prefix}/status/buildinfo`, (c) => c.json(buildinfo));
    // empty answers (nothing of any tenant): open in every mode, as build info
    app.get(`${prefix}/status/config`, (c) => c.json({ status: "success", data: { yaml: "" } }));
    app.get(`${prefix}/status/flags`, (c) => c.json({ status: "success", data: {} }));
  }
  app.get("/config", (c) => {
    auth.allTenants(c, "metrics:read");
    const masked = maskedConfig(config);
    return c.text(stringify({ server: masked.server, metrics: masked.metrics }), 200, { "Content-Type": "text/plain; charset=utf-8" });
  });
}
