// The tenant admin API (spec "Metrics store tenant admin API", GEM's
// /admin/api/v2/tenants) and the access policies and tokens of both stores
// (GEM's /admin/api/v3/accesspolicies and /tokens, store-access/): HTTP basic
// with an empty user name and, as password, the admin token or a token whose
// policy holds the admin scope and reaches every tenant. Updates and deletes
// of policies and tokens need If-Match with the ETag a GET answered. Errors
// are plain text (renderMetricsError).
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { readJson } from "../../../lib/http/base-app.ts";
import type { StoreAccess } from "../../../store-access/access-store.ts";
import { policyRefusal } from "../../../store-access/authorize.ts";
import { etagOf, policyJson, tokenJson } from "../../../store-access/model.ts";
import type { AdminToken } from "../core/admin-token.ts";
import { tenantJson, type MetricsTenants } from "../core/tenants.ts";
import type { MetricsLimits } from "../core/types.ts";

export const ADMIN_REALM = "metrics store admin API";

export interface AdminApiDeps {
  tenants: MetricsTenants;
  adminToken: AdminToken;
  access: StoreAccess;
  /** the global defaults (metrics.limits), shown for limits a tenant was not given */
  defaults: MetricsLimits;
}

const BASE = "/admin/api/v2/tenants";
const POLICIES = "/admin/api/v3/accesspolicies";
const TOKENS = "/admin/api/v3/tokens";

function refuse(message: string): ApiError {
  return new ApiError(401, message, { headers: { "WWW-Authenticate": `Basic realm="${ADMIN_REALM}"` } });
}

/** checks the admin credentials; throws 401 with a Basic challenge otherwise */
export function requireAdmin(c: Context, token: AdminToken, access?: StoreAccess): void {
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
  const password = decoded.slice(colon + 1);
  if (token.verify(password)) return;
  const v = access?.verify(password);
  if (!v?.ok) throw refuse(v?.reason === "expired" ? "token expired" : "invalid admin token");
  const refusal = policyRefusal(v.policy, "admin", "all");
  if (refusal) throw new ApiError(403, refusal);
}

export function registerAdminApi(app: Hono, deps: AdminApiDeps): void {
  const { tenants, defaults, access } = deps;
  const json = (c: Context, body: unknown, etag?: string) => c.json(body, 200, etag ? { ETag: etag } : {});
  for (const base of [BASE, POLICIES, TOKENS]) {
    for (const path of [base, `${base}/*`]) {
      app.use(path, async (c, next) => {
        requireAdmin(c, deps.adminToken, access);
        await next();
      });
    }
  }

  app.get(BASE, async (c) => json(c, { items: (await tenants.list()).map((t) => tenantJson(t, defaults)), type: "tenant" }));
  // GEM answers the created tenant; 200 as its clients expect (see docs/metrics-store.md)
  app.post(BASE, async (c) => json(c, tenantJson(await tenants.create(await readJson(c)), defaults)));
  app.get(`${BASE}/:name`, async (c) => json(c, tenantJson(await tenants.get(c.req.param("name")), defaults)));
  app.put(`${BASE}/:name`, async (c) => json(c, tenantJson(await tenants.update(c.req.param("name"), await readJson(c)), defaults)));
  app.delete(`${BASE}/:name`, async (c) => {
    await tenants.remove(c.req.param("name"));
    return c.body(null, 204);
  });

  const now = access.now;
  const policyTag = (name: string) => etagOf("policy", name, access.getPolicy(name).version);
  const tokenTag = (name: string) => etagOf("token", name, access.getToken(name).version);
  app.get(POLICIES, (c) => json(c, { items: access.listPolicies().map(policyJson), type: "accesspolicy" }));
  app.post(POLICIES, async (c) => {
    const p = await access.createPolicy(await readJson(c));
    return json(c, policyJson(p), policyTag(p.name));
  });
  app.get(`${POLICIES}/:name`, (c) => json(c, policyJson(access.getPolicy(c.req.param("name"))), policyTag(c.req.param("name"))));
  app.put(`${POLICIES}/:name`, async (c) => {
    const p = await access.updatePolicy(c.req.param("name"), await readJson(c), c.req.header("If-Match"));
    return json(c, policyJson(p), policyTag(p.name));
  });
  app.delete(`${POLICIES}/:name`, async (c) => {
    await access.deletePolicy(c.req.param("name"), c.req.header("If-Match"));
    return c.body(null, 204);
  });

  app.get(TOKENS, (c) => {
    const policy = c.req.query("access_policy");
    return json(c, { items: access.listTokens(policy || undefined).map((t) => tokenJson(t, now())), type: "token" });
  });
  // the one answer that carries the secret
  app.post(TOKENS, async (c) => {
    const { token, secret } = await access.createToken(await readJson(c));
    return json(c, { ...tokenJson(token, now()), token: secret }, tokenTag(token.name));
  });
  app.get(`${TOKENS}/:name`, (c) => json(c, tokenJson(access.getToken(c.req.param("name")), now()), tokenTag(c.req.param("name"))));
  app.put(`${TOKENS}/:name`, async (c) => {
    const t = await access.updateToken(c.req.param("name"), await readJson(c), c.req.header("If-Match"));
    return json(c, tokenJson(t, now()), tokenTag(t.name));
  });
  app.delete(`${TOKENS}/:name`, async (c) => {
    await access.deleteToken(c.req.param("name"), c.req.header("If-Match"));
    return c.body(null, 204);
  });
}
