// The Prometheus-compatible query API under /prometheus/api/v1 (and
// /api/v1): query, query_range, series, labels, label values, metadata,
// exemplars (reference §10). Queries run through PromQL over the tenant's
// data with its per-query limits, at most querier.max_concurrent at a time.
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import type { Semaphore } from "../../../lib/semaphore.ts";
import type { HeadSeries } from "../core/head.ts";
import { instantQueryJson, parsePromQLCached, PromQLParseError, rangeQueryJson } from "../core/promql/index.ts";
import { newBudget, type MetricsStore, type QueryBudget } from "../core/store.ts";
import type { Matcher, MetricsLimitsSource, SampleQuerier } from "../core/types.ts";
import { isValidLabelName } from "../core/validate.ts";
import { parseSelector } from "./match-selectors.ts";
import { invalidParam, MAX_TIME, MIN_TIME, paramsOf, parseDurationParam, parseTimeParam, type Params } from "./params.ts";
import { readerOf, type TenantGate } from "./tenant.ts";

export interface QueryDeps {
  store: MetricsStore;
  limits: MetricsLimitsSource;
  gate: TenantGate;
  concurrency: Semaphore;
  /** whether max_fetched_chunk_bytes_per_query applies (ingester_stream_chunks_when_using_blocks) */
  chunkBytesLimit: boolean;
  now: () => number;
}

const MAX_POINTS = 11_000;
const success = (c: Context, data: unknown) => c.json({ status: "success", data });
/** a success answer whose data is JSON text already (query results, rendered in slices) */
const successJson = (c: Context, data: string) => c.body(`{"status":"success","data":${data}}`, 200, { "Content-Type": "application/json" });

export function registerQueries(app: Hono, deps: QueryDeps): void {
  const budgetOf = (tenant: string) => {
    const l = deps.limits.of(tenant);
    return newBudget(l.max_series_per_query, deps.chunkBytesLimit ? l.max_fetched_chunk_bytes_per_query : 0, l.max_samples_per_query, l.query_timeout);
  };
  /** runs one query in its turn; the store and the engine count into one budget, which starts with the turn */
  const runQuery = <T>(tenant: string, f: (q: SampleQuerier, budget: QueryBudget) => Promise<T>) =>
    deps.concurrency.run(() => {
      const budget = budgetOf(tenant);
      return f(deps.store.querier(tenant, budget), budget);
    });
  const parse = (text: string | undefined) => {
    try {
      return parsePromQLCached(text ?? "");
    } catch (err) {
      if (err instanceof PromQLParseError) throw invalidParam("query", err.message);
      throw err;
    }
  };

  const query = async (c: Context) => {
    const tenant = readerOf(c, deps.gate);
    const p = await paramsOf(c);
    const expr = parse(p.get("query"));
    const time = parseTimeParam(p.get("time"), "time") ?? deps.now();
    return successJson(c, await runQuery(tenant, (q, budget) => instantQueryJson(q, expr, time, { budget })));
  };
  const queryRange = async (c: Context) => {
    const tenant = readerOf(c, deps.gate);
    const p = await paramsOf(c);
    const expr = parse(p.get("query"));
    const start = parseTimeParam(p.get("start") ?? "", "start");
    if (start === undefined) throw invalidParam("start", `cannot parse "" to a valid timestamp`);
    const end = parseTimeParam(p.get("end") ?? "", "end");
    if (end === undefined) throw invalidParam("end", `cannot parse "" to a valid timestamp`);
    if (end < start) throw invalidParam("end", "end timestamp must not be before start time");
    const step = parseDurationParam(p.get("step"), "step");
    if (step === undefined) throw invalidParam("step", `cannot parse "" to a valid duration`);
    if (!(step > 0)) throw invalidParam("step", "zero or negative query resolution step widths are not accepted. Try a positive integer");
    if ((end - start) / step > MAX_POINTS) {
      throw new ApiError(400, "exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)");
    }
    return successJson(c, await runQuery(tenant, (q, budget) => rangeQueryJson(q, expr, start, end, step, { budget })));
  };

  /** the series of the tenant matching any match[] selector (all when none) with data in [start, end] */
  const seriesOf = (tenant: string, p: Params, required: boolean): HeadSeries[] => {
    const matches = p.all("match[]");
    if (required && matches.length === 0) throw new ApiError(400, "no match[] parameter provided");
    const start = parseTimeParam(p.get("start"), "start") ?? MIN_TIME;
    const end = parseTimeParam(p.get("end"), "end") ?? MAX_TIME;
    if (end < start) throw invalidParam("end", "end timestamp must not be before start time");
    const selectors = matches.map(parseSelector);
    const head = deps.store.peek(tenant);
    if (!head) return [];
    const inRange = (s: HeadSeries) => s.firstT <= end && s.lastT >= start;
    if (selectors.length === 0) return [...head.byId.values()].filter(inRange);
    const found = new Map<number, HeadSeries>();
    for (const matchers of selectors) for (const s of head.select(matchers)) if (inRange(s)) found.set(s.id, s);
    return [...found.values()];
  };
  const limitOf = (p: Params) => {
    const raw = p.get("limit");
    if (raw === undefined || raw === "") return Infinity;
    const n = Number(raw);
    if (!/^\d+$/.test(raw)) throw invalidParam("limit", `cannot parse "${raw}" to a valid limit`);
    return n === 0 ? Infinity : n;
  };

  const series = async (c: Context) => {
    const tenant = readerOf(c, deps.gate);
    const p = await paramsOf(c);
    const limit = limitOf(p);
    const found = seriesOf(tenant, p, true).map((s) => s.labels);
    found.sort((a, b) => compareLabels(a, b));
    return success(c, found.slice(0, limit));
  };
  const labels = async (c: Context) => {
    const tenant = readerOf(c, deps.gate);
    const p = await paramsOf(c);
    const limit = limitOf(p);
    const names = new Set<string>();
    if (p.all("match[]").length === 0 && p.get("start") === undefined && p.get("end") === undefined) {
      for (const n of deps.store.peek(tenant)?.labelNames() ?? []) names.add(n);
    } else {
      for (const s of seriesOf(tenant, p, false)) for (const n of Object.keys(s.labels)) names.add(n);
    }
    return success(c, [...names].sort().slice(0, limit));
  };
  const labelValues = async (c: Context) => {
    const tenant = readerOf(c, deps.gate);
    const name = c.req.param("name") ?? "";
    if (name !== "__name__" && !isValidLabelName(name)) throw new ApiError(400, `invalid label name: "${name}"`);
    const p = await paramsOf(c);
    const limit = limitOf(p);
    const values = new Set<string>();
    if (p.all("match[]").length === 0 && p.get("start") === undefined && p.get("end") === undefined) {
      for (const v of deps.store.peek(tenant)?.labelValues(name) ?? []) values.add(v);
    } else {
      for (const s of seriesOf(tenant, p, false)) if (s.labels[name] !== undefined) values.add(s.labels[name]!);
    }
    return success(c, [...values].sort().slice(0, limit));
  };
  const metadata = async (c: Context) => {
    const tenant = readerOf(c, deps.gate);
    const p = await paramsOf(c);
    const limit = limitOf(p);
    const only = p.get("metric");
    const out: Record<string, Array<{ type: string; help: string; unit: string }>> = {};
    const entries = [...(deps.store.peek(tenant)?.metadata ?? new Map())].sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [metric, m] of entries) {
      if (only !== undefined && only !== "" && metric !== only) continue;
      if (Object.keys(out).length >= limit) break;
      out[metric] = [m];
    }
    return success(c, out);
  };
  const exemplars = async (c: Context) => {
    readerOf(c, deps.gate);
    const p = await paramsOf(c);
    parse(p.get("query"));
    // Prometheus checks the range even though nothing is kept (web/api/v1 queryExemplars)
    const start = parseTimeParam(p.get("start"), "start") ?? MIN_TIME;
    const end = parseTimeParam(p.get("end"), "end") ?? MAX_TIME;
    if (end < start) throw new ApiError(400, "end timestamp must not be before start timestamp");
    // exemplars are not kept (max_global_exemplars_per_user is 0, as Mimir's default)
    return success(c, []);
  };

  for (const prefix of ["/prometheus/api/v1", "/api/v1"]) {
    app.on(["GET", "POST"], `${prefix}/query`, query);
    app.on(["GET", "POST"], `${prefix}/query_range`, queryRange);
    app.on(["GET", "POST"], `${prefix}/series`, series);
    app.on(["GET", "POST"], `${prefix}/labels`, labels);
    app.get(`${prefix}/label/:name/values`, labelValues);
    app.get(`${prefix}/metadata`, metadata);
    app.on(["GET", "POST"], `${prefix}/query_exemplars`, exemplars);
  }
}

function compareLabels(a: Record<string, string>, b: Record<string, string>): number {
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
    if (ka[i] !== kb[i]) return ka[i]! < kb[i]! ? -1 : 1;
    const va = a[ka[i]!]!;
    const vb = b[kb[i]!]!;
    if (va !== vb) return va < vb ? -1 : 1;
  }
  return ka.length - kb.length;
}
