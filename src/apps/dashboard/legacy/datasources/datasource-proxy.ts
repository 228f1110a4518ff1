// The query side of /api/datasources (spec "Legacy data sources"; reference
// §4): the health check, the data source proxy and plugin resource calls.
// Each needs datasources:query on the data source; the denial and not-found
// messages are the real product's for each route.
import type { Context, MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { badRequest, notFound } from "../../../../lib/errors.ts";
import { identityOf, orgHeader, type Router } from "../../access/guard.ts";
import { checkDataSourceHealth } from "../../core/queries/datasource-health.ts";
import { sandboxProxiedResponse } from "../../core/datasources/datasource-http.ts";
import { proxyToDataSource, type ProxyDeps, type ProxyMode } from "../../core/datasources/datasource-proxy.ts";
import type { DataSourceRecord } from "../../core/datasources/datasource-registry.ts";
import { dataSourceNotFound } from "../../core/datasources/datasources.ts";
import { scopesOfPath } from "./datasource-lookup.ts";
import { SESSION_COOKIE } from "../../core/identity/sessions.ts";

const UID = /^[a-zA-Z0-9_-]{1,40}$/;

/** the data source of the path's uid: 400 for a malformed uid, `missing` when there is none */
function dataSourceOf(deps: ProxyDeps, c: Context, missing: () => Error): DataSourceRecord {
  const uid = c.req.param("uid") ?? "";
  if (!UID.test(uid)) throw badRequest("UID is invalid");
  const ds = deps.registry.byUid(identityOf(c).orgId, uid);
  if (!ds) throw missing();
  return ds;
}

/** what follows the uid (proxy) or "resources" (resource calls) in the raw, still encoded path */
function restOf(c: Context): string {
  const segments = new URL(c.req.url).pathname.split("/");
  // both are six segments deep: ["", "api", "datasources", "proxy", "uid", <uid>, ...]
  // and ["", "api", "datasources", "uid", <uid>, "resources", ...]
  return `/${segments.slice(6).join("/")}`;
}

/** the routes whose answers come from a data source: every answer sandboxed, errors included */
export const PROXIED_PATHS = ["/api/datasources/proxy/uid/:uid/*", "/api/datasources/uid/:uid/resources/*"];

export const sandboxProxied: MiddlewareHandler = async (c, next) => {
  await next();
  sandboxProxiedResponse(c.res.headers);
};

/**
 * The organization a proxied request is evaluated in. A link can carry
 * `targetOrgId` but not a header: for a browser signed in by the session
 * cookie alone, the proxy ignores it (X-Svc-Org-Id or the current
 * organization decide), so a link cannot make another organization's data
 * source answer on the dashboard's origin (issue 16 #1). Callers with an
 * Authorization header keep the real product's targetOrgId.
 */
function proxiedOrgOf(c: Context): string | undefined {
  if (c.req.header("Authorization") || getCookie(c, SESSION_COOKIE) === undefined) return undefined;
  // "" is no organization: the identity falls back to the user's current one
  return orgHeader(c) ?? "";
}

export function registerDataSourceProxy(r: Router, deps: ProxyDeps): void {
  const access = {
    action: "datasources:query",
    scope: scopesOfPath(deps.registry, "uid"),
    denied: "Access denied to datasource",
  };
  const proxied = {
    ...access,
    orgOf: proxiedOrgOf,
    orgNote: "a session cookie alone ignores targetOrgId; reads only: writes to the store need datasources:write, see docs/security.md",
  };

  r.get("/api/datasources/uid/:uid/health", access, async (c) => {
    const result = await checkDataSourceHealth(deps, dataSourceOf(deps, c, dataSourceNotFound));
    // a data source that is not healthy is a 400 with the same body (reference §4)
    return c.json(result, result.status === "OK" ? 200 : 400);
  });

  const forward = (mode: ProxyMode, missing: () => Error) => async (c: Context) => {
    const ds = dataSourceOf(deps, c, missing);
    const body = c.req.method === "POST" ? new Uint8Array(await c.req.arrayBuffer()) : null;
    const search = new URL(c.req.url).search.replace(/^\?/, "");
    return proxyToDataSource(deps, ds, identityOf(c), { method: c.req.method, path: restOf(c), search, headers: c.req.raw.headers, body }, mode);
  };
  const unableToFind = () => notFound("Unable to find datasource");
  for (const method of ["get", "post"] as const) {
    r[method](PROXIED_PATHS[0]!, proxied, forward("proxy", unableToFind));
    r[method](PROXIED_PATHS[1]!, proxied, forward("resource", unableToFind));
  }
}
