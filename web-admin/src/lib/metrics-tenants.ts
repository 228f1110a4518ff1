// The metrics store's tenants as the page shows them: the admin API's list,
// per-tenant usage and retention (GET /distributor/all_user_stats), discarded
// samples by reason (GET /metrics) and the global default limits (dashboard settings).
import { ApiFailure } from "./api.ts";
import { parsePromText } from "./prom-text.ts";
import { adminRequest, storeRequest, type Listener, type Topology } from "./stores.ts";

export const LIMIT_NAMES = [
  "ingestion_rate",
  "ingestion_burst_size",
  "max_global_series_per_user",
  "max_global_series_per_metric",
  "max_series_per_query",
  "ruler_max_rules_per_rule_group",
  "ruler_max_rule_groups_per_tenant",
] as const;
export type LimitName = (typeof LIMIT_NAMES)[number];
export type Limits = Record<LimitName, number>;

export const LIMIT_LABELS: Record<LimitName, string> = {
  ingestion_rate: "Ingestion rate (samples/s)",
  ingestion_burst_size: "Ingestion burst size (samples)",
  max_global_series_per_user: "Max active series",
  max_global_series_per_metric: "Max active series per metric",
  max_series_per_query: "Max series per query",
  ruler_max_rules_per_rule_group: "Max rules per rule group",
  ruler_max_rule_groups_per_tenant: "Max rule groups",
};

export interface Tenant {
  name: string;
  display_name: string;
  created_at: string;
  status: "active" | "inactive";
  cluster: string;
  /** the retention limit is a duration text ("744h", "0s") */
  limits?: Limits & { compactor_blocks_retention_period?: string };
}

export interface UserStats {
  userID: string;
  ingestionRate: number;
  numSeries: number;
  /** OTLP pushes (/otlp/v1/metrics), their data points, and the samples stored from them, since the store started */
  otlpRequests?: number;
  otlpDataPoints?: number;
  otlpSamples?: number;
  /** the oldest sample held, the retention period in effect ("0s": kept forever), retention's last run */
  oldestSample?: string | null;
  retentionPeriod?: string;
  lastRetentionRun?: string | null;
}

export interface TenantView extends Tenant {
  stats?: UserStats;
  /** effective limits (GET /api/v1/user_limits), when the store answered */
  effective?: Partial<Limits>;
  source: "admin API" | "runtime configuration" | "global defaults" | "unknown";
  discards: [string, number][];
}

export interface TenantsData {
  views: TenantView[];
  defaults: Partial<Limits>;
  cluster: string;
  /** when the metrics store last applied retention (null: not since it started; undefined: not known) */
  lastRetentionRun?: string | null;
}

export function defaultsOf(topo: Topology): { defaults: Partial<Limits>; cluster: string; retention: string } {
  const m = topo.settings?.metrics ?? {};
  const defaults: Partial<Limits> = {};
  for (const n of LIMIT_NAMES) {
    const v = Number(m[`limits.${n}`]);
    if (m[`limits.${n}`] !== undefined && Number.isFinite(v)) defaults[n] = v;
  }
  // metrics.limits.compactor_blocks_retention_period when set, else metrics.retention_period
  return { defaults, cluster: m.cluster_name ?? "", retention: m["limits.compactor_blocks_retention_period"] || (m.retention_period ?? "") };
}

export async function loadTenants(topo: Topology): Promise<TenantsData> {
  const l = topo.metrics;
  const [list, stats, text] = await Promise.all([
    adminRequest<{ items: Tenant[] }>(l, "/admin/api/v2/tenants"),
    storeRequest<UserStats[]>(l, "/distributor/all_user_stats").catch(() => [] as UserStats[]),
    storeRequest<string>(l, "/metrics", { text: true }).catch(() => ""),
  ]);
  const { defaults, cluster } = defaultsOf(topo);
  const discards = new Map<string, [string, number][]>();
  for (const s of parsePromText(text)) {
    if (s.name !== "cortex_discarded_samples_total" || s.value <= 0) continue;
    const user = s.labels.user ?? "";
    discards.set(user, [...(discards.get(user) ?? []), [s.labels.reason ?? "unknown", s.value]]);
  }
  const views = await Promise.all(
    list.items.map(async (t): Promise<TenantView> => {
      const effective = await effectiveLimits(l, t.name);
      return {
        ...t,
        stats: stats.find((s) => s.userID === t.name),
        effective,
        source: sourceOf(t, effective, defaults),
        discards: (discards.get(t.name) ?? []).sort((a, b) => b[1] - a[1]),
      };
    }),
  );
  return { views: views.sort((a, b) => a.name.localeCompare(b.name)), defaults, cluster, lastRetentionRun: stats[0]?.lastRetentionRun };
}

async function effectiveLimits(l: Listener, tenant: string): Promise<Partial<Limits> | undefined> {
  try {
    return await storeRequest<Partial<Limits>>(l, "/api/v1/user_limits", { tenant });
  } catch (err) {
    if (err instanceof ApiFailure) return undefined;
    throw err;
  }
}

/** the first limit source that applies (spec "Per-tenant limits") */
function sourceOf(t: Tenant, effective: Partial<Limits> | undefined, defaults: Partial<Limits>): TenantView["source"] {
  if (t.limits) return "admin API";
  if (!effective) return "unknown";
  return LIMIT_NAMES.some((n) => defaults[n] !== undefined && effective[n] !== undefined && effective[n] !== defaults[n])
    ? "runtime configuration"
    : "global defaults";
}

/** the limit in effect for a tenant: its own, else what the store reports, else the default */
export function limitOf(v: TenantView, name: LimitName, defaults: Partial<Limits>): number {
  return v.limits?.[name] ?? v.effective?.[name] ?? defaults[name] ?? 0;
}
