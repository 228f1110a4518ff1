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
}

export function createLogStoreMetrics(): LogStoreMetrics {
  const registry = new Registry();
  deferDefaultMetrics(registry, "svc_logs_");
  const lines = new Counter({ name: "svc_distributor_lines_received_total", help: "Log lines received, by tenant.", labelNames: ["tenant"], registers: [registry] });
  const bytes = new Counter({ name: "svc_distributor_bytes_received_total", help: "Bytes of log lines received, by tenant.", labelNames: ["tenant"], registers: [registry] });
  const discardedLines = new Counter({ name: "svc_discarded_samples_total", help: "Log entries refused, by reason and tenant.", labelNames: ["reason", "tenant"], registers: [registry] });
  const discardedBytes = new Counter({ name: "svc_discarded_bytes_total", help: "Bytes of log entries refused, by reason and tenant.", labelNames: ["reason", "tenant"], registers: [registry] });
  const corrupt = new Counter({ name: "svc_chunk_store_corrupt_chunks_total", help: "Stored log chunks found corrupt (truncated, bad checksum) and skipped by queries, by tenant.", labelNames: ["tenant"], registers: [registry] });
  let flushQueue = () => ({ chunks: 0, bytes: 0 });
  new Gauge({ name: "svc_ingester_flush_queue_length", help: "Chunks cut from the heads and waiting to be encoded and written.", registers: [registry], collect() { this.set(flushQueue().chunks); } });
  new Gauge({ name: "svc_ingester_flush_queue_bytes", help: "Bytes of log lines in chunks waiting to be written (past 256 MiB, pushes wait for the writes).", registers: [registry], collect() { this.set(flushQueue().bytes); } });
  return {
    registry,
    watchFlushQueue: (queue) => (flushQueue = queue),
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
