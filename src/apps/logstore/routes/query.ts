// The read API (reference §3): labels, label values, series, query_range,
// query and index/stats, with the real product's parameters, defaults,
// limits and response shapes.
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { queryParams } from "../../../lib/http/query.ts";
import type { TaskRunner } from "../../../lib/tasks.ts";
import type { Limits } from "../core/limits.ts";
import { formatValue, runLogQuery, runMetricQuery, selectStreams, stepsOf, type Series, type Source, type StreamResult } from "../core/logql/evaluate.ts";
import { parseLogQL, parseSelector, type LogQuery, type Matcher } from "../core/logql/parse.ts";
import type { LogStore, Stream } from "../core/store.ts";
import { parseDirection, parseLimit, parseStep, parseTime, timeRange } from "./params.ts";
import type { StoreAuth } from "../../../store-access/http.ts";
import { countIn } from "../core/head.ts";
import { CATEGORIZE_LABELS, createQueryRunner, encodingFlagsOf, type QueryRunner } from "./query-runner.ts";
import { streamsJson } from "../core/streams-json.ts";

export interface QueryDeps {
  store: LogStore;
  limits: (tenant: string) => Limits;
  /** who may read which tenants (store-access) */
  auth: StoreAuth;
  now: () => number;
  /** where chunk scans run (the worker pool); this thread when absent */
  runner?: TaskRunner | undefined;
  /** queries run at once (the querier's max_concurrent; default 4) */
  maxConcurrent?: number | undefined;
  /** the queue and limits queries run under, shared with tail.ts (made here when absent) */
  queries?: QueryRunner | undefined;
}

const bad = (message: string) => new ApiError(400, message);
const MAX_POINTS = 11_000;

/** zero counters: clients expect a stats object with a summary */
const STATS = {
  summary: {
    bytesProcessedPerSecond: 0, linesProcessedPerSecond: 0, totalBytesProcessed: 0, totalLinesProcessed: 0,
    execTime: 0, queueTime: 0, subqueries: 0, totalEntriesReturned: 0, splits: 0, shards: 0,
  },
  querier: { store: {} },
  ingester: {},
  cache: {},
};

/**
 * The stats of an answer: zero counters but totalEntriesReturned, which Loki
 * sets to what the answer holds (the entries of a streams answer, the series
 * of a matrix or vector), and clients display
 */
function statsOf(entries: number): typeof STATS {
  return { ...STATS, summary: { ...STATS.summary, totalEntriesReturned: entries } };
}

/**
 * The body of a streams answer, the very text JSON.stringify gives, made from
 * the lines' remembered JSON: escaping the same lines again for every query
 * was most of a small log query's cost. With encoding flags, `data` names them
 * after `resultType` (Loki's marshal.encodeData), and a categorized value has a
 * third element (its metadata and parsed labels, `{}` when none).
 */
function streamsBody(result: readonly StreamResult[], flags: readonly string[]): string {
  let entries = 0;
  for (const s of result) entries += s.values.length;
  return `{"status":"success","data":{"resultType":"streams",${flags.length ? `"encodingFlags":${JSON.stringify(flags)},` : ""}"result":${streamsJson(result)},"stats":${JSON.stringify(statsOf(entries))}}}`;
}

/** parameters from the query string, or from a form body on POST */
async function paramsOf(c: Context): Promise<{ one: (n: string) => string | undefined; all: (n: string) => string[] }> {
  let form: Record<string, string | File | (string | File)[]> = {};
  if (c.req.method === "POST" && (c.req.header("Content-Type") ?? "").includes("application/x-www-form-urlencoded")) {
    form = await c.req.parseBody({ all: true });
  }
  const fromForm = (n: string) => [form[n] ?? []].flat().filter((v): v is string => typeof v === "string");
  const query = queryParams(c);
  return {
    one: (n) => query.one(n) ?? fromForm(n)[0],
    all: (n) => [...(query.all(n) ?? []), ...fromForm(n)],
  };
}

/** whether a stream holds anything in [from, to] */
function hasDataIn(s: Stream, from: bigint, to: bigint): boolean {
  if (s.chunks.some((c) => c.to >= from && c.from <= to)) return true;
  if (s.pending.some((p) => p.to >= from && p.from <= to)) return true;
  return s.head.length > 0 && s.head.to >= from && s.head.from <= to;
}

export function registerQueries(app: Hono, deps: QueryDeps): void {
  const base = "/svc/api/v1";
  const queries = deps.queries ?? createQueryRunner(deps);
  const { limitOf } = queries;
  /** a query of this request: stopped when its client goes */
  const limited = <T>(c: Context, tenants: string[], run: (src: Source) => Promise<T>) => queries.limited(c.req.raw.signal as AbortSignal | undefined, tenants, run);
  const checkLength = queries.checkLength;

  /** the tenants a read names, once its credentials are checked; counted as a query of its token */
  const reader = (c: Context) => {
    const tenants = deps.auth.tenants(c, "logs:read", true);
    deps.auth.queried(c);
    return tenants;
  };

  const streamsIn = (tenants: string[], matchers: Matcher[] | undefined, start: bigint, end: bigint) => {
    const query: LogQuery = { kind: "log", matchers: matchers ?? [], stages: [] };
    return selectStreams({ store: deps.store, tenants }, query).filter((s) => hasDataIn(s.stream, start, end));
  };

  const labels = async (c: Context) => {
    // credentials first: a body is parsed only for a caller who may read
    const tenants = reader(c);
    const p = await paramsOf(c);
    const { start, end } = timeRange(p.one, deps.now());
    const matchers = p.one("query") ? parseSelector(p.one("query")!) : undefined;
    const names = new Set<string>();
    for (const s of streamsIn(tenants, matchers, start, end)) for (const k of Object.keys(s.labels)) names.add(k);
    // no results: the data key is left out (reference §3)
    return c.json(names.size ? { status: "success", data: [...names].sort() } : { status: "success" });
  };
  app.get(`${base}/labels`, labels);
  app.post(`${base}/labels`, labels);

  app.get(`${base}/label/:name/values`, async (c) => {
    // credentials first: a body is parsed only for a caller who may read
    const tenants = reader(c);
    const p = await paramsOf(c);
    const { start, end } = timeRange(p.one, deps.now());
    const matchers = p.one("query") ? parseSelector(p.one("query")!) : undefined;
    const name = c.req.param("name");
    const values = new Set<string>();
    for (const s of streamsIn(tenants, matchers, start, end)) if (s.labels[name] !== undefined) values.add(s.labels[name]!);
    return c.json(values.size ? { status: "success", data: [...values].sort() } : { status: "success" });
  });

  const series = async (c: Context) => {
    // credentials first: a body is parsed only for a caller who may read
    const tenants = reader(c);
    const p = await paramsOf(c);
    const { start, end } = timeRange(p.one, deps.now());
    const groups = p.all("match[]").concat(p.all("match"));
    const found = new Map<string, Record<string, string>>();
    const add = (m: Matcher[] | undefined) => {
      for (const s of streamsIn(tenants, m, start, end)) found.set(JSON.stringify(Object.entries(s.labels).sort()), s.labels);
    };
    if (groups.length) for (const g of groups) add(parseSelector(g));
    else add(undefined);
    return c.json({ status: "success", data: [...found.values()] });
  };
  app.get(`${base}/series`, series);
  app.post(`${base}/series`, series);

  const rangeQuery = async (c: Context) => {
    // credentials first: a body is parsed only for a caller who may read
    const tenants = reader(c);
    const p = await paramsOf(c);
    const text = p.one("query") ?? "";
    const { start, end } = timeRange(p.one, deps.now());
    const limit = parseLimit(p.one("limit"));
    const backward = parseDirection(p.one("direction"));
    if (end < start) throw bad("end timestamp must not be before or equal to start time");
    const step = parseStep(p.one("step"), start, end);
    queries.checkEntries(tenants, limit);
    const query = parseLogQL(text);
    checkLength(tenants, start, end);
    if (query.kind === "log") {
      // Loki's query frontend names the flags on streams answers only (its matrix answers are Prometheus-shaped)
      const flags = encodingFlagsOf(c);
      const categorized = flags.includes(CATEGORIZE_LABELS);
      const result = await limited(c, tenants, (src) => runLogQuery(src, query, start, end, limit, backward, categorized));
      return c.body(streamsBody(result, flags), 200, { "Content-Type": "application/json" });
    }
    const startMs = Number(start / 1_000_000n);
    const endMs = Number(end / 1_000_000n);
    if ((endMs - startMs) / step > MAX_POINTS) {
      throw bad("exceeded maximum resolution of 11,000 points per time series. Try increasing the value of the step parameter");
    }
    const series = await limited(c, tenants, (src) => runMetricQuery(src, query, stepsOf(startMs, endMs, step)));
    return c.json({ status: "success", data: { resultType: "matrix", result: series.map(matrixOf), stats: statsOf(series.length) } });
  };
  app.get(`${base}/query_range`, rangeQuery);
  app.post(`${base}/query_range`, rangeQuery);

  const instantQuery = async (c: Context) => {
    // credentials first: a body is parsed only for a caller who may read
    const tenants = reader(c);
    const p = await paramsOf(c);
    const at = parseTime(p.one("time"), "time", BigInt(deps.now()) * 1_000_000n);
    parseLimit(p.one("limit"));
    parseDirection(p.one("direction"));
    const query = parseLogQL(p.one("query") ?? "");
    if (query.kind === "log") {
      throw bad("log queries are not supported as an instant query type, please change your query to a range query type");
    }
    const t = Number(at / 1_000_000n);
    const series = await limited(c, tenants, (src) => runMetricQuery(src, query, [t]));
    const result = series.map((s) => ({ metric: s.metric, value: [t / 1000, formatValue(s.points.get(t)!)] }));
    return c.json({ status: "success", data: { resultType: "vector", result, stats: statsOf(result.length) } });
  };
  app.get(`${base}/query`, instantQuery);
  app.post(`${base}/query`, instantQuery);

  const stats = async (c: Context) => {
    // credentials first: a body is parsed only for a caller who may read
    const tenants = reader(c);
    const p = await paramsOf(c);
    const { start, end } = timeRange(p.one, deps.now());
    const matchers = parseSelector(p.one("query") ?? "");
    const out = { streams: 0, chunks: 0, entries: 0, bytes: 0 };
    for (const s of streamsIn(tenants, matchers, start, end)) {
      out.streams++;
      for (const ch of [...s.stream.chunks, ...s.stream.pending.map((x) => ({ from: x.from, to: x.to, lines: x.count, bytes: x.bytes }))]) {
        if (ch.to < start || ch.from > end) continue;
        out.chunks++;
        out.entries += ch.lines;
        out.bytes += ch.bytes;
      }
      // entries still in the head count too, so a push is visible at once
      const inHead = countIn(s.stream.head.snapshot(), start, end);
      out.entries += inHead.entries;
      out.bytes += inHead.bytes;
    }
    return c.json(out);
  };
  app.get(`${base}/index/stats`, stats);
  app.post(`${base}/index/stats`, stats);
}

function matrixOf(s: Series) {
  return {
    metric: s.metric,
    values: [...s.points].sort((a, b) => a[0] - b[0]).map(([t, v]) => [t / 1000, formatValue(v)]),
  };
}
