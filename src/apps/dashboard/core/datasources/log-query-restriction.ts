// What the query paths (proxy, /api/ds/query) ask before a log query leaves
// for a log store data source: is the caller restricted by team label rules
// (LBAC), and if so, the query rewritten so that every stream selector also
// carries the rules' matchers. The rules themselves live in core/datasources/lbac.ts.
import type { Identity } from "../identity/index.ts";
import type { DataSourceRecord } from "./datasource-registry.ts";

export interface LogQueryRestriction {
  /**
   * The LogQL expression (a full query or a bare stream selector) with the
   * restriction injected into every stream selector; throws an ApiError (400
   * for a query that does not parse, 403 when the restriction cannot be expressed).
   */
  rewrite(query: string): string;
}

/** undefined: the caller is not restricted on this data source */
export type RestrictionOf = (ds: DataSourceRecord, identity: Identity) => Promise<LogQueryRestriction | undefined>;

export const unrestricted: RestrictionOf = async () => undefined;
