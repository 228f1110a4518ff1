// The composition root: opens the database, builds the three apps and puts
// them on their listeners; stop() shuts everything down in order. The CLI
// adds signals and printing; tests call this directly.
import { createBackups } from "./backup/service.ts";
import { isAbsolute, join, relative, resolve } from "node:path";
import type { Config } from "./config/schema.ts";
import { openDatabase, postgresOf, type Database } from "./db/open.ts";
import { createDiskGuard, lowSpaceWarning } from "./lib/disk-guard.ts";
import { createLifecycle, type Lifecycle } from "./lib/lifecycle.ts";
import type { Logger } from "./lib/logger.ts";
import { adminFiles } from "./platform/embedded.ts";
import { listen, timeoutLimits, type FetchHandler, type Listener } from "./platform/listen.ts";
import { skipHeapSpaceWalks } from "./platform/memory.ts";
import { createTaskPool, poolSize } from "./platform/workers.ts";
import { openStoreAccess } from "./store-access/access-store.ts";
import { exposureWarnings } from "./store-access/exposure.ts";
import { createFence, takeEpoch } from "./db/fence.ts";
import { defaultNodeName, joinCluster, type Membership } from "./cluster/nodes.ts";
import { campaignForStores, type StoreLock } from "./cluster/store-lock.ts";
import { forwardToActive } from "./cluster/forward.ts";
import { advertised } from "./cluster/advertise.ts";
import { VERSION } from "./version.ts";

export type ServiceName = "dashboard" | "logs" | "metrics" | "logs proxy";

export interface RunningServer {
  readonly db: Database;
  readonly lifecycle: Lifecycle;
  /** base URL of each running listener */
  readonly urls: Partial<Record<ServiceName, string>> & { dashboard: string };
  /** graceful stop: refuse new work, wait for in-flight requests (bounded), close the database */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** the clock, in epoch milliseconds; tests move it */
  now?: () => number;
  /** where a generated metrics admin token is shown once (default: standard error) */
  announce?: (text: string) => void;
  /**
   * This node lost the store lock (its connection to the database broke):
   * another node may run the stores now. It has stopped serving them; the CLI
   * exits so that a supervisor starts it again as a standby.
   */
  fenced?: () => void;
}

export async function startOutpost(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningServer> {
  const lifecycle = createLifecycle();
  // The database starts opening first; the apps' modules (routes, request
  // schemas, protobuf...) are evaluated while it waits on work it leaves to
  // other threads: writing the seed on first boot, compiling PGlite's
  // WebAssembly, reading its files.
  const opening = openDatabase({
    dataDir: config.storage.in_memory ? undefined : config.storage.data_dir,
    logger,
    postgres: postgresOf(config.storage),
  });
  const loading = Promise.all([loadApps(config), adminFiles()]);
  const [opened, loaded] = await Promise.allSettled([opening, loading]);
  if (opened.status === "rejected") throw opened.reason;
  const db = opened.value;
  if (loaded.status === "rejected") {
    await db.close();
    throw loaded.reason;
  }
  const [modules, admin] = loaded.value;
  const listeners: Array<[ServiceName, Listener]> = [];
  /** the port each listener got (a port configured as 0 is chosen when it listens): the dashboard shows these */
  const boundPorts: Partial<Record<ServiceName, number>> = {};
  // before any registry registers prom-client's default metrics: no heap walk at every scrape on Bun
  await skipHeapSpaceWalks();
  // one pool of worker threads for the process (queries, chunk encoding), started on the first task
  const pool = createTaskPool({ threads: config.server.worker_threads, logger });
  // and one worker of its own that decodes large pushes (push-tasks.ts): a push never waits behind
  // a query's tasks, and the event loop keeps only the storing (none when worker_threads is 0)
  const decoder = createTaskPool({ threads: Math.min(1, poolSize(config.server.worker_threads)), logger });
  const closePools = () => Promise.all([pool.close(), decoder.close()]).then(() => undefined);
  // the stores share the server block's TLS, as dskit's listeners do; the dashboard has its own
  const tlsOf = (name: ServiceName) => (name === "dashboard" ? config.dashboard.http_tls_config : config.server.http_tls_config);
  let membership: Membership | undefined;
  let storeLock: StoreLock | undefined;
  /** background work of the apps, stopped (and flushed) before the database closes; the pool goes last */
  const closers: Array<() => Promise<void>> = [];
  for (const warning of exposureWarnings(config)) logger.warn(warning);
  try {
    // one set of access policies and tokens for the process: a token revoked anywhere is refused everywhere at once
    const access = await openStoreAccess({ pg: db.pg, cluster: config.metrics.cluster_name, ...(options.now ? { now: options.now } : {}) });
    // the data dir's cap: the stores register what they can drop; measured every check interval
    const disk = db.dataDir
      ? createDiskGuard({
          dir: db.dataDir,
          cap: config.storage.max_disk_usage,
          minFree: config.storage.min_free_disk_space,
          intervalMs: config.storage.disk_check_interval,
          // the backups' folder when it is inside the data dir (its default): nothing there can be dropped
          exclude: [relative(db.dataDir, resolve(db.dataDir, config.backups.dir || "backups"))].filter((d) => d !== "" && !d.startsWith("..") && !isAbsolute(d)),
          fileDirs: ["logs-chunks", "logs-wal", "metrics-wal"],
          stateFile: join(db.dataDir, "disk-guard.json"),
          logger,
          now: options.now ?? Date.now,
        })
      : undefined;
    if (disk) closers.push(async () => disk.stop());
    const deps = { config, db, logger, lifecycle, runner: pool, decoder, access, disk };
    const apps: Array<[ServiceName, number, FetchHandler]> = [];
    // the nodes sharing a PostgreSQL database: this one's row, heartbeat and listeners' URLs
    if (db.server) {
      const roles = config.server.target === "all" ? ["dashboard", "stores"] : [config.server.target];
      membership = await joinCluster(db.pg, { name: config.server.node_name || defaultNodeName(config.dashboard.http_port), roles, version: VERSION, logger });
      const joined = membership;
      closers.push(() => joined.leave());
    }
    // backups of the database, the stores' files (added below) and the data dir's others; stopped before the stores close
    const backups = createBackups({ config, db, logger, ...(options.now ? { now: options.now } : {}) });
    closers.push(() => backups.close());
    // what this node runs (server.target); on a shared PostgreSQL database the stores run on one node at a time
    const target = config.server.target;
    const dashboardHere = target !== "stores";
    const storesHere = target !== "dashboard";
    const shared = db.server !== undefined;
    let dashboardApp: Awaited<ReturnType<typeof modules.dashboard.createDashboardApp>> | undefined;
    if (dashboardHere) {
      dashboardApp = await modules.dashboard.createDashboardApp({ ...deps, adminFiles: admin, boundPorts, backups, ...options, ...(membership ? { cluster: membership } : {}) });
      closers.push(dashboardApp.close);
      apps.push(["dashboard", config.dashboard.http_port, dashboardApp.app.fetch]);
    }
    /** the current term's fence (a new one each time this node takes the store lock) */
    let fence = createFence();
    /** the stores' apps: opened here, or (shared) once this node holds the store lock */
    const openStores = async () => {
      const opened: Array<[ServiceName, FetchHandler]> = [];
      const closing: Array<() => Promise<void>> = [];
      try {
        if (modules.logs) {
          const logs = await modules.logs.createLogStoreApp({ ...deps, ...options, fence });
          closing.push(logs.close);
          backups.addSource(logs.backup);
          opened.push(["logs", logs.app.fetch]);
          const proxy = config.logs.auth_proxy;
          if (proxy.enabled) {
            const { createAuthProxy } = await import("./apps/logstore/auth-proxy.ts");
            const front = createAuthProxy({ htpasswdFile: proxy.htpasswd_file, realm: proxy.realm, openReady: proxy.open_ready, forward: logs.app.fetch, cors: logs.cors, logger, ...options });
            opened.push(["logs proxy", front.fetch]);
          }
        }
        if (modules.metrics) {
          const metrics = await modules.metrics.createMetricsApp({ ...deps, ...options, fence });
          closing.push(metrics.close);
          backups.addSource(metrics.backup);
          opened.push(["metrics", metrics.app.fetch]);
        }
      } catch (err) {
        await closeAll(closing, logger);
        throw err;
      }
      return { opened, closing };
    };
    const storePorts: Array<[ServiceName, number]> = [];
    if (storesHere && modules.logs) {
      storePorts.push(["logs", config.logs.http_port]);
      if (config.logs.auth_proxy.enabled) storePorts.push(["logs proxy", config.logs.auth_proxy.port]);
    }
    if (storesHere && modules.metrics) storePorts.push(["metrics", config.metrics.http_port]);
    if (storesHere && !shared) {
      const { opened, closing } = await openStores();
      closers.push(...closing);
      for (const [name, fetch] of opened) apps.push([name, storePorts.find(([n]) => n === name)![1], fetch]);
    } else if (storesHere && shared && membership) {
      const joined = membership;
      // a standby until this node holds the store lock: its store listeners forward to the active node
      const handlers = new Map<ServiceName, FetchHandler>();
      for (const [name] of storePorts) {
        let forward = name === "logs proxy" ? forwardToActive("logs", membership) : forwardToActive(name as "logs" | "metrics", membership);
        if (name === "logs proxy" && modules.logs) {
          // the proxy's checks (credentials, the tenant from the user name, the cross-tenant pages) happen here,
          // before forwarding: never a way around them through a standby
          const proxy = config.logs.auth_proxy;
          const { createAuthProxy } = await import("./apps/logstore/auth-proxy.ts");
          forward = createAuthProxy({
            htpasswdFile: proxy.htpasswd_file, realm: proxy.realm, openReady: proxy.open_ready, forward, cors: modules.logs.logStoreCors(config), logger, ...options,
          }).fetch;
        }
        handlers.set(name, forward);
        apps.push([name, storePorts.find(([n]) => n === name)![1], (request, env) => handlers.get(name)!(request, env)]);
      }
      const standby = new Map(handlers);
      let running: Array<() => Promise<void>> = [];
      storeLock = campaignForStores(db.server!, logger, {
        async elected() {
          // the fencing token first: a node that ran the stores until now writes nothing more of their shared log
          fence = createFence();
          fence.epoch = await takeEpoch(db.pg);
          const { opened, closing } = await openStores();
          running = closing;
          for (const [name, fetch] of opened) handlers.set(name, fetch);
          await joined.becomeStoreActive();
          logger.info("this node runs the stores now", { node: joined.name });
        },
        lost() {
          // nothing more of the shared log from here; requests go to whichever node runs the stores now
          fence.raise();
          for (const [name, fetch] of standby) handlers.set(name, fetch);
          options.fenced?.();
        },
      });
      closers.push(async () => {
        // the stores close while this node still holds the lock (their last flush clears the shared log);
        // only then may a standby take over
        await closeAll(running, logger);
        await storeLock?.stop();
      });
      // a lock that is free now is taken before the listeners open: a node alone serves its stores at once
      await storeLock.settled;
    }
    // other nodes' writes (PostgreSQL): the read models registered above; listening before the first request
    db.changes.on("store_access", ["store_access_policies", "store_access_tokens"], () => {
      access.reload().catch((err: unknown) => logger.error("reloading the stores' access policies and tokens failed", { err: String(err) }));
    });
    await db.changes.start();
    if (disk) {
      const usage = await disk.check();
      const low = lowSpaceWarning(usage, config.storage.min_free_disk_space);
      if (low) logger.warn(low);
    }
    const timeouts = { idle: config.server.http_idle_timeout, read: config.server.http_read_timeout, write: config.server.http_write_timeout };
    const limited = timeoutLimits(timeouts);
    if (limited) logger.warn(limited);
    for (const [name, port, fetch] of apps) {
      const listener = await listen(fetch, { host: config.server.host, port, tls: tlsOf(name), timeouts });
      listeners.push([name, listener]);
      boundPorts[name] = Number(new URL(listener.url).port);
    }
    if (membership) await membership.setUrls(advertised(listeners, config.server));
  } catch (err) {
    await Promise.all(listeners.map(([, l]) => l.close(true)));
    await closeAll([...closers, closePools], logger);
    await db.close();
    throw err;
  }
  lifecycle.markReady();

  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      lifecycle.markStopping();
      const timeout = config.server.shutdown_timeout;
      const closing = Promise.all(listeners.map(([, l]) => l.close(false)));
      const drained = await lifecycle.drain(timeout);
      if (!drained) {
        logger.warn("shutdown timeout reached with requests still in flight; closing them", {
          in_flight: lifecycle.inFlight(),
          timeout_ms: timeout,
        });
      }
      // idle keep-alive connections would otherwise hold the listeners open
      await Promise.race([closing, delay(drained ? 1_000 : 0)]);
      await Promise.all(listeners.map(([, l]) => l.close(true)));
      await closeAll([...closers, closePools], logger);
      await db.close();
      lifecycle.markStopped();
    })();
    return stopping;
  };

  const urls = Object.fromEntries(listeners.map(([name, l]) => [name, l.url])) as RunningServer["urls"];
  return { db, lifecycle, urls, stop };
}

/** the apps' modules, imported on demand (a disabled store's never is) */
async function loadApps(config: Config) {
  const [dashboard, logs, metrics] = await Promise.all([
    import("./apps/dashboard/app.ts"),
    config.logs.enabled ? import("./apps/logstore/app.ts") : undefined,
    config.metrics.enabled ? import("./apps/metrics/app.ts") : undefined,
  ]);
  return { dashboard, logs, metrics };
}

async function closeAll(closers: Array<() => Promise<void>>, logger: Logger): Promise<void> {
  for (const close of closers) {
    await close().catch((err: unknown) => logger.error("closing a service failed", { err: String(err) }));
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
