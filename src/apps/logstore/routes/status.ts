// Operational endpoints (reference §4): GET /metrics (Prometheus text),
// GET /svc/api/v1/status/buildinfo (flat JSON) and GET /config (the
// effective configuration as YAML, secrets masked). None needs a tenant; in
// tokens mode /metrics and /config need a token reaching every tenant.
import type { Hono } from "hono";
import { stringify } from "yaml";
import type { Config } from "../../../config/schema.ts";
import { maskedConfig } from "../../../config/masked.ts";
import { metricsAnswer } from "../../../lib/http/metrics-exposition.ts";
import { runtimeVersion } from "../../../platform/runtime.ts";
import { COMMIT, VERSION } from "../../../version.ts";
import type { LogStoreMetrics } from "../core/metrics.ts";
import type { StoreAuth } from "../../../store-access/http.ts";

export function registerStatus(app: Hono, config: Config, metrics: LogStoreMetrics, auth: StoreAuth): void {
  app.get("/metrics", async (c) => {
    auth.allTenants(c, "logs:read");
    return metricsAnswer(c, metrics.registry);
  });
  app.get("/svc/api/v1/status/buildinfo", (c) =>
    c.json({ version: VERSION, revision: COMMIT, branch: "main", buildUser: "outpost", buildDate: "", goVersion: runtimeVersion() }),
  );
  app.get("/config", (c) => {
    auth.allTenants(c, "logs:read");
    const masked = maskedConfig(config);
    return c.text(stringify({ server: masked.server, logs: masked.logs }), 200, { "Content-Type": "text/plain; charset=utf-8" });
  });
}
