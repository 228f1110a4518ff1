// The log store API of a loki data source: where it lives under the data
// source URL (Outpost's /svc/api/v1 unless jsonData.apiPrefix names another,
// such as Loki's /loki/api/v1), and which of its endpoints carry a LogQL
// query in which parameters. A caller restricted by label rules (LBAC) may
// reach only these, each parameter rewritten first; anything else (tail,
// push, unknown paths) is refused: the restriction fails closed.
import { badRequest, forbidden } from "../../../../lib/errors.ts";
import type { DataSourceRecord } from "./datasource-registry.ts";
import { LOG_API_PREFIX, LOKI_API_PREFIX } from "./datasource-types.ts";
import type { LogQueryRestriction } from "./log-query-restriction.ts";

/** the API prefix: jsonData.apiPrefix ("/loki/api/v1") or Outpost's own */
export function logApiPrefix(ds: DataSourceRecord): string {
  const raw = ds.jsonData?.apiPrefix;
  if (raw === undefined || raw === null || raw === "") return LOG_API_PREFIX;
  const prefix = typeof raw === "string" ? `/${raw.trim().replace(/^\/+|\/+$/g, "")}` : "";
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(prefix) || prefix.split("/").includes("..")) {
    throw badRequest(`jsonData.apiPrefix: ${JSON.stringify(raw)} is not a URL path such as "/loki/api/v1"`);
  }
  return prefix;
}

/**
 * The endpoint below the log API of a request path, or undefined when the
 * path is outside it. Without a configured prefix both of the log store's
 * own are the API: /svc/api/v1 and Loki's /loki/api/v1 (the same handlers).
 */
export function logEndpointOf(ds: DataSourceRecord, upstream: string): string | undefined {
  const configured = ds.jsonData?.apiPrefix;
  const prefixes = configured === undefined || configured === null || configured === "" ? [LOG_API_PREFIX, LOKI_API_PREFIX] : [logApiPrefix(ds)];
  for (const prefix of prefixes) if (upstream.startsWith(`${prefix}/`)) return upstream.slice(prefix.length + 1);
  return undefined;
}

/**
 * The parameters holding a query, per endpoint below the prefix, and whether
 * one must be added when absent (an endpoint that lists everything without
 * it: labels, label values, series).
 */
const QUERY_ENDPOINTS: Array<{ path: RegExp; params: string[]; fillWhenAbsent: boolean }> = [
  { path: /^query$/, params: ["query"], fillWhenAbsent: false },
  { path: /^query_range$/, params: ["query"], fillWhenAbsent: false },
  { path: /^labels$/, params: ["query"], fillWhenAbsent: true },
  { path: /^label\/[^/]+\/values$/, params: ["query"], fillWhenAbsent: true },
  { path: /^series$/, params: ["match[]", "match"], fillWhenAbsent: true },
  { path: /^index\/stats$/, params: ["query"], fillWhenAbsent: false },
  { path: /^index\/volume(_range)?$/, params: ["query"], fillWhenAbsent: false },
  { path: /^detected_labels$/, params: ["query"], fillWhenAbsent: true },
  { path: /^detected_fields$/, params: ["query"], fillWhenAbsent: false },
  { path: /^detected_field\/[^/]+\/values$/, params: ["query"], fillWhenAbsent: false },
  { path: /^patterns$/, params: ["query"], fillWhenAbsent: false },
];

/** whether an endpoint below the API prefix is one that carries a LogQL query (a read) */
export function isLogQueryEndpoint(endpoint: string): boolean {
  return QUERY_ENDPOINTS.some((e) => e.path.test(endpoint));
}

/**
 * Rewrites the query parameters of a request to a log store endpoint (below
 * the API prefix) for a restricted caller: every query parameter in the query
 * string and the form body. Any endpoint not known to carry a query is 403.
 */
export function restrictLogRequest(
  restriction: LogQueryRestriction,
  endpoint: string,
  query: URLSearchParams,
  form: URLSearchParams | undefined,
): void {
  const known = QUERY_ENDPOINTS.find((e) => e.path.test(endpoint));
  if (!known) {
    throw forbidden(`your access to this data source is restricted by label rules: "${endpoint}" is not a log query endpoint that can be restricted`);
  }
  let found = false;
  for (const params of [query, form]) {
    if (!params) continue;
    for (const name of known.params) {
      const values = params.getAll(name);
      if (!values.length) continue;
      found = true;
      params.delete(name);
      for (const v of values) params.append(name, restriction.rewrite(v));
    }
  }
  // no selector means every stream: a blank query rewritten is the restriction's own selector
  if (!found && known.fillWhenAbsent) query.set(known.params[0]!, restriction.rewrite(""));
}
