// Scheduled reports (enterprise; spec "Report" and "Reporting"). A report is
// stored as validated; its state and next send time are computed from the
// schedule. Rendering and emailing are not done: a report is `scheduled`
// while a send lies ahead and `expired` once none does.
import type { Sql } from "../../../../db/sql.ts";
import { DateTime } from "luxon";
import { badRequest, notFound } from "../../../../lib/errors.ts";
import { isValidTimeZone, nextSendTime } from "./report-schedule.ts";

export const FREQUENCIES = ["once", "hourly", "daily", "weekly", "monthly", "last", "custom"] as const;
export const INTERVALS = ["hours", "days", "weeks", "months"] as const;
export const FORMATS = ["pdf", "csv", "image"] as const;

export interface Schedule {
  startDate: string;
  endDate: string | null;
  frequency: (typeof FREQUENCIES)[number];
  intervalFrequency: (typeof INTERVALS)[number] | "";
  intervalAmount: number;
  workdaysOnly: boolean;
  dayOfMonth: string;
  timeZone: string;
}

export interface ReportDashboard {
  uid: string;
  timeRange: { from: string; to: string };
  reportVariables: Record<string, unknown>;
}

export interface ReportBody {
  name: string;
  recipients: string;
  replyTo: string;
  message: string;
  schedule: Schedule;
  options: { orientation: "portrait" | "landscape"; layout: "grid" | "simple" };
  enableDashboardUrl: boolean;
  dashboards: ReportDashboard[];
  formats: Array<(typeof FORMATS)[number]>;
}

export interface Report {
  id: number;
  orgId: number;
  userId: number;
  body: ReportBody;
  created: Date;
  updated: Date;
}

const EMAIL = /^[^\s@,;<>"]+@[^\s@,;<>"]+\.[^\s@,;<>".]+$/;

/** a comma-separated list of email addresses, normalised to "a@x, b@y"; each must be valid */
export function emailList(raw: string, field: string, required: boolean): string {
  const list = raw.split(",").map((s) => s.trim()).filter(Boolean);
  if (required && !list.length) throw badRequest(`${field}: at least one email address is required`);
  const bad = list.find((e) => !EMAIL.test(e));
  if (bad !== undefined) throw badRequest(`${field}: "${bad}" is not a valid email address`);
  return list.join(", ");
}

/** "every 10000 weeks" is already 190 years: more is a mistake, and would overflow the calendar */
export const MAX_INTERVAL_AMOUNT = 10_000;

/**
 * RFC 3339 with a four-digit year; the offset may be left out (the time is
 * then wall time in the schedule's zone, as report-schedule.ts reads it).
 * Date.parse is not used: it accepts forms ("January 5, 2099") the schedule
 * cannot read, and reads a time without offset in the server's own zone.
 */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/i;

/** the instant of a schedule timestamp in the schedule's zone, or undefined when it is not one */
function instantOf(value: string, zone: string): number | undefined {
  if (!TIMESTAMP.test(value)) return undefined;
  const dt = DateTime.fromISO(value, { zone });
  return dt.isValid ? dt.toMillis() : undefined;
}

/** checks a schedule's rules the types cannot say, and fills what it implies */
export function normaliseSchedule(s: Partial<Schedule> & { frequency: Schedule["frequency"] }, now: number): Schedule {
  const timeZone = s.timeZone || "UTC";
  if (!isValidTimeZone(timeZone)) throw badRequest(`schedule.timeZone: "${timeZone}" is not a valid IANA time zone`);
  const startDate = s.startDate || new Date(now).toISOString();
  const start = instantOf(startDate, timeZone);
  if (start === undefined) throw badRequest("schedule.startDate: must be an RFC 3339 timestamp");
  const endDate = s.endDate || null;
  const end = endDate === null ? null : instantOf(endDate, timeZone);
  if (end === undefined) throw badRequest("schedule.endDate: must be an RFC 3339 timestamp or null");
  if (end !== null && end < start) throw badRequest("schedule.endDate: must not be before startDate");
  const custom = s.frequency === "custom";
  if (custom && !s.intervalFrequency) throw badRequest("schedule.intervalFrequency: required with frequency custom (hours, days, weeks or months)");
  if (custom && !s.intervalAmount) throw badRequest("schedule.intervalAmount: required with frequency custom (a positive whole number)");
  if (custom && s.intervalAmount! > MAX_INTERVAL_AMOUNT) {
    throw badRequest(`schedule.intervalAmount: must be a whole number from 1 to ${MAX_INTERVAL_AMOUNT}`);
  }
  if (s.dayOfMonth && !/^(\d{1,2}|last)$/.test(s.dayOfMonth)) throw badRequest("schedule.dayOfMonth: must be a day number from 1 to 31 or last");
  if (s.dayOfMonth && /^\d+$/.test(s.dayOfMonth) && (Number(s.dayOfMonth) < 1 || Number(s.dayOfMonth) > 31)) {
    throw badRequest("schedule.dayOfMonth: must be a day number from 1 to 31 or last");
  }
  return {
    startDate,
    endDate,
    frequency: s.frequency,
    intervalFrequency: custom ? s.intervalFrequency! : "",
    intervalAmount: custom ? s.intervalAmount! : 0,
    // only hourly and daily schedules skip weekends
    workdaysOnly: (s.frequency === "hourly" || s.frequency === "daily") && Boolean(s.workdaysOnly),
    dayOfMonth: s.frequency === "last" ? "last" : s.frequency === "monthly" ? (s.dayOfMonth ?? "") : "",
    timeZone,
  };
}

/** the next send after `now`, and the state that follows from it */
export function scheduleState(s: Schedule, now: number): { nextSendTime: string | null; state: "scheduled" | "expired" } {
  // monthly on day "last" is the `last` frequency: the last day of every month
  const frequency = s.frequency === "monthly" && s.dayOfMonth === "last" ? "last" : s.frequency;
  let next: number | null;
  try {
    next = nextSendTime({ ...s, frequency, dayOfMonth: s.dayOfMonth === "last" ? undefined : s.dayOfMonth || undefined }, now);
  } catch {
    // a schedule stored before a rule tightened must not make the report (and the list) unreadable
    next = null;
  }
  // beyond the range of Date (year 275760): no send that can be named
  if (next !== null && !(Math.abs(next) <= 8.64e15)) next = null;
  return next === null ? { nextSendTime: null, state: "expired" } : { nextSendTime: new Date(next).toISOString(), state: "scheduled" };
}

export interface ReportStore {
  list(orgId: number): Promise<Report[]>;
  get(orgId: number, id: number): Promise<Report>;
  create(orgId: number, userId: number, body: ReportBody, now: Date): Promise<number>;
  update(orgId: number, id: number, body: ReportBody, now: Date): Promise<void>;
  delete(orgId: number, id: number): Promise<void>;
}

const reportNotFound = () => notFound("report not found");

function toReport(r: Record<string, unknown>): Report {
  return {
    id: Number(r.id),
    orgId: Number(r.org_id),
    userId: Number(r.user_id),
    body: r.body as ReportBody,
    created: r.created_at as Date,
    updated: r.updated_at as Date,
  };
}

export function createReportStore(pg: Sql): ReportStore {
  return {
    async list(orgId) {
      const r = await pg.query<Record<string, unknown>>("select * from reports where org_id = $1 order by id", [orgId]);
      return r.rows.map(toReport);
    },
    async get(orgId, id) {
      const r = await pg.query<Record<string, unknown>>("select * from reports where org_id = $1 and id = $2", [orgId, id]);
      if (!r.rows[0]) throw reportNotFound();
      return toReport(r.rows[0]);
    },
    async create(orgId, userId, body, now) {
      const r = await pg.query<{ id: number }>(
        "insert into reports (org_id, user_id, body, created_at, updated_at) values ($1, $2, $3, $4, $4) returning id",
        [orgId, userId, body, now],
      );
      return r.rows[0]!.id;
    },
    async update(orgId, id, body, now) {
      const r = await pg.query("update reports set body = $3, updated_at = $4 where org_id = $1 and id = $2", [orgId, id, body, now]);
      if (!r.affectedRows) throw reportNotFound();
    },
    async delete(orgId, id) {
      const r = await pg.query("delete from reports where org_id = $1 and id = $2", [orgId, id]);
      if (!r.affectedRows) throw reportNotFound();
    },
  };
}
