// GET /api/health: {database, version (the API version: API_VERSION), commit, outpostVersion}; 503 with database "failing"
// when the database cannot answer (the real product's shape).
import { API_VERSION, COMMIT, VERSION } from "../../../../version.ts";
import type { Router } from "../../access/guard.ts";
import type { DashboardDeps } from "../../deps.ts";
import { createHealthProbe } from "../../core/admin/health.ts";

export function registerHealth(r: Router, deps: DashboardDeps): void {
  const healthy = createHealthProbe(deps.db);
  r.get("/api/health", { public: true }, async (c) => {
    const ok = await healthy();
    c.header("Cache-Control", "no-store");
    return c.json({ database: ok ? "ok" : "failing", version: API_VERSION, commit: COMMIT, outpostVersion: VERSION }, ok ? 200 : 503);
  });
}
