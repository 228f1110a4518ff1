// The dashboard listener (:3000): the /api and /apis families and the admin
// page. Routes are registered in this one visible list (DESIGN rule 2).
import type { Hono } from "hono";
import { createBaseApp } from "../../lib/http/base-app.ts";
import type { DashboardDeps } from "./deps.ts";
import { registerAdminPage } from "./admin/serve-admin.ts";
import { registerHealth } from "./legacy/health.ts";
import { renderDashboardError } from "./render-error.ts";

export function createDashboardApp(deps: DashboardDeps): Hono {
  const app = createBaseApp({
    logger: deps.logger.child({ service: "dashboard" }),
    lifecycle: deps.lifecycle,
    maxBodyBytes: deps.config.server.max_request_body_size,
    render: renderDashboardError,
    subjectOf: (c) => ({ org: c.req.header("X-Svc-Org-Id") }),
  });
  registerHealth(app, deps);
  registerAdminPage(app, deps);
  return app;
}
