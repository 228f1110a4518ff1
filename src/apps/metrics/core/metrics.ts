// The metrics store's own metrics (GET /metrics), with prom-client, named as
// Mimir names them: samples received and ingested per tenant, discarded
// samples and metadata by reason, OTLP requests, active and in-memory series (request durations are added by the app).
import { Counter, Gauge, Registry } from "prom-client";
import { deferDefaultMetrics } from "../../../lib/default-metrics.ts";
import type { IngestCounters } from "./ingest.ts";
import type { MetricsStore } from "./store.ts";

export interface MetricsStoreMetrics extends IngestCounters {
  registry: Registry;
  /** an OTLP push decoded for a tenant (cortex_distributor_otlp_requests_total) */
  otlpRequest(tenant: string): void;
}

export function createMetricsStoreMetrics(store: MetricsStore, sweep: () => void): MetricsStoreMetrics {
  const registry = new Registry();
  deferDefaultMetrics(registry);
  const received = new Counter({ name: "cortex_distributor_received_samples_total", help: "The total number of received samples, by tenant.", labelNames: ["user"], registers: [registry] });
  const ingested = new Counter({ name: "cortex_ingester_ingested_samples_total", help: "The total number of samples ingested, by tenant.", labelNames: ["user"], registers: [registry] });
  const discarded = new Counter({ name: "cortex_discarded_samples_total", help: "The total number of samples that were discarded.", labelNames: ["reason", "user"], registers: [registry] });
  const discardedMetadata = new Counter({ name: "cortex_discarded_metadata_total", help: "The total number of metadata that were discarded.", labelNames: ["reason", "user"], registers: [registry] });
  const otlpRequests = new Counter({ name: "cortex_distributor_otlp_requests_total", help: "The total number of OTLP requests that have come in to the distributor.", labelNames: ["user"], registers: [registry] });
  new Gauge({
    name: "cortex_ingester_active_series",
    help: "Number of currently active series per user.",
    labelNames: ["user"],
    registers: [registry],
    collect() {
      sweep();
      this.reset();
      for (const tenant of store.tenants()) this.set({ user: tenant }, store.peek(tenant)?.activeCount ?? 0);
    },
  });
  new Gauge({
    name: "cortex_ingester_memory_series",
    help: "The current number of series in memory.",
    registers: [registry],
    collect() {
      let n = 0;
      for (const tenant of store.tenants()) n += store.peek(tenant)?.seriesCount ?? 0;
      this.set(n);
    },
  });
  return {
    registry,
    received: (user, n) => received.inc({ user }, n),
    ingested: (user, n) => ingested.inc({ user }, n),
    discarded: (user, reason, n) => discarded.inc({ reason, user }, n),
    discardedMetadata: (user, reason, n) => discardedMetadata.inc({ reason, user }, n),
    otlpRequest: (user) => otlpRequests.inc({ user }),
  };
}
