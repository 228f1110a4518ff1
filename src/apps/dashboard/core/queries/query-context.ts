// What a plugin needs to run one query of /api/ds/query: the query object as
// the client sent it, the request's time range and the panel's interval and
// resolution (the real product's defaults when absent), the data source with
// its credentials, and for log queries the caller's label restriction.
import { badRequest } from "../../../../lib/errors.ts";
import type { Credentials } from "../datasources/index.ts";
import type { DataSourceRecord } from "../datasources/index.ts";
import type { Frame } from "./data-frames.ts";
import type { LogQueryRestriction } from "../datasources/index.ts";

export interface QueryContext {
  refId: string;
  /** the query object: expr, legendFormat, ... (plugin fields) */
  model: Record<string, unknown>;
  fromMs: number;
  toMs: number;
  /** intervalMs as sent; 0 when absent */
  intervalMs: number;
  /** maxDataPoints, 100 when absent (the real product's default) */
  maxDataPoints: number;
  ds: DataSourceRecord;
  credentials: Credentials;
  restriction?: LogQueryRestriction | undefined;
}

export type QueryRunner = (q: QueryContext) => Promise<Frame[]>;

/** a plugin field of the query, checked: a wrong type is a 400 naming it */
export function field<T extends "string" | "number" | "boolean">(
  model: Record<string, unknown>, name: string, kind: T,
): (T extends "string" ? string : T extends "number" ? number : boolean) | undefined {
  const v = model[name];
  if (v === undefined || v === null) return undefined;
  // numbers sent as strings are common in saved dashboards
  if (kind === "number" && typeof v === "string" && v.trim() !== "" && Number.isFinite(Number(v))) return Number(v) as never;
  if (typeof v !== kind) throw badRequest(`bad request data: ${name} must be a ${kind}`);
  return v as never;
}
