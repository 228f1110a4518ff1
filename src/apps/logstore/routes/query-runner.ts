// How the read routes run a query (query.ts, tail.ts): in its tenants' turn
// of the query queue, stopped at the strictest query_timeout or when the
// client goes, against the tenants' strictest limits.
import type { Context } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { createQueryQueue, TooManyOutstandingError } from "../../../lib/query-queue.ts";
import type { TaskRunner } from "../../../lib/tasks.ts";
import type { Limits } from "../core/limits.ts";
import type { Source } from "../core/logql/evaluate.ts";
import type { LogStore } from "../core/store.ts";

/** Loki's answer to a query past its deadline (server.ErrDeadlineExceeded, v3), with 504 */
export const QUERY_TIMEOUT_MESSAGE =
  "request timed out, decrease the duration of the request or add more label matchers (prefer exact match over regex match) to reduce the amount of data processed";

/** the header by which a client asks for Loki's response encodings (Grafana sends `categorize-labels`) */
const ENCODING_FLAGS = "X-Loki-Response-Encoding-Flags";
export const CATEGORIZE_LABELS = "categorize-labels";

/** the encoding flags a request sets: the header's comma-separated values as sent, as Loki's httpreq.ParseEncodingFlags reads them */
export function encodingFlagsOf(c: Context): string[] {
  const raw = c.req.header(ENCODING_FLAGS) ?? "";
  return raw === "" ? [] : [...new Set(raw.split(","))];
}

/** Go's time.Duration text: 721h0m0s */
export function goDuration(ms: number): string {
  const s = Math.floor(ms / 1000);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  return `${h}h${m}m${s % 60}s`;
}

export interface QueryRunnerDeps {
  store: LogStore;
  limits: (tenant: string) => Limits;
  /** where chunk scans run (the worker pool); this thread when absent */
  runner?: TaskRunner | undefined;
  /** queries run at once (the querier's max_concurrent; default 4) */
  maxConcurrent?: number | undefined;
  /** a tenant's pending delete requests, whose lines answers leave out (core/deletion/) */
  deletes?: Source["deletes"];
}

export type QueryRunner = ReturnType<typeof createQueryRunner>;

export function createQueryRunner(deps: QueryRunnerDeps) {
  /** the strictest limit among the tenants of a query */
  const limitOf = <K extends keyof Limits>(tenants: string[], key: K): Limits[K] =>
    tenants.map((t) => deps.limits(t)[key]).reduce((a, b) => (b < a ? b : a));
  /** the strictest of a limit where 0 means none: the smallest set one, or 0 when no tenant sets one */
  const strictestSet = (tenants: string[], key: "query_timeout" | "max_query_series" | "max_outstanding_per_tenant"): number =>
    tenants.map((t) => deps.limits(t)[key]).reduce((a, b) => (a > 0 && (b <= 0 || a <= b) ? a : b));

  /** templates render at most the tenants' (strictest) max_line_size; without one, the template's default */
  const sourceOf = (tenants: string[], signal?: AbortSignal): Source => {
    const sizes = tenants.map((t) => deps.limits(t).max_line_size).filter((n) => n > 0);
    const maxSeries = strictestSet(tenants, "max_query_series");
    return {
      store: deps.store,
      tenants,
      runner: deps.runner,
      signal,
      deletes: deps.deletes,
      ...(maxSeries > 0 ? { maxSeries } : {}),
      ...(sizes.length ? { maxTemplateOutput: Math.min(...sizes) } : {}),
    };
  };
  const queue = createQueryQueue(deps.maxConcurrent ?? 4);
  return {
    limitOf,
    sourceOf,
    /**
     * Runs a query in its tenants' turn, stopped at the strictest
     * query_timeout: its tasks are aborted and the answer is the real store's
     * 504. `client`: aborts when the client goes (the real store's 499
     * "context canceled", which no one reads).
     */
    async limited<T>(client: AbortSignal | undefined, tenants: string[], run: (src: Source) => Promise<T>): Promise<T> {
      const timeout = strictestSet(tenants, "query_timeout");
      const ctl = new AbortController();
      const timeoutError = new ApiError(504, QUERY_TIMEOUT_MESSAGE);
      const timer = timeout > 0 ? setTimeout(() => ctl.abort(timeoutError), timeout) : undefined;
      const canceled = new ApiError(499, "context canceled");
      const onGone = () => ctl.abort(canceled);
      if (client?.aborted) onGone();
      client?.addEventListener("abort", onGone, { once: true });
      try {
        return await queue.run(tenants.join("|"), strictestSet(tenants, "max_outstanding_per_tenant"), ctl.signal, () => run(sourceOf(tenants, ctl.signal)));
      } catch (err) {
        if (err instanceof TooManyOutstandingError) throw new ApiError(429, err.message);
        if (ctl.signal.aborted) throw ctl.signal.reason === canceled ? canceled : timeoutError;
        throw err;
      } finally {
        clearTimeout(timer);
        client?.removeEventListener("abort", onGone);
      }
    },
    /** a range past the tenants' max_query_length is refused */
    checkLength(tenants: string[], start: bigint, end: bigint): void {
      const max = limitOf(tenants, "max_query_length");
      const length = Number((end - start) / 1_000_000n);
      if (max > 0 && length > max) throw new ApiError(400, `the query time range exceeds the limit (query length: ${goDuration(length)}, limit: ${goDuration(max)})`);
    },
    /** a log query's limit past the tenants' max_entries_limit_per_query is refused */
    checkEntries(tenants: string[], limit: number): void {
      const max = limitOf(tenants, "max_entries_limit_per_query");
      if (max > 0 && limit > max) throw new ApiError(400, `max entries limit per query exceeded, limit > max_entries_limit_per_query (${limit} > ${max})`);
    },
  };
}
