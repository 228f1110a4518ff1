// When does a scheduled report go out next? Grafana's Reporting schedules
// (spec, "Schedule": startDate, endDate, frequency, intervalFrequency,
// intervalAmount, workdaysOnly, dayOfMonth, timeZone) are anchored at
// startDate and keep its wall-clock time of day in the schedule's zone, so a
// daily 09:00 Europe/Paris report stays at 09:00 local in summer and winter.
//
// How each frequency repeats:
// - once: startDate only.
// - hourly, custom hours: every N hours of elapsed time from startDate. The
//   product sends "every hour", not "at each local hh:mm": across a DST change
//   no hour of real time is skipped or doubled (both 02:30s of a fall-back
//   night are sent, one hour apart).
// - daily, weekly, custom days/weeks: every N calendar days in the zone at
//   startDate's local time of day.
// - monthly, custom months: every N months on startDate's day of month (or
//   `dayOfMonth` for monthly), clamped to the month's last day (31st -> April
//   30th). Counted from startDate each time, so a clamp never drifts.
// - last: the last day of every month at startDate's local time.
// The first send is the first occurrence at or after startDate (which is
// startDate itself except for monthly with another dayOfMonth, `last`, and
// skipped weekends). workdaysOnly (hourly and daily only) skips occurrences
// falling on a local Saturday or Sunday. A wall time that does not exist that
// day (spring-forward gap) moves forward as luxon does (02:30 -> 03:30); an
// ambiguous one (fall-back) is sent once, at the first of the two instants.
//
// Cost does not grow with the schedule's age: the index of the occurrence
// nearest `after` is computed arithmetically, then checked a few steps on.

import { DateTime, IANAZone } from "luxon";

export interface ScheduleInput {
  /** RFC 3339 timestamp; absent -> anchored at `after` (the caller's "now") */
  startDate?: string | undefined;
  endDate?: string | null | undefined;
  frequency: "once" | "hourly" | "daily" | "weekly" | "monthly" | "last" | "custom";
  intervalFrequency?: "hours" | "days" | "weeks" | "months" | "" | undefined;
  intervalAmount?: number | undefined;
  workdaysOnly?: boolean | undefined;
  /** IANA zone; empty or absent -> "UTC" */
  timeZone?: string | undefined;
  /** monthly only; used when it parses as 1-31, else startDate's day */
  dayOfMonth?: string | undefined;
}

/** the k-th occurrence (k >= 0), and an index whose occurrence is not after a given instant (may be < 0) */
interface Series {
  at(k: number): number;
  indexNear(t: number): number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** more would mean a bug in indexNear: fail loudly rather than spin */
const MAX_STEPS = 64;

/**
 * true for the IANA zone names luxon (through Intl) knows, and "UTC". Names
 * must start with a letter: Bun's Intl also accepts ES2024 offset zones
 * ("+01:00") where Node's does not, and an offset is not a zone with DST rules.
 */
export function isValidTimeZone(zone: string): boolean {
  return zone === "UTC" || (/^[A-Za-z]/.test(zone) && IANAZone.isValidZone(zone));
}

/** the first send time strictly after `after` (epoch ms), or null when none is left (once already passed, or past endDate) */
export function nextSendTime(schedule: ScheduleInput, after: number): number | null {
  if (!Number.isFinite(after)) throw new Error("report schedule: after must be a finite epoch time");
  const zone = schedule.timeZone || "UTC";
  if (!isValidTimeZone(zone)) throw new Error(`invalid report schedule time zone "${zone}"`);
  const start = schedule.startDate ? parseTimestamp(schedule.startDate, zone, "startDate") : DateTime.fromMillis(after, { zone });
  const endMs = schedule.endDate ? parseTimestamp(schedule.endDate, zone, "endDate").toMillis() : null;

  const next = firstSend(schedule, start, after);
  return next !== null && (endMs === null || next <= endMs) ? next : null;
}

function firstSend(schedule: ScheduleInput, start: DateTime, after: number): number | null {
  const startMs = start.toMillis();
  if (schedule.frequency === "once") return startMs > after ? startMs : null;
  const series = seriesOf(schedule, start);
  // workdaysOnly applies only to hourly and daily (spec); other frequencies ignore it
  const workdays = schedule.workdaysOnly === true && (schedule.frequency === "hourly" || schedule.frequency === "daily");

  let notBefore = startMs;
  for (let attempt = 0; attempt < MAX_STEPS; attempt++) {
    const t = firstFrom(series, after, notBefore);
    const local = DateTime.fromMillis(t, { zone: start.zone });
    if (!workdays || local.weekday <= 5) return t;
    // Saturday or Sunday: resume at the following Monday's local midnight
    // rather than stepping through a weekend of hourly occurrences
    const monday = local.startOf("day").plus({ days: 8 - local.weekday });
    notBefore = wallTime(start, monday.year, monday.month, monday.day, 0, 0, 0, 0);
  }
  throw new Error("report schedule: no workday occurrence found");
}

/** the first occurrence strictly after `after` and at or after `notBefore` */
function firstFrom(series: Series, after: number, notBefore: number): number {
  const bound = Math.max(after, notBefore);
  let k = Math.max(0, series.indexNear(bound));
  for (let steps = 0; steps < MAX_STEPS; steps++, k++) {
    const t = series.at(k);
    if (t > after && t >= notBefore) return t;
  }
  throw new Error(`report schedule: no occurrence found after ${new Date(bound).toISOString()}`);
}

function seriesOf(schedule: ScheduleInput, start: DateTime): Series {
  switch (schedule.frequency) {
    case "hourly":
      return hoursSeries(start, 1);
    case "daily":
      return daysSeries(start, 1);
    case "weekly":
      return daysSeries(start, 7);
    case "monthly":
      return monthsSeries(start, 1, parseDayOfMonth(schedule.dayOfMonth) ?? start.day);
    case "last":
      return monthsSeries(start, 1, "last");
    case "custom": {
      const n = schedule.intervalAmount;
      if (typeof n !== "number" || !Number.isInteger(n) || n < 1) {
        throw new Error("custom report frequency needs a positive integer intervalAmount");
      }
      switch (schedule.intervalFrequency) {
        case "hours":
          return hoursSeries(start, n);
        case "days":
          return daysSeries(start, n);
        case "weeks":
          return daysSeries(start, 7 * n);
        case "months":
          return monthsSeries(start, n, start.day);
        default:
          throw new Error("custom report frequency needs intervalFrequency hours, days, weeks or months");
      }
    }
    default:
      throw new Error(`unknown report frequency "${String(schedule.frequency)}"`);
  }
}

/** elapsed time: no calendar involved */
function hoursSeries(start: DateTime, hours: number): Series {
  const startMs = start.toMillis();
  const period = hours * HOUR_MS;
  return {
    at: (k) => startMs + k * period,
    indexNear: (t) => Math.floor((t - startMs) / period),
  };
}

/** calendar days in the zone, at startDate's local time of day */
function daysSeries(start: DateTime, days: number): Series {
  const startDay = civilDay(start);
  return {
    at(k) {
      if (k === 0) return start.toMillis();
      const date = DateTime.fromMillis((startDay + k * days) * DAY_MS, { zone: "utc" });
      return wallTime(start, date.year, date.month, date.day);
    },
    // one period of slack: an occurrence on an earlier local date is an earlier instant
    indexNear: (t) => Math.floor((civilDay(DateTime.fromMillis(t, { zone: start.zone })) - startDay) / days) - 1,
  };
}

function monthsSeries(start: DateTime, months: number, day: number | "last"): Series {
  const startMonth = start.year * 12 + (start.month - 1);
  return {
    at(k) {
      const index = startMonth + k * months;
      const year = Math.floor(index / 12);
      const month = (index % 12) + 1;
      const last = DateTime.utc(year, month).daysInMonth ?? 28;
      const d = day === "last" ? last : Math.min(day, last);
      if (year === start.year && month === start.month && d === start.day) return start.toMillis();
      return wallTime(start, year, month, d);
    },
    indexNear(t) {
      const local = DateTime.fromMillis(t, { zone: start.zone });
      return Math.floor((local.year * 12 + (local.month - 1) - startMonth) / months) - 1;
    },
  };
}

/**
 * The instant of a local date at startDate's time of day (or the time given).
 * luxon moves a wall time inside a spring-forward gap forward, but resolves an
 * ambiguous fall-back time to either instant depending on its first guess, so
 * the earliest candidate is taken explicitly.
 */
function wallTime(
  start: DateTime,
  year: number,
  month: number,
  day: number,
  hour = start.hour,
  minute = start.minute,
  second = start.second,
  millisecond = start.millisecond,
): number {
  const dt = DateTime.fromObject({ year, month, day, hour, minute, second, millisecond }, { zone: start.zone });
  return Math.min(dt.toMillis(), ...dt.getPossibleOffsets().map((c) => c.toMillis()));
}

/** days since 1970-01-01 of a DateTime's local calendar date */
function civilDay(dt: DateTime): number {
  return Date.UTC(dt.year, dt.month - 1, dt.day) / DAY_MS;
}

function parseDayOfMonth(value: string | undefined): number | undefined {
  if (!value || !/^\s*\d{1,2}\s*$/.test(value)) return undefined;
  const day = Number(value);
  return day >= 1 && day <= 31 ? day : undefined;
}

/** an RFC 3339 timestamp is an instant; one without an offset is read as wall time in the schedule's zone */
function parseTimestamp(value: string, zone: string, field: string): DateTime {
  const dt = DateTime.fromISO(value, { zone });
  if (!dt.isValid) throw new Error(`invalid report schedule ${field} "${value}"`);
  return dt;
}
