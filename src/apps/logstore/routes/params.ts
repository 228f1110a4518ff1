// Query parameters as the real product reads them (reference §3): times in
// seconds, nanoseconds or RFC 3339; since, limit, direction, step.
import { ApiError } from "../../../lib/errors.ts";
import { fitsInt64, INT64_MAX, parseDuration } from "../../../lib/units.ts";

const bad = (message: string) => new ApiError(400, message);

/** what Go's strconv.ParseFloat reads in decimal: 1, -1.5, .5, 1e3 */
const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
/** Go's strconv.ParseFloat also reads these */
const SPECIAL_FLOAT = /^[+-]?(?:inf|infinity|nan)$/i;

/** a number as Go's ParseFloat reads it (no hex floats), or undefined; ±Infinity when it overflows */
function goFloat(raw: string): number | undefined {
  if (FLOAT.test(raw)) return Number(raw);
  if (SPECIAL_FLOAT.test(raw)) return /nan/i.test(raw) ? Number.NaN : raw.startsWith("-") ? -Infinity : Infinity;
  return undefined;
}

/**
 * a time parameter in nanoseconds as the real product's parseTimestamp reads it:
 * with a "." float seconds (rounded to ms), <= 10 characters seconds, longer
 * integers nanoseconds, else RFC 3339. Anything outside Go's int64 nanoseconds
 * (1677-09-21 .. 2262-04-11) is refused: the real product's ParseInt refuses
 * longer integers, and past that range its nanosecond arithmetic overflows.
 */
export function parseTime(raw: string | undefined, name: string, fallback: bigint): bigint {
  if (raw === undefined || raw === "") return fallback;
  const fail = (why: string) => bad(`could not parse '${name}' parameter: ${why}`);
  const checked = (ns: bigint, parser: string) => {
    if (!fitsInt64(ns)) throw fail(`strconv.${parser}: parsing ${JSON.stringify(raw)}: value out of range`);
    return ns;
  };
  if (raw.includes(".") && FLOAT.test(raw)) {
    const t = Number(raw);
    if (!Number.isFinite(t) || Math.abs(t) >= 9.3e9) throw fail(`strconv.ParseFloat: parsing ${JSON.stringify(raw)}: value out of range`);
    const seconds = Math.trunc(t);
    return checked(BigInt(seconds) * 1_000_000_000n + BigInt(Math.round((t - seconds) * 1000)) * 1_000_000n, "ParseFloat");
  }
  if (INTEGER.test(raw)) {
    const n = checked(BigInt(raw), "ParseInt");
    return raw.length <= 10 ? checked(n * 1_000_000_000n, "ParseInt") : n;
  }
  const ms = Date.parse(raw);
  if (Number.isNaN(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(raw)) throw fail(`cannot parse "${raw}" to a valid timestamp`);
  const frac = /\.(\d+)/.exec(raw)?.[1] ?? "";
  const ns = BigInt(Math.floor(ms / 1000)) * 1_000_000_000n + BigInt((frac + "000000000").slice(0, 9));
  if (!fitsInt64(ns)) throw fail(`cannot parse "${raw}" to a valid timestamp: outside the range of int64 nanoseconds`);
  return ns;
}

/** a duration in ms that fits Go's time.Duration (int64 ns), or undefined */
function durationMs(raw: string): number | undefined {
  const ms = parseDuration(raw);
  return ms !== undefined && Number.isFinite(ms) && BigInt(ms) * 1_000_000n <= INT64_MAX ? ms : undefined;
}

export function parseSince(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 3_600_000;
  const ms = durationMs(raw);
  if (ms === undefined) {
    // prometheus/common model.ParseDuration's words for a duration past int64 nanoseconds
    const why = parseDuration(raw) === undefined ? `cannot parse "${raw}" to a valid duration` : "duration out of range";
    throw bad(`could not parse 'since' parameter: ${why}`);
  }
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
  if (!INTEGER.test(raw)) throw bad(`invalid limit '${raw}'`);
  const n = BigInt(raw);
  // Go's strconv.Atoi on a 64-bit platform
  if (!fitsInt64(n)) throw bad(`strconv.Atoi: parsing ${JSON.stringify(raw)}: value out of range`);
  if (n <= 0n) throw bad("limit must be a positive value");
  return Number(n);
}

export function parseDirection(raw: string | undefined): boolean {
  if (raw === undefined || raw === "") return true;
  const d = raw.toLowerCase();
  if (d === "backward") return true;
  if (d === "forward") return false;
  throw bad(`invalid direction '${raw}'`);
}

/**
 * step in ms: float seconds or a duration (the real product's parseSecondsOrDuration);
 * default max(floor((end-start)/250 s), 1) s
 */
export function parseStep(raw: string | undefined, start: bigint, end: bigint): number {
  if (raw === undefined || raw === "") {
    const seconds = Math.max(Math.floor(Number((end - start) / 1_000_000n) / 250 / 1000), 1);
    return seconds * 1000;
  }
  const seconds = goFloat(raw);
  let ms: number | undefined;
  // a decimal too large for a float64 is ParseFloat's range error: then read as a duration, which fails too
  const overflowed = seconds !== undefined && FLOAT.test(raw) && !Number.isFinite(seconds);
  if (seconds !== undefined && !overflowed) {
    // NaN converts to Go's minimum int64: a negative step
    if (Math.abs(seconds * 1e9) > 9.223372036854775e18) throw bad(`cannot parse ${JSON.stringify(raw)} to a valid duration. It overflows int64`);
    ms = Number.isNaN(seconds) ? -1 : seconds * 1000;
  } else {
    ms = durationMs(raw);
  }
  if (ms === undefined) throw bad(`cannot parse "${raw}" to a valid duration`);
  if (ms <= 0) throw bad("zero or negative query resolution step widths are not accepted. Try a positive integer");
  return ms;
}

/** Loki's most delay_for (loghttp maxDelayForInTailing), in seconds */
export const MAX_DELAY_FOR = 5;

/**
 * delay_for (seconds) as Loki's ParseTailQuery reads it: strconv.Atoi, kept
 * as a uint32 (so a negative value wraps round), at most 5
 */
export function parseDelayFor(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 0;
  if (!INTEGER.test(raw)) throw bad(`strconv.Atoi: parsing ${JSON.stringify(raw)}: invalid syntax`);
  const n = BigInt(raw);
  if (!fitsInt64(n)) throw bad(`strconv.Atoi: parsing ${JSON.stringify(raw)}: value out of range`);
  const seconds = Number(BigInt.asUintN(32, n));
  if (seconds > MAX_DELAY_FOR) throw bad(`delay_for can't be greater than ${MAX_DELAY_FOR}`);
  return seconds;
}
