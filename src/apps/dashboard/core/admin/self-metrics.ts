// The dashboard's own metrics (GET /metrics on its listener), named as the
// real dashboard product names them with svc in place of its name: the
// server-wide totals (svc_stat_*, its stats collector's gauges), its build
// info, and the process metrics. Outpost adds live sign-in sessions and how
// often the in-memory read models were loaded or changed. The request
// histogram and response counters are the app's (request-metrics.ts), the
// database latency histogram the database's (db/query-timing.ts); both join
// this registry.
//
// Nothing here costs a request anything: the totals are counted in the
// background, at most once a minute (the real product: every 30 minutes);
// the sessions are a count cached for 30 s (sessions.ts); the read models
// report counters they keep anyway.
import type { Sql } from "../../../../db/sql.ts";
import { Counter, Gauge, Registry } from "prom-client";
import { deferDefaultMetrics } from "../../../../lib/default-metrics.ts";
import type { Logger } from "../../../../lib/logger.ts";
import type { ReadModelStats } from "../../../../lib/reloadable.ts";
import { countStats } from "./admin-stats.ts";

/** the least time between two counts of the totals */
const TOTALS_EVERY_MS = 60_000;
/** the first count, off the start's critical path */
const FIRST_TOTALS_AFTER_MS = 1_000;

export interface SelfMetricsDeps {
  pg: Sql;
  now: () => number;
  logger: Logger;
  /** how many sign-in sessions have not expired */
  activeSessions: () => Promise<number>;
  /** the in-memory read models by name (undefined: not in this edition) */
  readModels: Record<string, ReadModelStats | undefined>;
  /** the type of every data source, for svc_stat_totals_datasource{plugin_id} */
  dataSourceTypes: () => Iterable<string>;
  /** count the totals (dashboard.metrics.disable_total_stats turns them off) */
  totals: boolean;
  /** svc_build_info's labels */
  build: Record<string, string>;
  /** metrics kept elsewhere that this registry shows too (the request histogram, the database's) */
  joining: ReadonlyArray<{ registerWith(registry: Registry): void }>;
}

export interface SelfMetrics {
  registry: Registry;
  /** stops the background count */
  close(): void;
}

/** totals gauge name (svc_ + the real product's) -> the admin stats count it shows */
const TOTALS: ReadonlyArray<[name: string, help: string, count: string]> = [
  ["svc_stat_total_users", "total amount of users", "users"],
  ["svc_stat_total_orgs", "total amount of orgs", "orgs"],
  ["svc_stat_totals_dashboard", "total amount of dashboards", "dashboards"],
  ["svc_stat_totals_folder", "total amount of folders", "folders"],
  ["svc_stat_total_playlists", "total amount of playlists", "playlists"],
  ["svc_stat_active_users", "number of active users", "activeUsers"],
  ["svc_stat_totals_admins", "total amount of admins", "admins"],
  ["svc_stat_totals_editors", "total amount of editors", "editors"],
  ["svc_stat_totals_viewers", "total amount of viewers", "viewers"],
  ["svc_stat_totals_active_admins", "total amount of active admins", "activeAdmins"],
  ["svc_stat_totals_active_editors", "total amount of active editors", "activeEditors"],
  ["svc_stat_totals_active_viewers", "total amount of active viewers", "activeViewers"],
  ["svc_stat_totals_annotations", "total amount of annotations in the database", "annotations"],
  ["svc_stat_totals_alert_rules", "total amount of alert rules in the database", "alerts"],
  ["svc_stat_totals_library_panels", "total amount of library panels in the database", "libraryPanels"],
];

export function createSelfMetrics(deps: SelfMetricsDeps): SelfMetrics {
  const registry = new Registry();
  deferDefaultMetrics(registry);
  const registers = [registry];
  for (const metrics of deps.joining) metrics.registerWith(registry);
  new Gauge({ name: "svc_build_info", help: "A metric with a constant '1' value labeled by version, revision, branch, and goversion from which Outpost was built", labelNames: Object.keys(deps.build), registers }).set(deps.build, 1);
  /** what a scrape sets off (the totals' count, not awaited) */
  let atScrape = (): void => undefined;
  new Gauge({
    name: "svc_stat_active_sessions",
    help: "number of sign-in sessions that have not expired",
    registers,
    async collect() {
      atScrape();
      // a failed count leaves the last value: the scrape still answers
      await deps.activeSessions().then((n) => this.set(n), () => undefined);
    },
  });
  const models = Object.entries(deps.readModels).filter((e): e is [string, ReadModelStats] => e[1] !== undefined);
  const readModelCounter = (name: string, help: string, field: keyof ReadModelStats) =>
    new Counter({
      name,
      help,
      labelNames: ["model"],
      registers,
      collect() {
        this.reset();
        for (const [model, stats] of models) this.inc({ model }, stats[field]);
      },
    });
  readModelCounter("svc_read_model_reloads_total", "Times an in-memory read model was loaded whole from the database (the first load included), by model.", "loads");
  readModelCounter("svc_read_model_updates_total", "Changes applied in place to an in-memory read model kept current by its writers, by model.", "updates");
  if (!deps.totals) return { registry, close: () => undefined };

  const totals = startTotals(registry, deps);
  atScrape = totals.count;
  return { registry, close: totals.stop };
}

/**
 * The totals, counted in the background: first a second after the start,
 * then again at a scrape once the last count is a minute old (the scrape
 * shows the last count, never waits for one). The gauges join the registry
 * with the first count, so a scrape before it shows none rather than zeros.
 */
function startTotals(registry: Registry, deps: SelfMetricsDeps): { count(): void; stop(): void } {
  const gauges = TOTALS.map(([name, help, count]) => [new Gauge({ name, help, registers: [] }), count] as const);
  const dataSources = new Gauge({ name: "svc_stat_totals_datasource", help: "total number of defined datasources, labeled by pluginId", labelNames: ["plugin_id"], registers: [] });
  let countedAt = -Infinity;
  let counting = false;
  let stopped = false;
  let shown = false;
  const count = () => {
    if (stopped || counting || deps.now() - countedAt < TOTALS_EVERY_MS) return;
    counting = true;
    countedAt = deps.now();
    countStats(deps.pg, countedAt).then(
      (counts) => {
        for (const [gauge, key] of gauges) gauge.set(counts[key] ?? 0);
        const byType = new Map<string, number>();
        for (const type of deps.dataSourceTypes()) byType.set(type, (byType.get(type) ?? 0) + 1);
        dataSources.reset();
        for (const [type, n] of byType) dataSources.set({ plugin_id: type }, n);
        if (!shown) {
          shown = true;
          for (const [gauge] of gauges) registry.registerMetric(gauge);
          registry.registerMetric(dataSources);
        }
        counting = false;
      },
      (err: unknown) => {
        counting = false;
        if (!stopped) deps.logger.warn("could not count the totals for /metrics", { err: String(err) });
      },
    );
  };
  const first = setTimeout(count, FIRST_TOTALS_AFTER_MS);
  (first as { unref?: () => void }).unref?.();
  return {
    count,
    stop() {
      stopped = true;
      clearTimeout(first);
    },
  };
}
