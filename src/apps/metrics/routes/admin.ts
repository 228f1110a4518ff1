// The tenant admin API (spec "Metrics store tenant admin API", GEM's
// /admin/api/v2/tenants): HTTP basic with an empty user name and the admin
// token as password on every route. Errors are plain text (renderMetricsError).
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { readJson } from "../../../lib/http/base-app.ts";
import type { AdminToken } from "../core/admin-token.ts";
import { tenantJson, type MetricsTenants } from "../core/tenants.ts";
import type { MetricsLimits } from "../core/types.ts";

export const ADMIN_REALM = "metrics store admin API";

export interface AdminApiDeps {
  tenants: MetricsTenants;
  adminToken: AdminToken;
  /** the global defaults (metrics.limits), shown for limits a tenant was not given */
  defaults: MetricsLimits;
}

const BASE = "/admin/api/v2/tenants";

function refuse(message: string): ApiError {
  return new ApiError(401, message, { headers: { "WWW-Authenticate": `Basic realm="${ADMIN_REALM}"` } });
}

/** checks the admin credentials; throws 401 with a Basic challenge otherwise */
export function requireAdmin(c: Context, token: AdminToken): void {
  const header = c.req.header("Authorization");
  if (!header) throw refuse("authentication required: basic auth with an empty user name and the admin token as password");
  const m = /^basic\s+(\S+)\s*$/i.exec(header);
  if (!m) throw refuse("basic authentication required");
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(m[1]!), (ch) => ch.charCodeAt(0)));
  } catch {
    throw refuse("invalid basic authentication header");
  }
  const colon = decoded.indexOf(":");
  if (colon < 0) throw refuse("invalid basic authentication header");
  if (colon > 0) throw refuse("the user name must be empty; the admin token is the password");
  if (!token.verify(decoded.slice(colon + 1))) throw refuse("invalid admin token");
}

export function registerAdminApi(app: Hono, deps: AdminApiDeps): void {
  const { tenants, defaults } = deps;
  const json = (c: Context, body: unknown) => c.json(body, 200);
  app.use(BASE, async (c, next) => {
    requireAdmin(c, deps.adminToken);
    await next();
  });
  app.use(`${BASE}/*`, async (c, next) => {
    requireAdmin(c, deps.adminToken);
    await next();
  });

  app.get(BASE, async (c) => json(c, { items: (await tenants.list()).map((t) => tenantJson(t, defaults)), type: "tenant" }));
  // GEM answers the created tenant; 200 as its clients expect (see docs/metrics-store.md)
  app.post(BASE, async (c) => json(c, tenantJson(await tenants.create(await readJson(c)), defaults)));
  app.get(`${BASE}/:name`, async (c) => json(c, tenantJson(await tenants.get(c.req.param("name")), defaults)));
  app.put(`${BASE}/:name`, async (c) => json(c, tenantJson(await tenants.update(c.req.param("name"), await readJson(c)), defaults)));
  app.delete(`${BASE}/:name`, async (c) => {
    await tenants.remove(c.req.param("name"));
    return c.body(null, 204);
  });
}
