// A metrics store tenant's effective limits (spec "Per-tenant limits"): the
// first source that applies wins and the others are ignored for that tenant:
// (1) limits set through the tenant admin API, backfilled with the global
// defaults; (2) the tenant's overrides in the runtime config file, backfilled
// with the global defaults; (3) the global defaults (metrics.limits).
import type { Config } from "../../../config/schema.ts";
import type { Logger } from "../../../lib/logger.ts";
import { formatDuration } from "../../../lib/units.ts";
import { createRuntimeOverrides, durationValue, floatValue, oneOf, type Converters } from "../../../lib/runtime-overrides.ts";
import type { AdminLimitsReader } from "./tenants.ts";
import type { LimitsSourceName, MetricsLimits, MetricsLimitsSource } from "./types.ts";

/** runtime file values that are not plain counts: durations as text ("10m"), a rate that may be a fraction, a word */
const CONVERTERS: Converters<MetricsLimits> = {
  ingestion_rate: floatValue,
  ingestion_rate_strategy: oneOf("global", "local"),
  creation_grace_period: durationValue,
  query_timeout: durationValue,
  compactor_blocks_retention_period: durationValue,
};

/** limits held in milliseconds, shown as Prometheus durations */
const DURATIONS = new Set<string>(["creation_grace_period", "query_timeout", "compactor_blocks_retention_period"]);

export interface MetricsLimitsOptions {
  config: Config["metrics"];
  tenants: AdminLimitsReader;
  logger: Logger;
}

export interface MetricsLimitsService extends MetricsLimitsSource {
  /** the global defaults, each one set (compactor_blocks_retention_period: metrics.retention_period unless metrics.limits sets it) */
  readonly defaults: MetricsLimits;
  /** a tenant's retention period (ms; 0 keeps everything) */
  retentionOf(tenant: string): number;
  /** re-reads the runtime config file now */
  reload(): Promise<void>;
  /**
   * the runtime overrides for GET /runtime_config: every tenant of the file
   * with all its limits (backfilled with the defaults), or with `diff` only
   * those that differ from the defaults, as Mimir's ?mode=diff
   */
  runtimeConfig(mode?: "all" | "diff"): { overrides: Record<string, Record<string, unknown>> };
  /** stops the runtime file's reload timer */
  close(): void;
}

/** limits as the HTTP API shows them: snake_case keys, durations as text ("10m") */
export function limitsJson(limits: Partial<MetricsLimits>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(limits)) out[k] = DURATIONS.has(k) && typeof v === "number" ? formatDuration(v) : v;
  return out;
}

export function createMetricsLimits(options: MetricsLimitsOptions): MetricsLimitsService {
  const { config, tenants } = options;
  // metrics.retention_period is the default retention unless metrics.limits names one (Mimir's name for the same default)
  const defaults: MetricsLimits = Object.freeze({
    ...config.limits,
    compactor_blocks_retention_period: config.limits.compactor_blocks_retention_period ?? config.retention_period,
  });
  const overrides = createRuntimeOverrides({
    file: config.runtime_config_file,
    periodMs: config.runtime_config_reload_period,
    defaults,
    converters: CONVERTERS,
    logger: options.logger,
    what: "metrics store",
  });

  // only tenants named by a source are cached, so the cache is bounded by the
  // admin API's tenants and the file's; it is dropped when either changes
  const cache = new Map<string, { limits: MetricsLimits; source: LimitsSourceName }>();
  let seen = { tenants: tenants.version, overrides: overrides.version };
  const resolve = (tenant: string): { limits: MetricsLimits; source: LimitsSourceName } => {
    if (seen.tenants !== tenants.version || seen.overrides !== overrides.version) {
      cache.clear();
      seen = { tenants: tenants.version, overrides: overrides.version };
    }
    const hit = cache.get(tenant);
    if (hit) return hit;
    const admin = tenants.adminLimitsOf(tenant);
    const runtime = admin ? undefined : overrides.get(tenant);
    if (!admin && !runtime) return { limits: defaults, source: "defaults" };
    const entry = admin
      ? { limits: Object.freeze({ ...defaults, ...admin }), source: "admin" as const }
      : { limits: Object.freeze({ ...defaults, ...runtime }), source: "runtime" as const };
    cache.set(tenant, entry);
    return entry;
  };

  return {
    defaults,
    retentionOf: (tenant) => resolve(tenant).limits.compactor_blocks_retention_period ?? defaults.compactor_blocks_retention_period ?? 0,
    of: (tenant) => resolve(tenant).limits,
    sourceOf: (tenant) => resolve(tenant).source,
    reload: overrides.reload,
    runtimeConfig(mode = "all") {
      const out: Record<string, Record<string, unknown>> = {};
      for (const [tenant, own] of [...overrides.all()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        if (mode === "diff") {
          const diff: Partial<MetricsLimits> = {};
          for (const [k, v] of Object.entries(own)) {
            if (v !== defaults[k as keyof MetricsLimits]) (diff as Record<string, unknown>)[k] = v;
          }
          out[tenant] = limitsJson(diff);
        } else {
          out[tenant] = limitsJson({ ...defaults, ...own });
        }
      }
      return { overrides: out };
    },
    close: overrides.close,
  };
}
