// The shapes the metrics store's parts share: the head and storage answer
// selects with them, PromQL evaluates over them, the ruler writes them back.
import type { Config } from "../../../config/schema.ts";

/** a series' labels, __name__ included */
export type Labels = Record<string, string>;

export type MatchType = "=" | "!=" | "=~" | "!~";

/** one label matcher; regular expressions are fully anchored, as Prometheus's */
export interface Matcher {
  type: MatchType;
  name: string;
  value: string;
}

/**
 * one series and its samples in a time range, oldest first; times in epoch ms.
 * The samples are t[lo..hi) and v[lo..hi): columns may hold more (another
 * series' samples, or a chunk's others), so no array is copied or viewed per
 * series; without lo and hi they are the whole columns.
 */
export interface SeriesSamples {
  labels: Labels;
  t: ArrayLike<number>;
  v: ArrayLike<number>;
  lo?: number;
  hi?: number;
  /**
   * 1 where the sample is a stale marker (indexed as t), null when the
   * querier found none; absent when it did not look (PromQL then reads v's bits)
   */
  stale?: Uint8Array | null;
}

/** what the caller of a select will use of the samples (a querier may return more) */
export interface SelectHints {
  /**
   * only each series' newest sample in [mint, maxt] (an instant vector
   * selector evaluated at one time: Prometheus picks no other)
   */
  lastOnly?: boolean;
}

/** what PromQL reads: one tenant's data, with the query's limits applied */
export interface SampleQuerier {
  /** select returns series sorted by their labels (Prometheus's Select with sortSeries), so PromQL need not sort them */
  readonly sortsSeries?: boolean;
  /**
   * every series matching all matchers with its samples in [mint, maxt]
   * (inclusive, ms); series with no sample in the range are left out. Limits
   * (series per query, chunk bytes) throw ApiError 422 with the real product's message.
   */
  select(matchers: Matcher[], mint: number, maxt: number, hints?: SelectHints): Promise<SeriesSamples[]>;
  /**
   * Optional: calls `visit` with the labels and value of each matching
   * series' newest sample in [mint, maxt] that is not a stale marker (what
   * an instant selector evaluated at maxt picks), from what the index keeps
   * of each series' newest sample, decoding nothing; in no particular order.
   * Resolves false, having perhaps visited some, when that is not enough (a
   * series has samples after maxt): select is then needed. Counts series and
   * samples into the query's budget as select does.
   */
  forEachNewest?(matchers: Matcher[], mint: number, maxt: number, visit: (labels: Labels, value: number) => void): Promise<boolean>;
}

/** one sample to store for a tenant, as the ruler writes recording rule results */
export interface SampleToWrite {
  labels: Labels;
  t: number;
  v: number;
  /** a stale marker (its NaN bits do not survive a number on every runtime, so it is flagged) */
  stale?: boolean;
}

/**
 * a tenant's limits: those of metrics.limits; compactor_blocks_retention_period
 * (ms) is filled in from metrics.retention_period when not set (limits.ts)
 */
export type MetricsLimits = Omit<Config["metrics"]["limits"], "compactor_blocks_retention_period"> & { compactor_blocks_retention_period?: number | null };

/** where a tenant's effective limits come from, first that applies wins */
export type LimitsSourceName = "admin" | "runtime" | "defaults";

export interface MetricsLimitsSource {
  /** the effective limits of a tenant */
  of(tenant: string): MetricsLimits;
  /** which source those came from */
  sourceOf(tenant: string): LimitsSourceName;
}

/** Prometheus's stale marker: a NaN with this exact bit pattern ends a series */
export const STALE_NAN_BITS = 0x7ff0000000000002n;
