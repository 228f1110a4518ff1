// The log store's own metrics (GET /metrics), with prom-client: lines and
// bytes received per tenant, discarded entries by reason, corrupt chunks (request durations are added by the app).
// Names follow the real product's, with svc in place of its name.
import { Counter, Gauge, Registry } from "prom-client";
import { deferDefaultMetrics } from "../../../lib/default-metrics.ts";
import type { IngestCounters } from "./ingest.ts";

export interface LogStoreMetrics extends IngestCounters {
  registry: Registry;
  /** a stored chunk was found corrupt (counted once per chunk) */
  corruptChunk(tenant: string): void;
  /** the store's write backlog, read at each scrape */
  watchFlushQueue(queue: () => { chunks: number; bytes: number }): void;
  /** chunks a retention pass deleted for a tenant */
  retentionDeleted(tenant: string, chunks: number): void;
  /** chunks the disk cap dropped for a tenant, and their bytes */
  diskCapDropped(tenant: string, chunks: number, bytes: number): void;
  /** retention's state, read at each scrape */
  watchRetention(state: () => RetentionState): void;
}

export interface RetentionState {
  /** ms since the epoch of the last successful retention pass */
  lastSuccess: number | undefined;
  /** per tenant: the oldest entry held (ms) and the retention period applied (ms, 0: forever) */
  tenants: Array<{ tenant: string; oldestMs: number | undefined; periodMs: number }>;
}

export function createLogStoreMetrics(): LogStoreMetrics {
  const registry = new Registry();
  deferDefaultMetrics(registry);
  const lines = new Counter({ name: "svc_distributor_lines_received_total", help: "Log lines received, by tenant.", labelNames: ["tenant"], registers: [registry] });
  const bytes = new Counter({ name: "svc_distributor_bytes_received_total", help: "Bytes of log lines received, by tenant.", labelNames: ["tenant"], registers: [registry] });
  const discardedLines = new Counter({ name: "svc_discarded_samples_total", help: "Log entries refused, by reason and tenant.", labelNames: ["reason", "tenant"], registers: [registry] });
  const discardedBytes = new Counter({ name: "svc_discarded_bytes_total", help: "Bytes of log entries refused, by reason and tenant.", labelNames: ["reason", "tenant"], registers: [registry] });
  const corrupt = new Counter({ name: "svc_chunk_store_corrupt_chunks_total", help: "Stored log chunks found corrupt (truncated, bad checksum) and skipped by queries, by tenant.", labelNames: ["tenant"], registers: [registry] });
  let flushQueue = () => ({ chunks: 0, bytes: 0 });
  new Gauge({ name: "svc_ingester_flush_queue_length", help: "Chunks cut from the heads and waiting to be encoded and written.", registers: [registry], collect() { this.set(flushQueue().chunks); } });
  new Gauge({ name: "svc_ingester_flush_queue_bytes", help: "Bytes of log lines in chunks waiting to be written (past 256 MiB, pushes wait for the writes).", registers: [registry], collect() { this.set(flushQueue().bytes); } });
  const retentionDeleted = new Counter({ name: "svc_retention_deleted_chunks_total", help: "Log chunks deleted by retention (past the tenant's retention_period), by tenant.", labelNames: ["tenant"], registers: [registry] });
  const capDropped = new Counter({ name: "svc_disk_cap_dropped_chunks_total", help: "Log chunks dropped, oldest first, to keep the data dir under storage.max_disk_usage, by tenant.", labelNames: ["tenant"], registers: [registry] });
  const capDroppedBytes = new Counter({ name: "svc_disk_cap_dropped_bytes_total", help: "Bytes of log chunks dropped to keep the data dir under storage.max_disk_usage, by tenant.", labelNames: ["tenant"], registers: [registry] });
  let retention: () => RetentionState = () => ({ lastSuccess: undefined, tenants: [] });
  new Gauge({
    name: "svc_compactor_apply_retention_last_successful_run_timestamp_seconds",
    help: "Unix time of the last successful retention pass (0: none yet).",
    registers: [registry],
    collect() { this.set((retention().lastSuccess ?? 0) / 1000); },
  });
  new Gauge({
    name: "svc_retention_oldest_entry_timestamp_seconds",
    help: "Unix time of the oldest log entry each tenant holds.",
    labelNames: ["tenant"],
    registers: [registry],
    collect() {
      this.reset();
      for (const t of retention().tenants) if (t.oldestMs !== undefined) this.set({ tenant: t.tenant }, t.oldestMs / 1000);
    },
  });
  new Gauge({
    name: "svc_retention_period_seconds",
    help: "The retention period applied to each tenant (0: kept forever).",
    labelNames: ["tenant"],
    registers: [registry],
    collect() {
      this.reset();
      for (const t of retention().tenants) this.set({ tenant: t.tenant }, t.periodMs / 1000);
    },
  });
  return {
    registry,
    watchFlushQueue: (queue) => (flushQueue = queue),
    retentionDeleted: (tenant, n) => retentionDeleted.inc({ tenant }, n),
    diskCapDropped(tenant, n, b) {
      capDropped.inc({ tenant }, n);
      capDroppedBytes.inc({ tenant }, b);
    },
    watchRetention: (state) => (retention = state),
    corruptChunk: (tenant) => corrupt.inc({ tenant }),
    received(tenant, n, b) {
      lines.inc({ tenant }, n);
      bytes.inc({ tenant }, b);
    },
    discarded(tenant, reason, n, b) {
      discardedLines.inc({ reason, tenant }, n);
      discardedBytes.inc({ reason, tenant }, b);
    },
  };
}
