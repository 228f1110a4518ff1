// Limits as Mimir shows them: GET /api/v1/user_limits answers the calling
// tenant's effective limits (JSON, snake_case keys, durations as text), and
// GET /runtime_config the runtime overrides as loaded (YAML; ?mode=diff only
// what differs from the defaults).
import type { Hono } from "hono";
import { stringify as toYaml } from "yaml";
import { limitsJson, type MetricsLimitsService } from "../core/limits.ts";
import { tenantOf, type TenantGate } from "./tenant.ts";

export interface LimitsRoutesDeps {
  limits: MetricsLimitsService;
  gate: TenantGate;
}

export function registerLimitsRoutes(app: Hono, deps: LimitsRoutesDeps): void {
  app.get("/api/v1/user_limits", (c) => c.json(limitsJson(deps.limits.of(tenantOf(c, deps.gate, "metrics:read")))));
  app.get("/runtime_config", (c) => {
    deps.gate.auth.allTenants(c, "metrics:read");
    const mode = c.req.query("mode") === "diff" ? "diff" : "all";
    return c.body(toYaml(deps.limits.runtimeConfig(mode)), 200, { "Content-Type": "application/yaml" });
  });
}
