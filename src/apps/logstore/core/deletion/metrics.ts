// The delete requests' metrics in the log store's /metrics: the real
// product's compactor names (pkg/compactor/deletion/metrics.go) with svc in
// place of its name.
import { Counter, Gauge, type Registry } from "prom-client";

export interface DeletionMetrics {
  received(tenant: string): void;
  processed(tenant: string): void;
  deletedLines(tenant: string, n: number): void;
  failed(cause: "error"): void;
  /** the requests past their cancellation period and not processed yet (gauges read at each scrape) */
  watchPending(pending: () => { count: number; oldestEligibleMs: number | undefined }, now: () => number): void;
}

export function createDeletionMetrics(registry: Registry): DeletionMetrics {
  const received = new Counter({ name: "svc_compactor_delete_requests_received_total", help: "Number of delete requests received per user.", labelNames: ["user"], registers: [registry] });
  const processed = new Counter({ name: "svc_compactor_delete_requests_processed_total", help: "Number of delete requests processed per user.", labelNames: ["user"], registers: [registry] });
  const deleted = new Counter({ name: "svc_compactor_deleted_lines", help: "Number of deleted lines per user.", labelNames: ["user"], registers: [registry] });
  const failures = new Counter({ name: "svc_compactor_delete_processing_fails_total", help: "Number of times the processing of delete requests has failed.", labelNames: ["cause"], registers: [registry] });
  let pending = (): { count: number; oldestEligibleMs: number | undefined } => ({ count: 0, oldestEligibleMs: undefined });
  let now = () => Date.now();
  new Gauge({
    name: "svc_compactor_pending_delete_requests_count",
    help: "Count of delete requests which are over their cancellation period and have not finished processing yet.",
    registers: [registry],
    collect() {
      this.set(pending().count);
    },
  });
  new Gauge({
    name: "svc_compactor_oldest_pending_delete_request_age_seconds",
    help: "Age of oldest pending delete request in seconds since they are over their cancellation period.",
    registers: [registry],
    collect() {
      const oldest = pending().oldestEligibleMs;
      this.set(oldest === undefined ? 0 : Math.max(0, Math.floor((now() - oldest) / 1000)));
    },
  });
  return {
    received: (user) => received.inc({ user }),
    processed: (user) => processed.inc({ user }),
    deletedLines: (user, n) => deleted.inc({ user }, n),
    failed: (cause) => failures.inc({ cause }),
    watchPending(p, clock) {
      pending = p;
      now = clock;
    },
  };
}
