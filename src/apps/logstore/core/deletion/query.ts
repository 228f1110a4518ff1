// What a delete request asks for, read as the real log store's compactor
// reads it (Loki's pkg/compactor/deletion: request_handler.go, util.go,
// delete_request.go): a log query — a stream selector and optional stages —
// over [start, end], both ends included, at millisecond precision. An entry is
// deleted when its stream matches the selector, its time is in the range and
// the stages keep it (line filters, parsers, label filters; structured
// metadata joins the labels as in queries). Pure: query tasks on the worker
// pool import it.
import { ApiError } from "../../../../lib/errors.ts";
import { parseLogQL, type LogQuery, type Matcher, type Stage } from "../logql/parse.ts";
import { matchesAll, runPipeline } from "../logql/pipeline.ts";
import type { Stream } from "../store.ts";

/** a delete request as a task takes it (structured-cloneable): its query's text and range in ns, both ends included */
export interface DeleteInput {
  query: string;
  from: bigint;
  to: bigint;
}

/** a pending delete request as queries filter with it */
export interface ActiveDelete extends DeleteInput {
  matchers: readonly Matcher[];
  stages: readonly Stage[];
  /** creation order among the process's requests (a tenant's list is in this order) */
  seq: number;
  /** processed or cancelled: no longer filters */
  gone?: boolean;
}

const bad = (message: string) => new ApiError(400, message);

/**
 * A delete request's query (util.go parseDeletionQuery): a log query, never a
 * metric one; what does not parse is refused with the parser's words behind
 * Loki's `invalid query expression: `.
 */
export function parseDeleteQuery(text: string): LogQuery {
  let q;
  try {
    q = parseLogQL(text);
  } catch (err) {
    if (err instanceof ApiError) throw bad(`invalid query expression: ${err.message}`);
    throw err;
  }
  if (q.kind !== "log") throw bad("invalid query expression: parse error : only log selector is supported");
  return q;
}

/** Loki's HasFilter: a line or label filter among the stages (only such requests are split by max_interval) */
export const hasFilter = (q: LogQuery) => q.stages.some((s) => s.kind === "line" || s.kind === "labels");

/** the stages of a query text a task was given (parsed where it runs, remembered by the parser) */
export function stagesOf(text: string): readonly Stage[] {
  const q = parseLogQL(text);
  return q.kind === "log" ? q.stages : [];
}

/** tells whether an entry of one stream is deleted; `needsLine`: some request has stages (its line must be read) */
export type DeleteTest = ((ts: bigint, line: string, metadata: Record<string, string> | undefined) => boolean) & { needsLine: boolean };

/**
 * The test of a stream's entries against the delete requests that touch it
 * (their selectors already matched the stream's labels): in a request's range
 * and kept by its stages (Loki's DeleteRequest.FilterFunction). Undefined
 * when there are none.
 */
export function deleteTest(deletes: ReadonlyArray<{ from: bigint; to: bigint; stages: readonly Stage[] }>, labels: Record<string, string>): DeleteTest | undefined {
  if (!deletes.length) return undefined;
  const test = ((ts: bigint, line: string, metadata: Record<string, string> | undefined) => {
    for (const d of deletes) {
      if (ts < d.from || ts > d.to) continue;
      if (!d.stages.length || runPipeline(d.stages, line, labels, undefined, metadata) !== undefined) return true;
    }
    return false;
  }) as DeleteTest;
  test.needsLine = deletes.some((d) => d.stages.length > 0);
  return test;
}

/** deleteTest of requests as a task receives them (their texts parsed here) */
export function deleteTestOf(inputs: readonly DeleteInput[] | undefined, labels: Record<string, string>): DeleteTest | undefined {
  return inputs?.length ? deleteTest(inputs.map((d) => ({ from: d.from, to: d.to, stages: stagesOf(d.query) })), labels) : undefined;
}

const FLOAT = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?(Z|[+-]\d{2}:\d{2})$/;

/**
 * A delete request's time (request_handler.go parseTime), in ms: RFC 3339, or
 * exactly ten characters of unix seconds (util.ParseTime: a float, its
 * fraction rounded to ms); undefined when neither
 */
export function parseDeleteTime(raw: string): number | undefined {
  const rfc = RFC3339.exec(raw);
  if (rfc) {
    const whole = Date.parse(`${rfc[1]}${rfc[3]}`);
    // Go's UnixMilli: the fraction's milliseconds, truncated
    return Number.isNaN(whole) ? undefined : whole + Number(((rfc[2] ?? "") + "000").slice(0, 3));
  }
  if (raw.length !== 10 || !FLOAT.test(raw)) return undefined;
  const t = Number(raw);
  // "1e99999999" is ten characters too: what no int64 of ms holds is no time
  if (!Number.isFinite(t) || Math.abs(t) > 9e12) return undefined;
  const seconds = Math.trunc(t);
  return seconds * 1000 + Math.round((t - seconds) * 1000);
}

const GO_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, "µs": 1e-3, "μs": 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Go's time.ParseDuration, in ms (fractions kept); undefined when it is not one */
export function parseGoDuration(raw: string): number | undefined {
  const m = /^([+-]?)(.*)$/.exec(raw)!;
  if (m[2] === "0") return 0;
  const re = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/gy;
  let total = 0;
  let end = 0;
  for (let p = re.exec(m[2]!); p; p = re.exec(m[2]!)) {
    total += Number(p[1]) * GO_UNITS[p[2]!]!;
    end = re.lastIndex;
  }
  if (end === 0 || end !== m[2]!.length) return undefined;
  return m[1] === "-" ? -total : total;
}

/** Go's time.Duration.String() of whole milliseconds: 500ms, 45s, 30m0s, 24h0m0s */
export function goDurationText(ms: number): string {
  if (ms === 0) return "0s";
  const sign = ms < 0 ? "-" : "";
  const abs = Math.abs(ms);
  if (abs < 1000) return `${sign}${abs}ms`;
  const h = Math.floor(abs / 3_600_000);
  const m = Math.floor((abs % 3_600_000) / 60_000);
  return `${sign}${h ? `${h}h` : ""}${h || m ? `${m}m` : ""}${(abs % 60_000) / 1000}s`;
}

/** a delete request as its parameters give it, checked */
export interface DeleteSpec {
  query: string;
  parsed: LogQuery;
  startMs: number;
  endMs: number;
}

/**
 * The parameters of `POST /loki/api/v1/delete` checked in Loki's order and
 * words (request_handler.go): query, start, end (default now; never in the
 * future; after start), and for a request with filters `max_interval` (at
 * least 1s, at most the configured delete_max_interval, at most the range).
 * The real product splits a filtered request into max_interval shards; here
 * it is one unit of work (docs/choices.md), so the value is only checked.
 */
export function readDeleteSpec(param: (name: string) => string | undefined, nowMs: number, maxIntervalMs: number): DeleteSpec {
  const query = param("query") ?? "";
  if (!query) throw bad("query not set");
  const parsed = parseDeleteQuery(query);
  const start = param("start") ?? "";
  if (!start) throw bad("start time not set");
  const startMs = parseDeleteTime(start);
  if (startMs === undefined) throw bad("invalid start time: require unix seconds or RFC3339 format");
  const end = param("end") ?? "";
  const endMs = end === "" ? nowMs : parseDeleteTime(end);
  if (endMs === undefined) throw bad("invalid end time: require unix seconds or RFC3339 format");
  if (endMs > nowMs) throw bad("deletes in the future are not allowed");
  if (startMs >= endMs) throw bad("start time can't be greater than or equal to end time");
  const interval = param("max_interval") ?? "";
  if (hasFilter(parsed) && interval !== "") {
    const ms = parseGoDuration(interval);
    if (ms === undefined || ms < 1000) throw bad("invalid max_interval: valid time units are 's', 'm', 'h'");
    if (maxIntervalMs !== 0 && ms > maxIntervalMs) throw bad(`max_interval can't be greater than ${goDurationText(maxIntervalMs)}`);
    if (ms > endMs - startMs) throw bad(`max_interval can't be greater than the interval to be deleted (${goDurationText(endMs - startMs)})`);
  }
  return { query, parsed, startMs, endMs };
}

/**
 * The pending requests whose selector matches a stream, remembered per stream:
 * the tenant's list is the same array until a request comes or goes, and a new
 * one is matched once (never every request against every stream at each
 * query: a tenant's thousand pending requests would hold the event loop)
 */
const touchingCache = new WeakMap<Stream, { all: readonly ActiveDelete[]; seq: number; touching: ActiveDelete[] }>();

export function touchingOf(stream: Stream, all: readonly ActiveDelete[]): ActiveDelete[] {
  let c = touchingCache.get(stream);
  if (c?.all === all) return c.touching;
  if (!c) touchingCache.set(stream, (c = { all, seq: -1, touching: [] }));
  // the requests gone since, then the new ones (at the end of the list, in creation order): never the whole list
  const touching = c.touching.filter((d) => !d.gone);
  let first = all.length;
  while (first > 0 && all[first - 1]!.seq > c.seq) first--;
  for (let i = first; i < all.length; i++) if (matchesAll(all[i]!.matchers, stream.labels)) touching.push(all[i]!);
  c.seq = all.at(-1)?.seq ?? c.seq;
  c.all = all;
  c.touching = touching;
  return touching;
}

/**
 * Matches the tenant's pending requests against each of its streams now, in
 * slices that give the event loop back, so the first query after a burst of
 * new requests finds them matched (it would otherwise match them all at once)
 */
export async function prematch(streams: () => Iterable<Stream>, all: readonly ActiveDelete[]): Promise<void> {
  let n = 0;
  for (const s of streams()) {
    touchingOf(s, all);
    if (++n % 2_000 === 0) await new Promise((r) => setImmediate(r));
  }
}
