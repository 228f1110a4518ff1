import { ApiError } from "../errors.ts";

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
