// The time range of /api/ds/query as the real product reads `from` and `to`:
// epoch milliseconds (a number or a string of digits), a bare duration
// meaning that long ago ("5m"), or date math: "now", "now-1h", "now-7d/d"
// (a trailing /unit rounds down for `from`, up to the end of the unit for
// `to`; weeks start on Monday, all in UTC). RFC 3339 dates are accepted too.
import { badRequest } from "../../../../lib/errors.ts";

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Go's time.ParseDuration units (plus d and w) as one or more number+unit parts: "1h30m", "1.5s" */
function parseGoDuration(text: string): number | undefined {
  const re = /(\d+(?:\.\d+)?)(ms|us|µs|ns|s|m|h|d|w)/gy;
  let total = 0;
  let end = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const unit = m[2]!;
    total += Number(m[1]) * (UNIT_MS[unit] ?? (unit === "ns" ? 1e-6 : 1e-3));
    end = re.lastIndex;
  }
  return end === text.length && end > 0 ? total : undefined;
}

function addCalendar(t: Date, amount: number, unit: string): Date {
  const d = new Date(t.getTime());
  if (unit === "y") d.setUTCFullYear(d.getUTCFullYear() + amount);
  else if (unit === "M") d.setUTCMonth(d.getUTCMonth() + amount);
  else d.setTime(d.getTime() + amount * UNIT_MS[unit]!);
  return d;
}

/** the start of the unit containing t; with up, the last millisecond of it */
function roundTo(t: Date, unit: string, up: boolean): Date {
  const d = new Date(t.getTime());
  switch (unit) {
    case "y": d.setUTCMonth(0, 1); d.setUTCHours(0, 0, 0, 0); break;
    case "M": d.setUTCDate(1); d.setUTCHours(0, 0, 0, 0); break;
    case "w": d.setUTCDate(d.getUTCDate() - ((d.getUTCDay() + 6) % 7)); d.setUTCHours(0, 0, 0, 0); break;
    case "d": d.setUTCHours(0, 0, 0, 0); break;
    case "h": d.setUTCMinutes(0, 0, 0); break;
    case "m": d.setUTCSeconds(0, 0); break;
    case "s": d.setUTCMilliseconds(0); break;
  }
  return up ? new Date(addCalendar(d, 1, unit).getTime() - 1) : d;
}

function dateMath(text: string, now: number, up: boolean): number | undefined {
  const m = /^now((?:[+-]\d+(?:y|M|w|d|h|m|s))*)(?:\/(y|M|w|d|h|m|s))?$/.exec(text);
  if (!m) return undefined;
  let t = new Date(now);
  for (const [, sign, n, unit] of m[1]!.matchAll(/([+-])(\d+)(y|M|w|d|h|m|s)/g)) {
    t = addCalendar(t, (sign === "-" ? -1 : 1) * Number(n), unit!);
  }
  if (m[2]) t = roundTo(t, m[2], up);
  return t.getTime();
}

/**
 * A time of the range in epoch milliseconds; `field` names it in the 400.
 * `to` rounds up (end of the unit), `from` down, as the real product does.
 */
export function parseRangeTime(value: unknown, field: "from" | "to", now: number): number {
  if (typeof value === "number" && Number.isFinite(value)) return Math.trunc(value);
  const text = typeof value === "string" ? value.trim() : "";
  if (/^-?\d+$/.test(text)) return Number(text);
  const ago = parseGoDuration(text);
  if (ago !== undefined) return Math.round(now - ago);
  const relative = dateMath(text, now, field === "to");
  if (relative !== undefined) return relative;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text)) return Date.parse(text);
  throw badRequest(
    `bad request data: ${field}: ${JSON.stringify(typeof value === "string" ? value : String(value))} is not a time ` +
      `(epoch milliseconds, "now", "now-6h", "now-1d/d" or an RFC 3339 date)`,
    { messageId: "bad-request.invalid-field" },
  );
}

/** the query range; a missing bound is the real front end's default (the last 6 hours) */
export function parseTimeRange(from: unknown, to: unknown, now: number): { from: number; to: number } {
  return {
    from: parseRangeTime(from ?? "now-6h", "from", now),
    to: parseRangeTime(to ?? "now", "to", now),
  };
}
