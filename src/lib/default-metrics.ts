// prom-client's default process metrics (CPU, memory, event-loop lag, GC...)
// for a store's registry, registered off the start's critical path:
// registering them probes v8.getHeapSpaceStatistics(), which on Bun is a walk
// of the whole heap (tens of milliseconds per registry while the program
// loads; half a second at a scrape with a million metrics series: on Bun it
// is made to fail at start, as prom-client expects of Bun: server.ts and
// platform/memory.ts skipHeapSpaceWalks), and
// starts the event-loop delay monitor. They are registered at the
// first scrape or a second after the registry is made, whichever comes first,
// so every scrape shows them. Under their standard names (process_cpu_seconds_total,
// process_resident_memory_bytes, nodejs_eventloop_lag_seconds...), unprefixed:
// each listener is its own scrape target, as each real product exposes its own
// process_* metrics, so dashboards and alerts made for those work unchanged.
import { collectDefaultMetrics, type Registry } from "prom-client";


/** registering them later than this would leave the event-loop lag histogram too few samples at a first scrape */
const REGISTER_AFTER_MS = 1_000;

export function deferDefaultMetrics(registry: Registry): void {
  let registered = false;
  const register = () => {
    if (registered) return;
    registered = true;
    clearTimeout(timer);
    collectDefaultMetrics({ register: registry });
  };
  const timer = setTimeout(register, REGISTER_AFTER_MS);
  (timer as { unref?: () => void }).unref?.();
  const metrics = registry.metrics.bind(registry);
  registry.metrics = () => {
    register();
    return metrics();
  };
  const json = registry.getMetricsAsJSON.bind(registry);
  registry.getMetricsAsJSON = () => {
    register();
    return json();
  };
}
