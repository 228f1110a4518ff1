// Builds the dashboard app (enterprise edition, so every route exists) on an
// in-memory database, to list its routes.
import { createDashboardApp } from "../src/apps/dashboard/app.ts";
import type { RouteEntry } from "../src/apps/dashboard/access/guard.ts";
import { loadConfig } from "../src/config/load.ts";
import { openDatabase } from "../src/db/open.ts";
import { createLifecycle } from "../src/lib/lifecycle.ts";
import { silentLogger } from "../src/lib/logger.ts";

export async function buildRoutesForDocs(): Promise<readonly RouteEntry[]> {
  const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
  try {
    const dashboard = await createDashboardApp({
      config: loadConfig({ flags: { "server.edition": "enterprise" } }),
      db,
      logger: silentLogger,
      lifecycle: createLifecycle(),
      adminFiles: new Map(),
    });
    return dashboard.routes;
  } finally {
    await db.close();
  }
}
