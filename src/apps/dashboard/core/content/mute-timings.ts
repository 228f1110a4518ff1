// Mute timings (/api/v1/provisioning/mute-timings): named sets of time
// intervals, kept as written and checked as the real product's Alertmanager
// reads them (times of day, weekdays, days of the month, months, years, a
// time zone). A timing a policy names cannot go; a rename follows into the
// policy tree and the alert rules' notification settings.
import type { Sql } from "../../../../db/sql.ts";
import { isPlainObject } from "../../../../lib/json.ts";
import { requireMaxLength } from "../identity/index.ts";
import { ALERTING_NAME_MAX, alertingError, fingerprint, requireRelaxedProvenance, requireVersion, type Provenance } from "./alerting-common.ts";
import { policyOf, renameTiming, storePolicy, treeUsesTiming, type Db } from "./notification-policies.ts";

export interface MuteTimingInput {
  name?: string | undefined;
  time_intervals?: unknown[] | undefined;
  version?: string | undefined;
}

export interface MuteTiming {
  name: string;
  time_intervals: unknown[];
  version: string;
  provenance: Provenance;
}

const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const MONTHS = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november", "december"];
const TIME = /^(([01]\d|2[0-3]):[0-5]\d|24:00)$/;

const minutes = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3));

/** "a:b" or "a" as the two ends of a range */
function ends(text: string): [string, string] {
  const [a, b, ...rest] = text.split(":");
  if (rest.length) return ["", ""];
  return [a!.trim(), (b ?? a!).trim()];
}

function rangeProblem(text: string, read: (s: string) => number | undefined, what: string, order = true): string | undefined {
  const [a, b] = ends(text);
  const start = read(a);
  const end = read(b);
  if (start === undefined) return `${JSON.stringify(a)} is not a valid ${what}`;
  if (end === undefined) return `${JSON.stringify(b)} is not a valid ${what}`;
  if (order && start > end) return `start ${what} cannot be after end ${what} in ${JSON.stringify(text)}`;
  return undefined;
}

const integer = (s: string) => (/^-?\d{1,9}$/.test(s) ? Number(s) : undefined);
const weekday = (s: string) => (WEEKDAYS.includes(s.toLowerCase()) ? WEEKDAYS.indexOf(s.toLowerCase()) : undefined);
const month = (s: string) => {
  const n = integer(s);
  if (n !== undefined) return n >= 1 && n <= 12 ? n : undefined;
  return MONTHS.includes(s.toLowerCase()) ? MONTHS.indexOf(s.toLowerCase()) + 1 : undefined;
};
const dayOfMonth = (s: string) => {
  const n = integer(s);
  return n !== undefined && n !== 0 && n >= -31 && n <= 31 ? n : undefined;
};
const year = (s: string) => {
  const n = integer(s);
  return n !== undefined && n > 0 ? n : undefined;
};

function validZone(zone: string): boolean {
  if (zone === "Local" || zone === "UTC") return true;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** days count from the month's end when negative: 1:5, -3:-1 and 5:-1 are ranges, 5:1 and -1:5 are not */
function daysOfMonthProblem(text: string): string | undefined {
  const problem = rangeProblem(text, dayOfMonth, "day of the month", false);
  if (problem) return problem;
  const [start, end] = ends(text).map((x) => dayOfMonth(x)!) as [number, number];
  if (start < 0 && end > 0) return `end day must be negative if start day is negative in ${JSON.stringify(text)}`;
  if (Math.sign(start) === Math.sign(end) && start > end) return `start day cannot be after end day in ${JSON.stringify(text)}`;
  return undefined;
}

/** why one time interval is not valid (naming the field), or undefined */
function intervalProblem(v: unknown, path: string): string | undefined {
  if (!isPlainObject(v)) return `${path} must be an object`;
  const list = (field: string, check: (s: string) => string | undefined): string | undefined => {
    const items = v[field];
    if (items == null) return undefined;
    if (!Array.isArray(items)) return `${path}.${field} must be an array`;
    for (const [i, item] of items.entries()) {
      if (typeof item !== "string") return `${path}.${field}[${i}] must be a string`;
      const problem = check(item);
      if (problem) return `${path}.${field}[${i}]: ${problem}`;
    }
    return undefined;
  };
  const times = v.times;
  if (times != null) {
    if (!Array.isArray(times)) return `${path}.times must be an array`;
    for (const [i, t] of times.entries()) {
      const at = `${path}.times[${i}]`;
      if (!isPlainObject(t)) return `${at} must be an object with start_time and end_time`;
      const { start_time: start, end_time: end } = t;
      if (typeof start !== "string" || typeof end !== "string" || !start || !end) return `${at}: both start and end times must be provided`;
      if (!TIME.test(start) || start === "24:00") return `${at}.start_time: couldn't parse timestamp ${start.slice(0, 20)}, invalid format`;
      if (!TIME.test(end)) return `${at}.end_time: couldn't parse timestamp ${end.slice(0, 20)}, invalid format`;
      if (minutes(start) >= minutes(end)) return `${at}: start time cannot be equal or greater than end time`;
    }
  }
  const problem = list("weekdays", (s) => rangeProblem(s, weekday, "weekday"))
    ?? list("days_of_month", daysOfMonthProblem)
    ?? list("months", (s) => rangeProblem(s, month, "month"))
    ?? list("years", (s) => rangeProblem(s, year, "year"));
  if (problem) return problem;
  if (v.location != null && (typeof v.location !== "string" || !validZone(v.location))) {
    return `${path}.location: unknown time zone ${String(v.location).slice(0, 60)}`;
  }
  return undefined;
}

/** 400 alerting.notifications.time-intervals.invalidFormat, the problem named */
function invalid(detail: string) {
  return alertingError(400, "alerting.notifications.time-intervals.invalidFormat",
    `Time interval is in invalid format. Correct the payload and try again. ${detail}`, { Error: detail });
}

/** the timing as it will be stored; refuses a missing name or an interval Alertmanager would not read */
function readTiming(input: MuteTimingInput): { name: string; time_intervals: unknown[] } {
  const name = input.name ?? "";
  if (!name) throw invalid("name: missing name in mute time interval");
  requireMaxLength("name", name, ALERTING_NAME_MAX);
  const intervals = input.time_intervals ?? [];
  for (const [i, v] of intervals.entries()) {
    const problem = intervalProblem(v, `time_intervals[${i}]`);
    if (problem) throw invalid(problem);
  }
  return { name, time_intervals: intervals };
}

type Row = { name: string; time_intervals: unknown[]; provenance: Provenance };

async function shape(row: Row): Promise<MuteTiming> {
  return { name: row.name, time_intervals: row.time_intervals, version: await fingerprint([row.name, row.time_intervals]), provenance: row.provenance };
}

const notFound = () => alertingError(404, "alerting.notifications.time-intervals.notFound");
const nameTaken = () => alertingError(400, "alerting.notifications.time-intervals.nameExists",
  "Time interval with this name already exists. Use a different name or update existing one.");

async function find(db: Db, orgId: number, name: string): Promise<Row | undefined> {
  const r = await db.query<Row>("select name, time_intervals, provenance from alerting_mute_timings where org_id = $1 and name = $2", [orgId, name]);
  return r.rows[0];
}

/** the rules' notification settings follow a renamed timing */
async function renameInRules(db: Db, orgId: number, from: string, to: string): Promise<void> {
  const r = await db.query<{ id: number; body: { notification_settings: Record<string, unknown> } }>(
    `select id, body from alert_rules where org_id = $1 and uid = any($2::text[])`, [orgId, await rulesUsing(db, orgId, from)],
  );
  for (const { id, body } of r.rows) {
    const settings = { ...body.notification_settings };
    for (const f of ["mute_time_intervals", "active_time_intervals"]) {
      if (Array.isArray(settings[f])) settings[f] = (settings[f] as unknown[]).map((n) => (n === from ? to : n));
    }
    await db.query("update alert_rules set body = $2 where id = $1", [id, { ...body, notification_settings: settings }]);
  }
}

/** the alert rules whose notification settings name the timing */
async function rulesUsing(db: Db, orgId: number, name: string): Promise<string[]> {
  const r = await db.query<{ uid: string }>(
    `select uid from alert_rules where org_id = $1 and (
       coalesce(body->'notification_settings'->'mute_time_intervals', '[]'::jsonb) ? $2
       or coalesce(body->'notification_settings'->'active_time_intervals', '[]'::jsonb) ? $2) order by id`,
    [orgId, name],
  );
  return r.rows.map((row) => row.uid);
}

export interface MuteTimingStore {
  list(orgId: number): Promise<MuteTiming[]>;
  get(orgId: number, name: string): Promise<MuteTiming>;
  create(orgId: number, input: MuteTimingInput, provenance: Provenance): Promise<MuteTiming>;
  /** PUT /:name: the body's name, when it differs, renames the timing */
  update(orgId: number, name: string, input: MuteTimingInput, provenance: Provenance): Promise<MuteTiming>;
  delete(orgId: number, name: string, provenance: Provenance, version: string | undefined): Promise<void>;
}

export function createMuteTimingStore(pg: Sql): MuteTimingStore {
  return {
    async list(orgId) {
      const r = await pg.query<Row>("select name, time_intervals, provenance from alerting_mute_timings where org_id = $1 order by name", [orgId]);
      return Promise.all(r.rows.map(shape));
    },
    async get(orgId, name) {
      const row = await find(pg, orgId, name);
      if (!row) throw notFound();
      return shape(row);
    },
    async create(orgId, input, provenance) {
      const timing = readTiming(input);
      return pg.transaction(async (tx) => {
        if (await find(tx, orgId, timing.name)) {
          throw nameTaken();
        }
        await tx.query("insert into alerting_mute_timings (org_id, name, time_intervals, provenance) values ($1, $2, $3, $4)",
          [orgId, timing.name, timing.time_intervals, provenance]);
        return shape({ ...timing, provenance });
      });
    },
    async update(orgId, name, input, provenance) {
      const timing = readTiming({ ...input, name: input.name || name });
      return pg.transaction(async (tx) => {
        const existing = await find(tx, orgId, name);
        if (!existing) throw notFound();
        requireRelaxedProvenance(existing.provenance, provenance);
        requireVersion(input.version, (await shape(existing)).version);
        if (timing.name !== name) {
          if (await find(tx, orgId, timing.name)) {
            throw nameTaken();
          }
          const { tree, provenance: treeProvenance } = await policyOf(tx, orgId);
          if (treeUsesTiming(tree, name)) await storePolicy(tx, orgId, renameTiming(tree, name, timing.name), treeProvenance);
          await renameInRules(tx, orgId, name, timing.name);
        }
        await tx.query("update alerting_mute_timings set name = $3, time_intervals = $4, provenance = $5, updated_at = now() where org_id = $1 and name = $2",
          [orgId, name, timing.name, timing.time_intervals, provenance]);
        return shape({ ...timing, provenance });
      });
    },
    async delete(orgId, name, provenance, version) {
      await pg.transaction(async (tx) => {
        const existing = await find(tx, orgId, name);
        // the real product: deleting what is not there is no error
        if (!existing) return;
        requireRelaxedProvenance(existing.provenance, provenance);
        const { tree } = await policyOf(tx, orgId);
        const rules = await rulesUsing(tx, orgId, name);
        if (treeUsesTiming(tree, name) || rules.length) {
          throw alertingError(409, "alerting.notifications.time-intervals.used", undefined, {
            ...(rules.length ? { UsedByRules: rules } : {}), ...(treeUsesTiming(tree, name) ? { UsedByRoutes: true } : {}),
          });
        }
        requireVersion(version, (await shape(existing)).version);
        await tx.query("delete from alerting_mute_timings where org_id = $1 and name = $2", [orgId, name]);
      });
    },
  };
}
