// Prometheus HTTP API parameters (reference §10): GET query string or POST
// form, times as float seconds or RFC 3339, steps as float seconds or
// durations, with Prometheus's messages.
import type { Context } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { MAX_DURATION_MS, parseDurationMs } from "../core/promql/literals.ts";

export interface Params {
  get(name: string): string | undefined;
  all(name: string): string[];
}

/** the query string, plus the form body of a POST or PUT (as Go's ParseForm reads them) */
export async function paramsOf(c: Context): Promise<Params> {
  const url = new URL(c.req.url);
  const values = new URLSearchParams(url.search);
  if (c.req.method === "POST" || c.req.method === "PUT") {
    const type = c.req.header("Content-Type") ?? "";
    if (type.includes("application/x-www-form-urlencoded")) {
      for (const [k, v] of new URLSearchParams(await c.req.text())) values.append(k, v);
    }
  }
  return { get: (name) => values.get(name) ?? undefined, all: (name) => values.getAll(name) };
}

export const invalidParam = (name: string, message: string) => new ApiError(400, `invalid parameter "${name}": ${message}`);

/** a time in ms; undefined when absent */
export function parseTimeParam(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(raw)) {
    const seconds = Number(raw);
    // beyond an int64 of ms (Mimir's util.ParseTime result) the time means nothing: refused, never a 500 later
    if (Number.isFinite(seconds) && Math.abs(seconds) <= MAX_TIME_SECONDS) return Math.round(seconds * 1000);
  }
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(raw)) {
    const ms = Date.parse(raw);
    if (!Number.isNaN(ms)) return ms;
  }
  throw invalidParam(name, `cannot parse "${raw}" to a valid timestamp`);
}

/** a step or duration in ms: float seconds or a Prometheus duration */
export function parseDurationParam(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === "") return undefined;
  if (/^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/.test(raw)) {
    // Prometheus's parseDuration: float seconds must fit an int64 of nanoseconds
    const ms = Number(raw) * 1000;
    if (!(Math.abs(ms) <= MAX_DURATION_MS)) throw invalidParam(name, `cannot parse "${raw}" to a valid duration. It overflows int64`);
    return ms;
  }
  const ms = parseDurationMs(raw);
  if (ms === undefined || ms === Infinity) throw invalidParam(name, `cannot parse "${raw}" to a valid duration`);
  return ms;
}

/** the largest |time| in seconds accepted: an int64 of milliseconds */
const MAX_TIME_SECONDS = 9_223_372_036_854_775;

/** MinTime/MaxTime of Prometheus's API: what an absent start or end means */
export const MIN_TIME = -9_223_372_036_854;
export const MAX_TIME = 9_223_372_036_854;
