// What one query may cost (issue 16 #2): the series and chunk bytes it may
// fetch, the samples it may hold in memory at once (Prometheus's
// query.max-samples: samples loaded, subquery steps and every intermediate
// point, counted at evaluation time) and how long it may run (query_timeout).
// Exceeding a count is Prometheus's 422 "execution" error; running out of
// time its 503 "timeout" error.
import { ApiError } from "../../../lib/errors.ts";

/** the longest a query runs on the event loop before letting other requests in (ms) */
export const QUERY_SLICE_MS = 40;

export interface QueryBudget {
  maxSeries: number;
  maxChunkBytes: number;
  series: number;
  chunkBytes: number;
  /** samples and points one query may hold at once (0: no limit) */
  maxSamples: number;
  /** samples and points held now */
  samples: number;
  /** when the query must have finished (performance.now() ms; Infinity: never) */
  deadline: number;
}

export function newBudget(maxSeries: number, maxChunkBytes: number, maxSamples = 0, timeout = 0): QueryBudget {
  return { maxSeries, maxChunkBytes, series: 0, chunkBytes: 0, maxSamples, samples: 0, deadline: timeout > 0 ? performance.now() + timeout : Infinity };
}

export const seriesLimitError = (limit: number) =>
  new ApiError(422, `the query hit the max number of series limit (limit: ${limit} series)`);
export const chunkBytesLimitError = (limit: number) =>
  new ApiError(422, `the query hit the aggregated chunks size limit (limit: ${limit} bytes)`);
/** promql.ErrTooManySamples("query execution") as the Prometheus API renders it */
export const tooManySamplesError = () => new ApiError(422, "query processing would load too many samples into memory in query execution");
/** promql.ErrQueryTimeout("expression evaluation"): 503, errorType timeout */
export const queryTimeoutError = () =>
  new ApiError(503, "query timed out in expression evaluation", { body: { errorType: "timeout" } });

/** counts n more samples or points held; throws once over the limit */
export function holdSamples(budget: QueryBudget, n: number): void {
  budget.samples += n;
  if (budget.maxSamples > 0 && budget.samples > budget.maxSamples) throw tooManySamplesError();
}

/**
 * Characters of label text a query produces (label_replace, label_join) per
 * sample the max samples limit counts: a held point costs 16 bytes, a
 * character up to 2 (UTF-16).
 */
export const LABEL_CHARS_PER_SAMPLE = 8;

/**
 * counts `chars` characters of label text about to be produced as samples
 * held (rounded up); throws once over the limit, before the text is built.
 * Returns the samples counted.
 */
export function holdLabelChars(budget: QueryBudget, chars: number): number {
  const n = Math.ceil(chars / LABEL_CHARS_PER_SAMPLE);
  holdSamples(budget, n);
  return n;
}

/** throws once the query's time is up */
export function checkDeadline(budget: QueryBudget): void {
  if (budget.deadline !== Infinity && performance.now() > budget.deadline) throw queryTimeoutError();
}
