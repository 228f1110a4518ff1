// Data sources: their store, registry, outbound HTTP, proxy, permissions and
// LBAC (README.md). The entry the other feature folders of core/ import data
// sources through; routes import the service files themselves.
export { credentialsOf, sendToDataSource, type Credentials } from "./datasource-http.ts";
export { dataSourceScopes } from "./datasource-json.ts";
export { type DataSourceRecord } from "./datasource-registry.ts";
export { isQueryable } from "./datasource-types.ts";
export { dataSourceNotFound, type DataSourceDeps } from "./datasources.ts";
export { logApiPrefix } from "./log-endpoints.ts";
export { type LogQueryRestriction, type RestrictionOf } from "./log-query-restriction.ts";
