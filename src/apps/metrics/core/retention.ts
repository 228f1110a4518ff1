// Retention of the metrics store, per tenant as Mimir's compactor applies
// compactor_blocks_retention_period: every cleanup interval, each tenant's
// chunks whose newest sample is older than its period are deleted (a period
// of 0s keeps everything), and series left with none. A chunk goes whole, as
// Mimir and Prometheus delete whole blocks: samples older than the period
// stay while a chunk holds newer ones too (a chunk spans at most 120 samples,
// or 30 minutes of an idle series).
//
// /metrics shows that it is applied: each tenant's period and oldest sample
// held (the head keeps the oldest time as samples come and after deletions:
// no chunk is read to answer), the chunks deleted, and when the last run
// ended without an error.
import { Counter, Gauge, type Registry } from "prom-client";
import type { Logger } from "../../../lib/logger.ts";
import { formatDuration } from "../../../lib/units.ts";
import type { MetricsStore } from "./store.ts";

export interface MetricsRetentionOptions {
  store: MetricsStore;
  /** a tenant's retention period (ms; 0 keeps everything) */
  periodOf(tenant: string): number;
  registry: Registry;
  logger: Logger;
  now: () => number;
  /** how often to run (ms) */
  every: number;
}

export interface MetricsRetention {
  /** runs retention now (or waits for the run under way); resolves with the chunks deleted by tenant */
  run(): Promise<Map<string, number>>;
  /** when the last run ended without an error (ms), undefined before the first */
  lastRun(): number | undefined;
  stop(): void;
}

export function startMetricsRetention(o: MetricsRetentionOptions): MetricsRetention {
  const { store } = o;
  new Gauge({
    name: "cortex_retention_period_seconds",
    help: "The retention period applied to each tenant's samples (compactor_blocks_retention_period; 0: kept forever).",
    labelNames: ["user"],
    registers: [o.registry],
    collect() {
      this.reset();
      for (const user of store.tenants()) this.set({ user }, o.periodOf(user) / 1000);
    },
  });
  new Gauge({
    name: "cortex_retention_oldest_sample_timestamp_seconds",
    help: "The time of the oldest sample each tenant holds, in memory or stored.",
    labelNames: ["user"],
    registers: [o.registry],
    collect() {
      this.reset();
      for (const user of store.tenants()) {
        const oldest = store.peek(user)?.minT ?? Infinity;
        if (Number.isFinite(oldest)) this.set({ user }, oldest / 1000);
      }
    },
  });
  const lastRun = new Gauge({
    name: "cortex_retention_last_successful_run_timestamp_seconds",
    help: "When the last retention run of the metrics store ended without an error.",
    registers: [o.registry],
  });
  const deletedChunks = new Counter({
    name: "cortex_retention_deleted_chunks_total",
    help: "Chunks deleted by retention, by tenant.",
    labelNames: ["user"],
    registers: [o.registry],
  });

  let running: Promise<Map<string, number>> | undefined;
  let lastRunAt: number | undefined;
  const once = async () => {
    const now = o.now();
    const cutoffs = new Map<string, number>();
    for (const tenant of store.tenants()) {
      const period = o.periodOf(tenant);
      if (period > 0) cutoffs.set(tenant, now - period);
    }
    const deleted = cutoffs.size > 0 ? await store.applyRetention(cutoffs) : new Map<string, number>();
    for (const [tenant, chunks] of deleted) {
      deletedChunks.inc({ user: tenant }, chunks);
      o.logger.info("metrics retention deleted chunks", {
        tenant, chunks, period: formatDuration(o.periodOf(tenant)), before: new Date(cutoffs.get(tenant)!).toISOString(),
      });
    }
    lastRunAt = o.now();
    lastRun.set(lastRunAt / 1000);
    return deleted;
  };
  const run = () => (running ??= once().finally(() => (running = undefined)));
  const tick = () => void run().catch((err: unknown) => o.logger.error("metrics retention failed", { err: String(err) }));
  // a first run soon after start (the last run is then known), then one every interval
  const first = setTimeout(tick, 1000);
  const timer = setInterval(tick, o.every);
  for (const t of [first, timer]) (t as { unref?: () => void }).unref?.();
  return {
    run,
    lastRun: () => lastRunAt,
    stop() {
      clearTimeout(first);
      clearInterval(timer);
    },
  };
}
