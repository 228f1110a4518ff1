// GET /distributor/all_user_stats: every tenant's streams, rates and totals
// (core/user-stats.ts), for the admin page. Cross-tenant, so it needs no
// tenant header; the auth proxy refuses it (auth-proxy.ts), since a proxy
// user is one tenant. The path is Mimir's; Loki has no such listing.
import type { Hono } from "hono";
import type { StoreAuth } from "../../../store-access/http.ts";
import type { LogUserStatsTracker } from "../core/user-stats.ts";

export const ALL_USER_STATS_PATH = "/distributor/all_user_stats";

export function registerUserStats(app: Hono, stats: LogUserStatsTracker, auth: StoreAuth): void {
  app.get(ALL_USER_STATS_PATH, (c) => {
    auth.allTenants(c, "logs:read");
    return c.json(stats.all());
  });
}
