// The tenants of the metrics store's admin API (GEM's tenant model, spec
// "Tenant (metrics store)"): stored in metrics_tenants, and kept in memory
// (status and admin-API limits) so that the write and query paths never ask
// the database. The memory copy is re-read every admin_limits_refresh_period,
// as GEM re-reads its tenants from object storage on a period; a write made
// through this process updates it at once.
import type { Sql } from "../../../db/sql.ts";
import type { Config } from "../../../config/schema.ts";
import { badRequest, conflict, notFound } from "../../../lib/errors.ts";
import type { Logger } from "../../../lib/logger.ts";
import { tenantIdProblem } from "../../../lib/tenant.ts";
import { formatDuration, parseDuration } from "../../../lib/units.ts";
import type { MetricsLimits } from "./types.ts";

/**
 * the limits settable through the admin API: the spec's seven, and
 * max_fetched_chunk_bytes_per_query and compactor_blocks_retention_period
 * (GEM tenant limits too; the latter a duration text, "0s", held in ms)
 */
export const ADMIN_LIMIT_NAMES = [
  "ingestion_rate",
  "ingestion_burst_size",
  "max_series_per_query",
  "max_global_series_per_user",
  "max_global_series_per_metric",
  "max_fetched_chunk_bytes_per_query",
  "ruler_max_rules_per_rule_group",
  "ruler_max_rule_groups_per_tenant",
  "compactor_blocks_retention_period",
] as const;
export type AdminLimitName = (typeof ADMIN_LIMIT_NAMES)[number];
/** the limits a tenant was given through the admin API: only the ones supplied */
export type AdminLimits = Partial<Record<AdminLimitName, number>>;

/** samples per second may be a fraction (Mimir's float64); the rest are counts */
const FRACTIONAL = new Set<AdminLimitName>(["ingestion_rate"]);
/** durations, written as GEM writes them (Prometheus duration text: "0s", "744h") */
const DURATIONS = new Set<AdminLimitName>(["compactor_blocks_retention_period"]);

export const TENANT_STATUSES = ["active", "inactive"] as const;
export type TenantStatus = (typeof TENANT_STATUSES)[number];

export interface MetricsTenant {
  name: string;
  display_name: string;
  status: TenantStatus;
  cluster: string;
  /** null when the admin API set none */
  limits: AdminLimits | null;
  created_at: Date;
}

/** what a POST or PUT sets */
export interface TenantInput {
  display_name: string;
  status: TenantStatus;
  cluster: string;
  limits: AdminLimits | null;
}

/** what the limits need to know of the tenants */
export interface AdminLimitsReader {
  /** the admin-API limits of a tenant, or undefined when it has none */
  adminLimitsOf(tenant: string): AdminLimits | undefined;
  /** increases whenever the memory copy changes */
  readonly version: number;
}

export interface MetricsTenants extends AdminLimitsReader {
  /** true when the tenant is set inactive (TenantGate) */
  isInactive(tenant: string): boolean;
  create(body: unknown): Promise<MetricsTenant>;
  /** throws 404 for an unknown tenant */
  get(name: string): Promise<MetricsTenant>;
  list(): Promise<MetricsTenant[]>;
  /** full replacement of display_name, status, cluster and limits; throws 404 for an unknown tenant */
  update(name: string, body: unknown): Promise<MetricsTenant>;
  /** removes the record (and its admin-API limits); stored samples stay; throws 404 for an unknown tenant */
  remove(name: string): Promise<void>;
  /** re-reads the memory copy from the database now */
  refresh(): Promise<void>;
  /** stops the refresh timer */
  close(): void;
}

export interface TenantsOptions {
  pg: Sql;
  config: Config["metrics"];
  logger: Logger;
}

// ---------------------------------------------------------------- validation

/** fields a client may send back from a GET: read-only, ignored */
const READ_ONLY = new Set(["created_at"]);
const CREATE_FIELDS = new Set(["name", "display_name", "status", "cluster", "limits"]);

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** the admin-API limits of a body: a map of the known limits, each a number ≥ 0 (whole unless fractional) */
export function parseAdminLimits(raw: unknown): AdminLimits | null {
  if (raw === undefined || raw === null) return null;
  if (!isObject(raw)) throw badRequest("limits must be an object");
  const out: AdminLimits = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!(ADMIN_LIMIT_NAMES as readonly string[]).includes(key)) {
      throw badRequest(`limits.${key} is not a limit settable through the admin API (known: ${ADMIN_LIMIT_NAMES.join(", ")})`);
    }
    const name = key as AdminLimitName;
    if (DURATIONS.has(name)) {
      const ms = typeof value === "string" ? parseDuration(value) : undefined;
      if (ms === undefined) throw badRequest(`limits.${name} must be a duration such as 0s, 744h or 1y`);
      out[name] = ms;
      continue;
    }
    if (FRACTIONAL.has(name)) {
      if (typeof value !== "number" || !Number.isFinite(value) || value < 0) throw badRequest(`limits.${name} must be a number ≥ 0`);
    } else if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
      throw badRequest(`limits.${name} must be a whole number ≥ 0`);
    }
    out[name] = value;
  }
  return out;
}

/**
 * Checks a POST (name from the body) or PUT (name from the path) body.
 * Omitted fields take their defaults: display_name "", status active,
 * limits none; a PUT is a full replacement, so it resets them too.
 */
export function parseTenantBody(body: unknown, cluster: string, pathName?: string): { name: string; input: TenantInput } {
  if (!isObject(body)) throw badRequest("the body must be a JSON object");
  for (const key of Object.keys(body)) {
    if (!CREATE_FIELDS.has(key) && !READ_ONLY.has(key)) throw badRequest(`unknown field "${key}"`);
  }
  let name: string;
  if (pathName === undefined) {
    if (body.name === undefined || body.name === null) throw badRequest("name is required");
    if (typeof body.name !== "string") throw badRequest("name must be a string");
    if (body.name === "") throw badRequest("name must not be empty");
    const problem = tenantIdProblem(body.name);
    if (problem) throw badRequest(`name: ${problem}`);
    name = body.name;
  } else {
    if (body.name !== undefined && body.name !== pathName) throw badRequest(`name cannot be changed (the tenant is "${pathName}")`);
    name = pathName;
  }
  if (body.display_name !== undefined && body.display_name !== null && typeof body.display_name !== "string") {
    throw badRequest("display_name must be a string");
  }
  const status = body.status ?? "active";
  if (typeof status !== "string" || !(TENANT_STATUSES as readonly string[]).includes(status)) {
    throw badRequest(`status must be one of ${TENANT_STATUSES.join(", ")}`);
  }
  if (body.cluster === undefined || body.cluster === null || body.cluster === "") throw badRequest("cluster is required");
  if (typeof body.cluster !== "string") throw badRequest("cluster must be a string");
  if (body.cluster !== cluster) throw badRequest(`cluster "${body.cluster}" is not this cluster: this metrics store's cluster is "${cluster}"`);
  return {
    name,
    input: {
      display_name: (body.display_name as string | null | undefined) ?? "",
      status: status as TenantStatus,
      cluster: body.cluster,
      limits: parseAdminLimits(body.limits),
    },
  };
}

// ---------------------------------------------------------------- responses

/**
 * A tenant as the admin API answers it. When it has admin-API limits, every
 * limit is shown: the ones supplied, the rest the global defaults (never the
 * runtime file: those are not the tenant's admin limits). Without, no limits.
 */
export function tenantJson(t: MetricsTenant, defaults: MetricsLimits): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: t.name,
    display_name: t.display_name,
    created_at: t.created_at.toISOString(),
    status: t.status,
    cluster: t.cluster,
  };
  if (t.limits) {
    const limits: Record<string, number | string> = {};
    for (const name of ADMIN_LIMIT_NAMES) {
      const v = t.limits[name] ?? defaults[name] ?? 0;
      limits[name] = DURATIONS.has(name) ? formatDuration(v) : v;
    }
    out.limits = limits;
  }
  return out;
}

// ---------------------------------------------------------------- the store

interface Row {
  name: string;
  display_name: string;
  status: string;
  cluster: string;
  limits: unknown;
  created_at: Date | string;
}

const COLUMNS = "name, display_name, status, cluster, limits, created_at";

function fromRow(r: Row): MetricsTenant {
  return {
    name: r.name,
    display_name: r.display_name,
    // a status written in the database by hand that is not ours counts as active
    status: r.status === "inactive" ? "inactive" : "active",
    cluster: r.cluster,
    limits: storedLimits(r.limits),
    created_at: r.created_at instanceof Date ? r.created_at : new Date(r.created_at),
  };
}

/** limits as stored; a value edited by hand into something else is dropped rather than trusted */
function storedLimits(raw: unknown): AdminLimits | null {
  const v = typeof raw === "string" ? (JSON.parse(raw) as unknown) : raw;
  if (!isObject(v)) return null;
  const out: AdminLimits = {};
  for (const name of ADMIN_LIMIT_NAMES) {
    const n = v[name];
    if (typeof n === "number" && Number.isFinite(n) && n >= 0) out[name] = n;
  }
  return out;
}

interface Cached {
  inactive: boolean;
  limits: AdminLimits | undefined;
}

export async function openMetricsTenants(options: TenantsOptions): Promise<MetricsTenants> {
  const { pg, config } = options;
  const logger = options.logger;
  let cache = new Map<string, Cached>();
  let cacheKey = "";
  let version = 0;
  // writes through this process; a refresh that read before a write is dropped
  let writes = 0;
  let closed = false;

  const cached = (t: MetricsTenant): Cached => ({ inactive: t.status === "inactive", limits: t.limits ?? undefined });
  const setCached = (name: string, t: MetricsTenant | undefined) => {
    writes++;
    if (t) cache.set(name, cached(t));
    else cache.delete(name);
    cacheKey = "";
    version++;
  };

  const refresh = async () => {
    if (closed) return;
    const before = writes;
    const rows = (await pg.query<Row>(`select ${COLUMNS} from metrics_tenants order by name`)).rows;
    if (writes !== before) return;
    const next = new Map<string, Cached>();
    for (const r of rows) next.set(r.name, cached(fromRow(r)));
    const key = JSON.stringify([...next]);
    if (key === cacheKey) return;
    cache = next;
    cacheKey = key;
    version++;
  };
  await refresh();

  const timer = setInterval(() => {
    refresh().catch((err: unknown) => {
      if (!closed) logger.warn("metrics store tenants not refreshed; keeping the last ones read", { err: (err as Error).message });
    });
  }, Math.max(1, config.admin_limits_refresh_period));
  (timer as { unref?: () => void }).unref?.();

  const find = async (name: string): Promise<MetricsTenant | undefined> => {
    const r = (await pg.query<Row>(`select ${COLUMNS} from metrics_tenants where name = $1`, [name])).rows[0];
    return r ? fromRow(r) : undefined;
  };
  const limitsParam = (l: AdminLimits | null) => (l === null ? null : JSON.stringify(l));

  return {
    isInactive: (tenant) => cache.get(tenant)?.inactive === true,
    adminLimitsOf: (tenant) => cache.get(tenant)?.limits,
    get version() {
      return version;
    },
    async create(body) {
      const { name, input } = parseTenantBody(body, config.cluster_name);
      const r = (
        await pg.query<Row>(
          `insert into metrics_tenants (name, display_name, status, cluster, limits) values ($1, $2, $3, $4, $5::jsonb)
           on conflict (name) do nothing returning ${COLUMNS}`,
          [name, input.display_name, input.status, input.cluster, limitsParam(input.limits)],
        )
      ).rows[0];
      if (!r) throw conflict(`tenant "${name}" already exists`);
      const t = fromRow(r);
      setCached(name, t);
      return t;
    },
    async get(name) {
      const t = await find(name);
      if (!t) throw notFound(`tenant "${name}" not found`);
      return t;
    },
    async list() {
      return (await pg.query<Row>(`select ${COLUMNS} from metrics_tenants order by name`)).rows.map(fromRow);
    },
    async update(name, body) {
      const { input } = parseTenantBody(body, config.cluster_name, name);
      const r = (
        await pg.query<Row>(
          `update metrics_tenants set display_name = $2, status = $3, cluster = $4, limits = $5::jsonb, updated_at = now()
           where name = $1 returning ${COLUMNS}`,
          [name, input.display_name, input.status, input.cluster, limitsParam(input.limits)],
        )
      ).rows[0];
      if (!r) throw notFound(`tenant "${name}" not found`);
      const t = fromRow(r);
      setCached(name, t);
      return t;
    },
    async remove(name) {
      const r = await pg.query(`delete from metrics_tenants where name = $1`, [name]);
      if (!r.affectedRows) throw notFound(`tenant "${name}" not found`);
      setCached(name, undefined);
    },
    refresh,
    close() {
      closed = true;
      clearInterval(timer);
    },
  };
}
