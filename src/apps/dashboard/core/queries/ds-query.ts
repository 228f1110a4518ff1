// POST /api/ds/query: each query resolved to its data source (by
// datasource.uid, or the older datasourceId), checked for query permission,
// run by its type's plugin and answered as data frames. The request-level
// errors are the real product's (reference §4, conformance 98-103); a query
// that fails gets {error, errorSource, status} in its result and the whole
// answer becomes 400 (the real product without its multi-status flag).
import { ApiError, forbidden } from "../../../../lib/errors.ts";
import type { Logger } from "../../../../lib/logger.ts";
import type { Identity } from "../identity/index.ts";
import { frameJson } from "./data-frames.ts";
import { credentialsOf, type Credentials } from "../datasources/index.ts";
import { dataSourceScopes } from "../datasources/index.ts";
import type { DataSourceRecord } from "../datasources/index.ts";
import { dataSourceNotFound, type DataSourceDeps } from "../datasources/index.ts";
import type { LogQueryRestriction, RestrictionOf } from "../datasources/index.ts";
import { hasPermission } from "../identity/index.ts";
import { field, type QueryContext, type QueryRunner } from "./query-context.ts";
import { queryLoki } from "./query-loki.ts";
import { queryPrometheus } from "./query-prometheus.ts";
import { parseTimeRange } from "./relative-time.ts";

export interface DsQueryDeps extends DataSourceDeps {
  restrictionOf: RestrictionOf;
  now: () => number;
  logger: Logger;
}

export interface DsQueryRequest {
  from?: string | number | undefined;
  to?: string | number | undefined;
  queries?: Array<Record<string, unknown>> | undefined;
}

type Result = { status: number; frames: unknown[] } | { status: number; error: string; errorSource: "downstream"; frames: [] };

const RUNNERS: Record<string, QueryRunner> = { prometheus: queryPrometheus, loki: queryLoki };

/** server-side expressions have their own pseudo data source; Outpost has none */
const EXPRESSIONS = "__expr__";

const noQueries = () => new ApiError(400, "No queries found", { messageId: "query.noQueries" });
const invalidDatasource = () =>
  new ApiError(400, "Query does not contain a valid data source identifier", { messageId: "query.invalidDatasourceId" });
const duplicateRefId = () =>
  new ApiError(400, "Multiple queries using the same RefId is not allowed ", { messageId: "query.duplicateRefId" });

interface Planned {
  refId: string;
  model: Record<string, unknown>;
  ds: DataSourceRecord | undefined;
}

/** the data source a query names; undefined for an expression */
function dataSourceOf(deps: DsQueryDeps, identity: Identity, model: Record<string, unknown>): DataSourceRecord | undefined {
  const ref = model.datasource as { uid?: unknown; type?: unknown } | undefined;
  const uid = ref && typeof ref === "object" && typeof ref.uid === "string" ? ref.uid : "";
  if (uid === EXPRESSIONS || (ref && typeof ref === "object" && ref.type === EXPRESSIONS)) return undefined;
  const id = typeof model.datasourceId === "number" && Number.isInteger(model.datasourceId) ? model.datasourceId : 0;
  if (!uid && id <= 0) throw invalidDatasource();
  const ds = uid ? deps.registry.byUid(identity.orgId, uid) : deps.registry.byId(identity.orgId, id);
  if (!ds) throw dataSourceNotFound();
  if (!hasPermission(identity.permissions, "datasources:query", dataSourceScopes(ds))) throw forbidden("Access denied to data source");
  return ds;
}

/** the real product's order: each query's data source first, then its refId ("A" when absent) */
function plan(deps: DsQueryDeps, identity: Identity, queries: Array<Record<string, unknown>>): Planned[] {
  const seen = new Set<string>();
  return queries.map((model) => {
    const ds = dataSourceOf(deps, identity, model);
    const refId = typeof model.refId === "string" && model.refId !== "" ? model.refId : "A";
    if (seen.has(refId)) throw duplicateRefId();
    seen.add(refId);
    return { refId, model, ds };
  });
}

/** per data source, once per request: its credentials, and the caller's restriction on log queries */
function memo<T>(make: (ds: DataSourceRecord) => Promise<T>) {
  const cache = new Map<number, Promise<T>>();
  return (ds: DataSourceRecord) => {
    let p = cache.get(ds.id);
    if (!p) cache.set(ds.id, (p = make(ds)));
    return p;
  };
}

export async function runDsQuery(deps: DsQueryDeps, identity: Identity, request: DsQueryRequest): Promise<{ status: number; body: { results: Record<string, Result> } }> {
  const queries = request.queries ?? [];
  if (!queries.length) throw noQueries();
  const planned = plan(deps, identity, queries);
  const now = deps.now();
  const range = parseTimeRange(request.from, request.to, now);
  const credentials = memo<Credentials>((ds) => credentialsOf(deps, ds));
  const restriction = memo<LogQueryRestriction | undefined>((ds) => deps.restrictionOf(ds, identity));

  const run = async (p: Planned): Promise<Result> => {
    try {
      if (!p.ds) throw new ApiError(400, "server-side expressions (data source __expr__) are not supported by Outpost");
      const runner = RUNNERS[p.ds.type];
      if (!runner) {
        throw new ApiError(400, `queries are not supported for data sources of type "${p.ds.type}": Outpost queries only loki and prometheus data sources`);
      }
      const own = p.model.timeRange as { from?: unknown; to?: unknown } | undefined;
      const { from, to } = own && typeof own === "object" ? parseTimeRange(own.from, own.to, now) : range;
      const context: QueryContext = {
        refId: p.refId,
        model: p.model,
        fromMs: from,
        toMs: to,
        intervalMs: field(p.model, "intervalMs", "number") ?? 0,
        maxDataPoints: field(p.model, "maxDataPoints", "number") || 100,
        ds: p.ds,
        credentials: await credentials(p.ds),
        restriction: p.ds.type === "loki" ? await restriction(p.ds) : undefined,
      };
      const frames = await runner(context);
      return { status: 200, frames: frames.map(frameJson) };
    } catch (err) {
      if (!(err instanceof ApiError)) {
        deps.logger.error("data source query failed", { refId: p.refId, datasource: p.ds?.uid, err: (err as Error).stack ?? String(err) });
      }
      const status = err instanceof ApiError ? err.status : 500;
      const message = err instanceof ApiError ? err.message : "Query data error";
      return { status, error: message, errorSource: "downstream", frames: [] };
    }
  };

  const results = await Promise.all(planned.map(run));
  const body = { results: Object.fromEntries(planned.map((p, i) => [p.refId, results[i]!])) };
  return { status: results.some((r) => "error" in r) ? 400 : 200, body };
}
