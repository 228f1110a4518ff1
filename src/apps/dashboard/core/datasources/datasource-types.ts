// The data source types Outpost speaks for real: the log store (Loki-compatible
// HTTP, plugin id "loki") and the metrics store (Prometheus-compatible HTTP,
// plugin id "prometheus"), so exported dashboards and provisioning files from
// the real product work unchanged. Any other type is stored and proxied, but
// its health check and queries answer that they are not supported.

export type QueryableType = "loki" | "prometheus";

export interface TypeInfo {
  /** shown as typeName in lists */
  name: string;
  /** health, queries and LBAC are implemented for it */
  queryable: boolean;
}

const TYPES: Record<string, TypeInfo> = {
  loki: { name: "Loki", queryable: true },
  prometheus: { name: "Prometheus", queryable: true },
};

export function typeInfo(type: string): TypeInfo {
  return TYPES[type] ?? { name: type, queryable: false };
}

export function isQueryable(type: string): type is QueryableType {
  return typeInfo(type).queryable;
}

/** where the log store API lives under the data source URL: Outpost's, unless jsonData.apiPrefix names another (/loki/api/v1) */
export const LOG_API_PREFIX = "/svc/api/v1";
/** Loki's own prefix, which the log store serves as the same API (shippers and the real Loki data source use it by default) */
export const LOKI_API_PREFIX = "/loki/api/v1";
