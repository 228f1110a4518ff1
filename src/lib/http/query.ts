import type { Context } from "hono";
import { ApiError } from "../errors.ts";

/** the query string's parameters of a request, parsed once */
const parsed = new WeakMap<Context, Record<string, string[]>>();

/**
 * A request's query parameters, read from one parse of its query string.
 * Hono's c.req.query(name) scans the URL per call and, once the URL holds an
 * escape (%7B, +), parses the whole query string again for every name it does
 * not find at once: a handler reading ten optional parameters of a LogQL or
 * search URL parsed it ten times. Same decoding and the same answers
 * (`one`: the first value, as c.req.query; `all`: every value, as c.req.queries).
 */
export function queryParams(c: Context): { one(name: string): string | undefined; all(name: string): string[] | undefined } {
  let params = parsed.get(c);
  if (!params) {
    params = c.req.queries();
    parsed.set(c, params);
  }
  const p = params;
  return { one: (name) => p[name]?.[0], all: (name) => p[name] };
}

/** the largest page number or page size accepted: keeps LIMIT/OFFSET exact and in range */
const MAX = 1_000_000_000;

/** a page number or page size from a query string: missing, not decimal digits or below 1 gives the default */
export function positiveInt(raw: string | undefined, fallback: number): number {
  if (raw === undefined || !/^\d{1,15}$/.test(raw)) return /^\d{16,}$/.test(raw ?? "") ? MAX : fallback;
  const n = Number(raw);
  return n >= 1 ? Math.min(n, MAX) : fallback;
}

/** an optional whole-number query parameter up to `max`; anything else is a 400 naming it */
export function intParam(raw: string | undefined, name: string, max = Number.MAX_SAFE_INTEGER): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  const n = /^-?\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!(Math.abs(n) <= max)) throw new ApiError(400, `query parameter ${name} must be a whole number from -${max} to ${max}`);
  return n;
}
