// Server-wide figures for server admins: GET /api/admin/settings (the
// effective configuration, secrets redacted) and GET /api/admin/stats.
import type { Router } from "../../access/guard.ts";
import { adminSettings } from "../../core/admin/admin-settings.ts";
import { createAdminStats, type AdminStatsDeps } from "../../core/admin/admin-stats.ts";
import type { Config } from "../../../../config/schema.ts";
import type { BoundPorts } from "../../deps.ts";

export function registerServerAdmin(r: Router, deps: AdminStatsDeps & { config: Config; boundPorts: BoundPorts }): void {
  const stats = createAdminStats(deps);

  r.get("/api/admin/settings", { action: "settings:read", scope: () => "settings:*" }, (c) => c.json(adminSettings(deps.config, deps.boundPorts)));

  r.get("/api/admin/stats", { action: "server.stats:read" }, async (c) => c.json(await stats()));
}
