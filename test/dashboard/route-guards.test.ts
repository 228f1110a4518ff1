// DESIGN rule 2: every dashboard route states the access it requires. A route
// added straight on the Hono app (so without a guard), or a public route
// that is not on the short list below, fails here.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { permissionsDocPath, renderPermissionsDoc } from "../../scripts/gen-permissions-doc.ts";
import { createDashboardApp, type DashboardApp } from "../../src/apps/dashboard/app.ts";
import { loadConfig } from "../../src/config/load.ts";
import { openDatabase, type Database } from "../../src/db/open.ts";
import { createLifecycle } from "../../src/lib/lifecycle.ts";
import { silentLogger } from "../../src/lib/logger.ts";

// GET /metrics: open as the real product's, or behind its own basic auth (dashboard.metrics.*), never a user's
const PUBLIC = new Set(["GET /api/health", "POST /login", "POST /login/2fa", "GET /logout", "GET /login/generic_oauth", "GET /api/login/options", "GET /swagger", "GET /", "GET /*", "GET /metrics"]);

describe("route guards", () => {
  let db: Database;
  let dashboard: DashboardApp;
  beforeAll(async () => {
    db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    dashboard = await createDashboardApp({
      config: loadConfig({ flags: { "server.edition": "enterprise" } }),
      db,
      logger: silentLogger,
      lifecycle: createLifecycle(),
      adminFiles: new Map(),
    });
  });
  afterAll(async () => { await db.close(); });

  it("every route on the app was registered through the guarded router", () => {
    const guarded = new Set(dashboard.routes.map((r) => `${r.method} ${r.path}`));
    const unguarded = dashboard.app.routes
      .filter((r) => r.method !== "ALL")
      .map((r) => `${r.method} ${r.path}`)
      .filter((key) => !guarded.has(key));
    expect(unguarded).toEqual([]);
  });

  it("only the allowed routes are public", () => {
    const publicRoutes = dashboard.routes.filter((r) => "public" in r.access).map((r) => `${r.method} ${r.path}`);
    expect(publicRoutes.filter((r) => !PUBLIC.has(r))).toEqual([]);
  });

  it("docs/permissions.md lists every route and basic-role grant (run `npm run gen`)", () => {
    expect(readFileSync(permissionsDocPath, "utf8")).toBe(renderPermissionsDoc(dashboard.routes));
  });

  it("there are guarded routes to check", () => {
    expect(dashboard.routes.filter((r) => !("public" in r.access)).length).toBeGreaterThan(5);
  });
});
