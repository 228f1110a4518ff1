// Query parameters as the real product reads them (reference §3): times in
// seconds, nanoseconds or RFC 3339; since, limit, direction, step.
import { ApiError } from "../../../lib/errors.ts";
import { parseDuration } from "../../../lib/units.ts";

const bad = (message: string) => new ApiError(400, message);

/** a time parameter in nanoseconds: "1.5" seconds, <= 10 digits seconds, more digits nanoseconds, else RFC 3339 */
export function parseTime(raw: string | undefined, name: string, fallback: bigint): bigint {
  if (raw === undefined || raw === "") return fallback;
  if (/^-?\d+\.\d*$/.test(raw)) return BigInt(Math.round(Number(raw) * 1000)) * 1_000_000n;
  if (/^-?\d+$/.test(raw)) return raw.replace("-", "").length <= 10 ? BigInt(raw) * 1_000_000_000n : BigInt(raw);
  const ms = Date.parse(raw);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(raw)) throw bad(`could not parse '${name}' parameter: cannot parse "${raw}" to a valid timestamp`);
  const frac = /\.(\d+)/.exec(raw)?.[1] ?? "";
  return BigInt(Math.floor(ms / 1000)) * 1_000_000_000n + BigInt((frac + "000000000").slice(0, 9));
}

export function parseSince(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 3_600_000;
  const ms = parseDuration(raw);
  if (ms === undefined) throw bad(`could not parse 'since' parameter: cannot parse "${raw}" to a valid duration`);
  return ms;
}

/** start and end (ns) of a range query: end defaults to now, start to end - since (1h) */
export function timeRange(q: (name: string) => string | undefined, nowMs: number): { start: bigint; end: bigint } {
  const now = BigInt(nowMs) * 1_000_000n;
  const end = parseTime(q("end"), "end", now);
  const since = BigInt(parseSince(q("since"))) * 1_000_000n;
  const start = parseTime(q("start"), "start", (end < now ? end : now) - since);
  return { start, end };
}

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 100;
  const n = Number(raw);
  if (!/^-?\d+$/.test(raw)) throw bad(`invalid limit '${raw}'`);
  if (n <= 0) throw bad("limit must be a positive value");
  return n;
}

export function parseDirection(raw: string | undefined): boolean {
  if (raw === undefined || raw === "") return true;
  const d = raw.toLowerCase();
  if (d === "backward") return true;
  if (d === "forward") return false;
  throw bad(`invalid direction '${raw}'`);
}

/** step in ms: float seconds or a duration; default max(floor((end-start)/250 s), 1) s */
export function parseStep(raw: string | undefined, start: bigint, end: bigint): number {
  if (raw === undefined || raw === "") {
    const seconds = Math.max(Math.floor(Number((end - start) / 1_000_000n) / 250 / 1000), 1);
    return seconds * 1000;
  }
  const ms = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) * 1000 : parseDuration(raw);
  if (ms === undefined || Number.isNaN(ms)) throw bad(`cannot parse "${raw}" to a valid duration`);
  if (ms <= 0) throw bad("zero or negative query resolution step widths are not accepted. Try a positive integer");
  return ms;
}
