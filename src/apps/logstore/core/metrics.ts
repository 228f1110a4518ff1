// The log store's own metrics (GET /metrics), with prom-client: lines and
// bytes received per tenant, discarded entries by reason, corrupt chunks (request durations are added by the app).
// Names follow the real product's, with svc in place of its name.
import { Counter, Registry } from "prom-client";
import { deferDefaultMetrics } from "../../../lib/default-metrics.ts";
import type { IngestCounters } from "./ingest.ts";

export interface LogStoreMetrics extends IngestCounters {
  registry: Registry;
  /** a stored chunk was found corrupt (counted once per chunk) */
  corruptChunk(tenant: string): void;
}

export function createLogStoreMetrics(): LogStoreMetrics {
  const registry = new Registry();
  deferDefaultMetrics(registry, "svc_logs_");
  const lines = new Counter({ name: "svc_distributor_lines_received_total", help: "Log lines received, by tenant.", labelNames: ["tenant"], registers: [registry] });
  const bytes = new Counter({ name: "svc_distributor_bytes_received_total", help: "Bytes of log lines received, by tenant.", labelNames: ["tenant"], registers: [registry] });
  const discardedLines = new Counter({ name: "svc_discarded_samples_total", help: "Log entries refused, by reason and tenant.", labelNames: ["reason", "tenant"], registers: [registry] });
  const discardedBytes = new Counter({ name: "svc_discarded_bytes_total", help: "Bytes of log entries refused, by reason and tenant.", labelNames: ["reason", "tenant"], registers: [registry] });
  const corrupt = new Counter({ name: "svc_chunk_store_corrupt_chunks_total", help: "Stored log chunks found corrupt (truncated, bad checksum) and skipped by queries, by tenant.", labelNames: ["tenant"], registers: [registry] });
  return {
    registry,
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
