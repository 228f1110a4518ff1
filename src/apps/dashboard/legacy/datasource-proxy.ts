// The query side of /api/datasources (spec "Legacy data sources"; reference
// §4): the health check, the data source proxy and plugin resource calls.
// Each needs datasources:query on the data source; the denial and not-found
// messages are the real product's for each route.
import type { Context } from "hono";
import { badRequest, notFound } from "../../../lib/errors.ts";
import { identityOf, type Router } from "../access/guard.ts";
import { checkDataSourceHealth } from "../core/datasource-health.ts";
import { proxyToDataSource, type ProxyDeps, type ProxyMode } from "../core/datasource-proxy.ts";
import type { DataSourceRecord } from "../core/datasource-registry.ts";
import { dataSourceNotFound } from "../core/datasources.ts";
import { scopesOfPath } from "./datasource-lookup.ts";

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

export function registerDataSourceProxy(r: Router, deps: ProxyDeps): void {
  const access = {
    action: "datasources:query",
    scope: scopesOfPath(deps.registry, "uid"),
    denied: "Access denied to datasource",
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
    r[method]("/api/datasources/proxy/uid/:uid/*", access, forward("proxy", unableToFind));
    r[method]("/api/datasources/uid/:uid/resources/*", access, forward("resource", unableToFind));
  }
}
