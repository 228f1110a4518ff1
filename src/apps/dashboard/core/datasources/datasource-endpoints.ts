// Which requests through the data source proxy and resource calls only read
// (issue 16 #8): one method/path allow-list for both modes. A read needs
// datasources:query on the data source (the route's guard); anything else —
// the ruler's configuration API, pushes, admin and tenant APIs, any path not
// listed — needs datasources:write on it, as editing the data source does.
// A POST to a prometheus data source that is not one of the real plugin's
// POST routes is refused for everyone, as the real product refuses it.
import { ApiError, forbidden } from "../../../../lib/errors.ts";
import { dataSourceScopes } from "./datasource-json.ts";
import type { DataSourceRecord } from "./datasource-registry.ts";
import { isLogQueryEndpoint, logEndpointOf } from "./log-endpoints.ts";
import { hasPermission, type PermissionSet } from "../identity/index.ts";

/** the Prometheus plugin's routes that may be POSTed to (its plugin.json), below the data source URL */
const PROMETHEUS_POST = /^\/api\/v1\/(query|query_range|series|labels|query_exemplars)$/;

/** the Prometheus HTTP API's read endpoints, below the data source URL */
const PROMETHEUS_GET = new RegExp(
  "^/api/v1/(" +
    ["query", "query_range", "query_exemplars", "series", "labels", "label/[^/]+/values", "metadata", "rules", "alerts",
      "targets", "targets/metadata", "format_query", "parse_query", "status/(buildinfo|config|flags|runtimeinfo|tsdb)"].join("|") +
    ")$",
);

/** the log store API's read endpoints besides the query ones (below the API prefix) */
const LOG_READ_GET = /^(status\/buildinfo|format_query|tail)$/;

export type Access = "read" | "write";

/**
 * What a request to `upstream` (the path below the data source URL, already
 * checked for "." and "..") does; throws 403 for what the real product refuses.
 */
export function accessOfRequest(ds: DataSourceRecord, method: string, upstream: string): Access {
  if (ds.type === "prometheus") {
    if (method === "POST") {
      if (PROMETHEUS_POST.test(upstream)) return "read";
      // the real product's rule and message: no admin, ruler or push endpoint through the proxy
      throw forbidden("non allow-listed POSTs not allowed on proxied Prometheus datasource");
    }
    return method === "GET" && PROMETHEUS_GET.test(upstream) ? "read" : "write";
  }
  if (ds.type === "loki") {
    const endpoint = logEndpointOf(ds, upstream);
    if (endpoint === undefined) return "write";
    if (isLogQueryEndpoint(endpoint)) return method === "GET" || method === "POST" ? "read" : "write";
    return method === "GET" && LOG_READ_GET.test(endpoint) ? "read" : "write";
  }
  // a type Outpost does not query: its API is unknown, a GET is taken as a read
  return method === "GET" ? "read" : "write";
}

/** 403 unless the caller may make this request through the data source */
export function checkProxyAccess(ds: DataSourceRecord, permissions: PermissionSet, method: string, upstream: string): void {
  if (accessOfRequest(ds, method, upstream) === "read") return;
  if (hasPermission(permissions, "datasources:write", dataSourceScopes(ds))) return;
  throw new ApiError(
    403,
    `${method} ${upstream} is not a read endpoint of this ${ds.type} data source: writing through the data source needs datasources:write on it (Edit permission)`,
  );
}
