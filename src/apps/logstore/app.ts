// The log store listener (:3100). Loki-compatible routes live under
// /svc/api/v1; each tenant is named by X-Scope-OrgID. Errors are plain text,
// as the real product writes them. Who may reach which tenant:
// store-access/ (logs.auth.type header or tokens).
import { sharedWalSource } from "../../db/shared-wal.ts";
import type { Fence } from "../../db/fence.ts";
import { join } from "node:path";
import type { Hono, MiddlewareHandler } from "hono";
import type { Config } from "../../config/schema.ts";
import type { Database } from "../../db/open.ts";
import { cors } from "../../lib/http/cors.ts";
import { requestDurations } from "../../lib/http/request-metrics.ts";
import { createStoreApp } from "../../lib/http/store-app.ts";
import { renderTextError } from "../../lib/http/text-errors.ts";
import type { BackupSource } from "../../lib/backup-pin.ts";
import type { Lifecycle } from "../../lib/lifecycle.ts";
import type { Logger } from "../../lib/logger.ts";
import type { TaskRunner } from "../../lib/tasks.ts";
import { createTokenBuckets } from "../../lib/token-bucket.ts";
import { registerPoolMetrics } from "../../lib/worker-pool.ts";
import { createLimits } from "./core/limits.ts";
import { createLogStoreMetrics } from "./core/metrics.ts";
import { retentionState, startRetention, type Retention } from "./core/retention.ts";
import { logReclaimer } from "./core/disk-cap.ts";
import type { DiskGuard } from "../../lib/disk-guard.ts";
import { refuseWhenDiskFull } from "../../lib/http/disk-full.ts";
import { openLogStore } from "./core/store.ts";
import { createLogUserStats } from "./core/user-stats.ts";
import { registerOtlpLogs } from "./routes/otlp.ts";
import { registerPush } from "./routes/push.ts";
import { registerQueries } from "./routes/query.ts";
import { createQueryRunner } from "./routes/query-runner.ts";
import { registerTail } from "./routes/tail.ts";
import { createTailHub } from "./core/tail-hub.ts";
import { registerStatus } from "./routes/status.ts";
import { registerUserStats } from "./routes/user-stats.ts";
import { registerDeletes } from "./routes/delete.ts";
import { createDeletion } from "./core/deletion/process.ts";
import { createDeletionMetrics } from "./core/deletion/metrics.ts";
import { openDeleteRequests } from "./core/deletion/requests.ts";
import { NO_AUTH_TENANT } from "./routes/tenant.ts";
import { openStoreAccess, type StoreAccess } from "../../store-access/access-store.ts";
import { createStoreAuth, requestSubject } from "../../store-access/http.ts";

/** the log store's CORS (its own listener, and the authenticating proxy in front of it, here or on a standby node) */
export function logStoreCors(config: Config): MiddlewareHandler {
  return cors({
    allowedOrigins: config.server.cors_allowed_origins,
    // the dashboard's scheme comes from its own TLS block, as server.ts listens
    sameHostPort: { scheme: config.dashboard.http_tls_config.cert_file ? "https" : "http", port: config.dashboard.http_port },
  });
}

export interface LogStoreDeps {
  config: Config;
  db: Database;
  logger: Logger;
  lifecycle: Lifecycle;
  now?: () => number;
  /** runs the log store's tasks (scan-tasks.ts); default: on this thread */
  runner?: TaskRunner | undefined;
  /** decodes large push bodies (push-tasks.ts; server.ts gives it a worker of its own); default: on this thread */
  decoder?: TaskRunner | undefined;
  /** the process's access policies and tokens (server.ts); default: opened here */
  access?: StoreAccess | undefined;
  /** the data dir's cap (server.ts): the store's oldest chunks are dropped first, pushes refused only when nothing is left */
  disk?: DiskGuard | undefined;
  /** on a shared PostgreSQL database: raised when this node lost the store lock (the shared log and checkpoints refuse then) */
  fence?: Fence | undefined;
}

export interface LogStoreApp {
  app: Hono;
  /** the store's CORS middleware, for the auth proxy's own listener */
  cors: MiddlewareHandler;
  /** flushes what is in memory and stops background work */
  close(): Promise<void>;
  /** the store's files for a backup (src/backup/) */
  backup: BackupSource;
}

export async function createLogStoreApp(deps: LogStoreDeps): Promise<LogStoreApp> {
  const { config } = deps;
  const now = deps.now ?? (() => Date.now());
  const logger = deps.logger.child({ service: "logs" });
  const storeCors = logStoreCors(config);
  const access = deps.access ?? (await openStoreAccess({ pg: deps.db.pg, cluster: config.metrics.cluster_name, now }));
  const auth = createStoreAuth({
    store: "logs",
    mode: config.logs.auth.type,
    access,
    certTenant: { from: config.logs.auth.tenant_from_client_cert, allowed: config.logs.auth.client_cert_allowed_tenants },
    realm: config.logs.auth_proxy.realm,
    ...(config.logs.auth_enabled ? {} : { noAuthTenant: NO_AUTH_TENANT }),
    multiTenantQueries: config.logs.multi_tenant_queries_enabled,
    now,
    openPaths: /^\/(ready|(loki|svc)\/api\/v1\/status\/buildinfo)$/,
  });
  const durations = requestDurations("svc_request_duration_seconds");
  const app = createStoreApp({
    service: "logs",
    logger: deps.logger,
    lifecycle: deps.lifecycle,
    maxBodyBytes: config.server.max_request_body_size,
    hosts: { configured: config.server.allowed_hosts, bindHost: config.server.host },
    render: renderTextError,
    // before everything else: a preflight carries no tenant; then, in tokens mode, a token before any body
    early: [storeCors, auth.early],
    durations,
    subjectOf: requestSubject,
    // Loki's own paths, as shippers (winston-loki, pino-loki) and the real Loki data source send them:
    // the same handlers (docs/compatibility.md)
    pathAliases: [["/loki/api/v1", "/svc/api/v1"]],
  });
  const metrics = createLogStoreMetrics();
  const shared = deps.db.backend === "postgres";
  const store = await openLogStore({
    pg: deps.db.pg,
    logger,
    // on a PostgreSQL server the log and the chunks are where every store node can reach them: in the database
    ...(shared
      ? { walDir: undefined, walSource: sharedWalSource(deps.db.pg, "logs", logger, deps.fence), chunkDir: undefined }
      : {
        walDir: deps.db.dataDir ? join(deps.db.dataDir, "logs-wal") : undefined,
        chunkDir: deps.db.dataDir ? join(deps.db.dataDir, "logs-chunks") : undefined,
      }),
    runner: deps.runner,
    onCorrupt: (tenant) => metrics.corruptChunk(tenant),
    now,
  });
  metrics.watchFlushQueue(() => ({ chunks: store.backlogChunks(), bytes: store.backlogBytes() }));
  const limits = createLimits(config.logs, logger);
  await limits.reload();
  // retention is started below; user stats and /metrics read its state when asked
  let retention: Retention | undefined;
  const retentionView = () => retention && { periodMs: (tenant: string) => limits.of(tenant).retention_period, lastSuccess: retention.lastSuccess, oldest: retention.oldest };
  const userStats = createLogUserStats(store, now, retentionView);
  access.usage.registerWith(metrics.registry, "logs");
  durations.registerWith(metrics.registry);
  // the process's worker pool (server.ts) shows in the store's /metrics
  registerPoolMetrics(deps.runner, metrics.registry);
  registerStatus(app, config, metrics, auth);
  // live tails hear of every accepted push (core/tail-hub.ts)
  const tails = createTailHub();
  const ingestDeps = { store, limits: limits.of, buckets: createTokenBuckets(now), counters: userStats.counters(metrics), now, tails };
  deps.disk?.register(logReclaimer(store, logger, (tenant, chunks, bytes) => metrics.diskCapDropped(tenant, chunks, bytes)));
  for (const path of ["/svc/api/v1/push", "/api/prom/push", "/otlp/v1/logs"]) app.use(path, refuseWhenDiskFull(deps.disk));
  registerPush(app, ingestDeps, auth, config.server.max_recv_msg_size, deps.decoder);
  registerOtlpLogs(
    app,
    { ...ingestDeps, defaultIndexLabels: config.logs.otlp.default_resource_attributes_as_index_labels, otlpReceived: userStats.otlpReceived },
    auth,
    config.server.max_recv_msg_size,
    deps.decoder,
  );
  // delete requests (core/deletion/): left out of answers while pending, removed from storage once processed
  const deletion = createDeletion({
    requests: await openDeleteRequests(deps.db.pg, now),
    store,
    limits: limits.of,
    runner: deps.runner,
    logger,
    now,
    metrics: createDeletionMetrics(metrics.registry),
    cancelPeriodMs: config.logs.compactor.delete_request_cancel_period,
    maxIntervalMs: config.logs.compactor.delete_max_interval,
    intervalMs: config.logs.compactor.compaction_interval,
  });
  registerDeletes(app, { deletion, auth, limits: limits.of });
  // one query queue for the read routes and the tails' history
  const queries = createQueryRunner({ store, limits: limits.of, runner: deps.runner, maxConcurrent: config.logs.querier.max_concurrent, deletes: deletion.active });
  registerQueries(app, { store, limits: limits.of, auth, now, runner: deps.runner, queries });
  registerTail(app, { hub: tails, queries, auth, limits: limits.of, now, maxDurationMs: config.logs.querier.tail_max_duration });
  registerUserStats(app, userStats, auth);
  retention = startRetention({
    store,
    limits: limits.of,
    logger,
    now,
    intervalMs: config.logs.compactor.compaction_interval,
    onDeleted: (tenant, n) => metrics.retentionDeleted(tenant, n),
  });
  metrics.watchRetention(retentionState(store, retentionView));
  return {
    app,
    cors: storeCors,
    backup: { name: "logs", pin: async () => store.pinForBackup() },
    async close() {
      retention?.stop();
      await deletion.stop();
      limits.close();
      await store.close();
    },
  };
}
