// Per-tenant ingestion figures, as Mimir's distributor shows them
// (GET /distributor/all_user_stats, GET /api/v1/user_stats): the rate of
// samples appended, split into those pushed through the API and those written
// by recording rules, and the tenant's series. Rates are Mimir's ingester
// EWMA (15 s tick, alpha 0.2), kept in memory and fed by the write path.
// Outpost adds what arrived over OTLP (requests, data points, samples stored,
// since the process started; OTLP samples count in the API rate, as Mimir's),
// and retention: the tenant's period, its oldest sample held, the last run
// (the admin page shows them; Mimir's clients ignore fields they do not know).
import { formatDuration } from "../../../lib/units.ts";
import { createEwmaRates } from "../../../lib/ewma-rates.ts";
import type { IngestCounters } from "./ingest.ts";
import type { MetricsStore } from "./store.ts";

const API = 0;
const RULE = 1;

/** Mimir's UserStats (json tags as in pkg/distributor) */
export interface UserStats {
  ingestionRate: number;
  numSeries: number;
  APIIngestionRate: number;
  RuleIngestionRate: number;
  /** OTLP pushes decoded for the tenant since the process started */
  otlpRequests: number;
  /** the data points they carried */
  otlpDataPoints: number;
  /** the samples stored from them */
  otlpSamples: number;
  /** the oldest sample held (RFC 3339), null when none */
  oldestSample?: string | null;
  /** compactor_blocks_retention_period in effect ("0s": kept forever) */
  retentionPeriod?: string;
  /** when retention last ran without an error (RFC 3339), null before the first run */
  lastRetentionRun?: string | null;
}

export interface UserIdStats extends UserStats {
  userID: string;
}

export interface UserStatsDeps {
  store: MetricsStore;
  /** tenants created through the admin API (listed even before they send anything) */
  knownTenants: () => Promise<string[]>;
  now: () => number;
  /** a series with no sample for this long is not active (ms) */
  idleTimeout: number;
  /** retention's settings and last run, when it runs */
  retention?: { periodOf(tenant: string): number; lastRun(): number | undefined };
}

export interface UserStatsTracker {
  /** the write path's counters for pushes (API, OTLP) or rule results, counting appended samples too */
  counters(base: IngestCounters, source: "api" | "rule" | "otlp"): IngestCounters;
  /** an OTLP push decoded for a tenant, with its data points */
  otlpReceived(tenant: string, dataPoints: number): void;
  of(tenant: string): UserStats;
  all(): Promise<UserIdStats[]>;
}

export function createUserStats(deps: UserStatsDeps): UserStatsTracker {
  const rates = createEwmaRates({ now: deps.now, fields: 2 });
  const otlp = new Map<string, { requests: number; dataPoints: number; samples: number }>();
  const otlpOf = (tenant: string) => {
    let o = otlp.get(tenant);
    if (!o) otlp.set(tenant, (o = { requests: 0, dataPoints: 0, samples: 0 }));
    return o;
  };
  const of = (tenant: string): UserStats => {
    const [api = 0, rule = 0] = rates.rates(tenant);
    const head = deps.store.peek(tenant);
    // active series, as cortex_ingester_active_series (idle ones swept first)
    head?.sweepIdle(deps.now(), deps.idleTimeout);
    const o = otlp.get(tenant);
    const r = deps.retention;
    const lastRun = r?.lastRun();
    return {
      ...(r
        ? {
            oldestSample: head && Number.isFinite(head.minT) ? new Date(head.minT).toISOString() : null,
            retentionPeriod: formatDuration(r.periodOf(tenant)),
            lastRetentionRun: lastRun === undefined ? null : new Date(lastRun).toISOString(),
          }
        : {}),
      ingestionRate: api + rule,
      numSeries: head?.activeCount ?? 0,
      APIIngestionRate: api,
      RuleIngestionRate: rule,
      otlpRequests: o?.requests ?? 0,
      otlpDataPoints: o?.dataPoints ?? 0,
      otlpSamples: o?.samples ?? 0,
    };
  };
  return {
    counters(base, source) {
      const field = source === "rule" ? RULE : API;
      return {
        received: base.received,
        discarded: base.discarded,
        ...(base.discardedMetadata ? { discardedMetadata: base.discardedMetadata } : {}),
        ingested(tenant, samples) {
          base.ingested(tenant, samples);
          rates.add(tenant, field, samples);
          if (source === "otlp") otlpOf(tenant).samples += samples;
        },
      };
    },
    otlpReceived(tenant, dataPoints) {
      const o = otlpOf(tenant);
      o.requests++;
      o.dataPoints += dataPoints;
    },
    of,
    async all() {
      const names = new Set([...deps.store.tenants(), ...rates.keys(), ...otlp.keys(), ...(await deps.knownTenants())]);
      return [...names].sort().map((userID) => ({ userID, ...of(userID) }));
    },
  };
}
