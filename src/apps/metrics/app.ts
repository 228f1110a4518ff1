// The metrics store listener (:9009): Prometheus remote write, OTLP, the tenant
// admin API, per-tenant limits, rules and queries; each tenant is named by
// X-Scope-OrgID. Errors are plain text or Prometheus JSON, per route family
// (render-error.ts).
import { sharedWalSource } from "../../db/shared-wal.ts";
import type { Fence } from "../../db/fence.ts";
import { databaseCheckpoints } from "./core/checkpoint-place.ts";
import { join } from "node:path";
import type { Hono } from "hono";
import type { Config } from "../../config/schema.ts";
import type { Database } from "../../db/open.ts";
import type { BackupSource } from "../../lib/backup-pin.ts";
import { ApiError } from "../../lib/errors.ts";
import { cors } from "../../lib/http/cors.ts";
import { requestDurations } from "../../lib/http/request-metrics.ts";
import { createStoreApp } from "../../lib/http/store-app.ts";
import type { Lifecycle } from "../../lib/lifecycle.ts";
import type { Logger } from "../../lib/logger.ts";
import { createSemaphore } from "../../lib/semaphore.ts";
import { createTokenBuckets } from "../../lib/token-bucket.ts";
import { ensureAdminToken } from "./core/admin-token.ts";
import { ingest, type IngestDeps } from "./core/ingest.ts";
import { createMetricsLimits } from "./core/limits.ts";
import { createMetricsStoreMetrics } from "./core/metrics.ts";
import { evaluateInstantVector, parsePromQL } from "./core/promql/index.ts";
import { startMetricsRetention } from "./core/retention.ts";
import { createRuler } from "./core/rules/evaluator.ts";
import { newBudget, openMetricsStore } from "./core/store.ts";
import { openMetricsTenants } from "./core/tenants.ts";
import type { SampleToWrite } from "./core/types.ts";
import { createUserStats } from "./core/user-stats.ts";
import type { TaskRunner } from "../../lib/tasks.ts";
import { renderMetricsError } from "./render-error.ts";
import { registerAdminApi } from "./routes/admin.ts";
import { registerDeleteSeries } from "./routes/delete-series.ts";
import { registerLimitsRoutes } from "./routes/limits.ts";
import { registerOtlpPush } from "./routes/otlp.ts";
import { registerPush } from "./routes/push.ts";
import { inflightPushLimit, OTLP_METRICS_PATH, REMOTE_WRITE_PATHS } from "./routes/push-shared.ts";
import { metricsReclaimer } from "./core/disk-cap.ts";
import type { DiskGuard } from "../../lib/disk-guard.ts";
import { refuseWhenDiskFull } from "../../lib/http/disk-full.ts";
import { registerQueries } from "./routes/query.ts";
import { registerRuleRoutes } from "./routes/rules.ts";
import { registerStatus } from "./routes/status.ts";
import { registerUserStats } from "./routes/user-stats.ts";
import { openStoreAccess, type StoreAccess } from "../../store-access/access-store.ts";
import { createStoreAuth, requestSubject } from "../../store-access/http.ts";

export interface MetricsDeps {
  config: Config;
  db: Database;
  logger: Logger;
  lifecycle: Lifecycle;
  now?: () => number;
  /** where a generated admin token is shown once (default: standard error, never the log) */
  announce?: (text: string) => void;
  /** the ingest decoder's workers (server.ts): large pushes are decoded there */
  decoder?: TaskRunner | undefined;
  /** the process's access policies and tokens (server.ts); default: opened here */
  access?: StoreAccess | undefined;
  /** the data dir's cap (server.ts): the store's oldest chunks are dropped first, pushes refused only when nothing is left */
  disk?: DiskGuard | undefined;
  /** on a shared PostgreSQL database: raised when this node lost the store lock (the shared log and checkpoints refuse then) */
  fence?: Fence | undefined;
}

export interface MetricsApp {
  app: Hono;
  /** writes what is in memory to the database and stops background work */
  close(): Promise<void>;
  /** the store's files for a backup (src/backup/) */
  backup: BackupSource;
}

export async function createMetricsApp(deps: MetricsDeps): Promise<MetricsApp> {
  const { config } = deps;
  const m = config.metrics;
  const now = deps.now ?? (() => Date.now());
  const logger = deps.logger.child({ service: "metrics" });
  const pg = deps.db.pg;
  const access = deps.access ?? (await openStoreAccess({ pg, cluster: m.cluster_name, now }));
  const auth = createStoreAuth({
    store: "metrics",
    mode: m.auth.type,
    access,
    certTenant: { from: m.auth.tenant_from_client_cert, allowed: m.auth.client_cert_allowed_tenants },
    realm: "outpost metrics",
    now,
    openPaths: /^\/(ready|(prometheus\/)?api\/v1\/status\/(buildinfo|config|flags)|admin\/api\/.*)$/,
  });
  const durations = requestDurations("cortex_request_duration_seconds");
  const app = createStoreApp({
    service: "metrics",
    logger: deps.logger,
    lifecycle: deps.lifecycle,
    maxBodyBytes: config.server.max_request_body_size,
    hosts: { configured: config.server.allowed_hosts, bindHost: config.server.host },
    render: renderMetricsError,
    early: [
      // before everything else: a preflight carries no tenant or credentials
      cors({
        allowedOrigins: config.server.cors_allowed_origins,
        // the dashboard's scheme comes from its own TLS block, as server.ts listens
        sameHostPort: { scheme: config.dashboard.http_tls_config.cert_file ? "https" : "http", port: config.dashboard.http_port },
      }),
      // in tokens mode a token before anything else: an anonymous push never holds a slot
      auth.early,
      inflightPushLimit(m.ingester.instance_limits.max_inflight_push_requests),
    ],
    durations,
    subjectOf: requestSubject,
  });

  const adminToken = await ensureAdminToken({
    pg,
    configured: m.admin_token,
    announce: deps.announce ?? ((text) => process.stderr.write(`${text}\n`)),
  });
  access.useAdminToken(adminToken);
  const tenants = await openMetricsTenants({ pg, config: m, logger });
  const gate = { isInactive: (tenant: string) => tenants.isInactive(tenant), auth };
  const limits = createMetricsLimits({ config: m, tenants, logger });
  await limits.reload();
  // on a PostgreSQL server the log and the checkpoints are where every store node can reach them: in the database
  const store = await openMetricsStore({
    pg, logger, now,
    ...(deps.db.backend === "postgres"
      ? {
        walSource: sharedWalSource(pg, "metrics", logger, deps.fence),
        checkpoints: databaseCheckpoints(pg, "metrics", deps.db.dataDir ? join(deps.db.dataDir, "metrics-scratch") : undefined, deps.fence),
      }
      : { walDir: deps.db.dataDir ? join(deps.db.dataDir, "metrics-wal") : undefined }),
  });
  const sweep = () => {
    for (const t of store.tenants()) store.peek(t)?.sweepIdle(now(), m.active_series_idle_timeout);
  };
  const metrics = createMetricsStoreMetrics(store, sweep);
  const userStats = createUserStats({
    store, knownTenants: async () => (await tenants.list()).map((t) => t.name), now, idleTimeout: m.active_series_idle_timeout,
    retention: { periodOf: limits.retentionOf, lastRun: () => retention.lastRun() },
  });
  const ingestDeps: IngestDeps = { store, limits, buckets: createTokenBuckets(now), counters: userStats.counters(metrics, "api"), now, idleTimeout: m.active_series_idle_timeout };
  // recording rules write through the same path; their samples are rated apart (RuleIngestionRate)
  const ruleIngestDeps: IngestDeps = { ...ingestDeps, counters: userStats.counters(metrics, "rule") };

  durations.registerWith(metrics.registry);
  access.usage.registerWith(metrics.registry, "metrics");
  registerStatus(app, config, metrics, auth);
  registerAdminApi(app, { tenants, adminToken, access, defaults: limits.defaults });
  registerLimitsRoutes(app, { limits, gate });
  registerUserStats(app, userStats, gate);
  deps.disk?.register(metricsReclaimer(pg, store, logger, metrics.registry));
  for (const path of [...REMOTE_WRITE_PATHS, OTLP_METRICS_PATH]) app.use(path, refuseWhenDiskFull(deps.disk));
  registerPush(app, { ...ingestDeps, gate, maxRecvMsgSize: config.server.max_recv_msg_size, decoder: deps.decoder });
  registerOtlpPush(app, {
    ...ingestDeps,
    counters: userStats.counters(metrics, "otlp"),
    gate,
    maxRecvMsgSize: config.server.max_recv_msg_size,
    decoder: deps.decoder,
    settings: {
      suffixes: m.otlp.metric_suffixes_enabled,
      promoteResourceAttributes: m.otlp.promote_resource_attributes,
      promoteScopeMetadata: m.otlp.promote_scope_metadata,
      keepIdentifyingResourceAttributes: m.otlp.keep_identifying_resource_attributes,
    },
    otlpReceived(tenant, dataPoints) {
      metrics.otlpRequest(tenant);
      userStats.otlpReceived(tenant, dataPoints);
    },
  });
  registerQueries(app, {
    store, limits, gate, now,
    concurrency: createSemaphore(m.querier.max_concurrent),
    chunkBytesLimit: m.ingester_stream_chunks_when_using_blocks,
  });

  // rule evaluations have the tenant's query limits too (max samples, query_timeout)
  const budgetOf = (tenant: string) => {
    const l = limits.of(tenant);
    return newBudget(l.max_series_per_query, m.ingester_stream_chunks_when_using_blocks ? l.max_fetched_chunk_bytes_per_query : 0, l.max_samples_per_query, l.query_timeout);
  };
  const ruler = await createRuler({
    pg,
    engine: {
      validate: (expr) => void parsePromQL(expr),
      instant: (tenant, expr, t) => {
        const budget = budgetOf(tenant);
        return evaluateInstantVector(store.querier(tenant, budget), expr, t, { budget });
      },
    },
    write: async (tenant: string, samples: SampleToWrite[]) => {
      const request = {
        timeseries: samples.map((s) => ({
          labels: Object.entries(s.labels).map(([name, value]) => ({ name, value })),
          rawKey: 0,
          rawCheck: 0,
          labelsSkipped: false,
          samples: [{ value: s.v, timestampMs: s.t, stale: s.stale }],
          exemplars: 0,
          histograms: 0,
        })),
        metadata: [],
      };
      const result = ingest(ruleIngestDeps, tenant, request);
      if (result.status !== 200) throw new ApiError(result.status, result.message ?? "");
    },
    limits,
    logger,
    now,
    defaultInterval: m.ruler_evaluation_interval,
  });
  registerRuleRoutes(app, ruler, gate);
  registerDeleteSeries(app, { store, gate, logger, registry: metrics.registry });
  const retention = startMetricsRetention({ store, periodOf: limits.retentionOf, registry: metrics.registry, logger, now, every: m.compactor.cleanup_interval });
  const idleSweep = setInterval(sweep, 60_000);
  (idleSweep as { unref?: () => void }).unref?.();

  return {
    app,
    backup: { name: "metrics", pin: () => store.pinForBackup() },
    async close() {
      clearInterval(idleSweep);
      retention.stop();
      await ruler.close();
      limits.close();
      tenants.close();
      await store.close();
    },
  };
}
