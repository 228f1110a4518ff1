// Mimir's ingestion statistics: GET /distributor/all_user_stats (every
// tenant, no tenant header, like Mimir's distributor page) and
// GET /api/v1/user_stats (the calling tenant). Mimir renders the first as an
// HTML page unless the client accepts JSON; here it is always JSON (the admin
// page and scripts are its readers). Sorted by userID, not by series as
// Mimir's page is, so the list does not reorder while it is watched.
import type { Hono } from "hono";
import type { UserStatsTracker } from "../core/user-stats.ts";
import { tenantOf, type TenantGate } from "./tenant.ts";

export function registerUserStats(app: Hono, stats: UserStatsTracker, gate: TenantGate): void {
  app.get("/distributor/all_user_stats", async (c) => {
    gate.auth.allTenants(c, "metrics:read");
    return c.json(await stats.all());
  });
  app.get("/api/v1/user_stats", (c) => c.json(stats.of(tenantOf(c, gate, "metrics:read"))));
}
