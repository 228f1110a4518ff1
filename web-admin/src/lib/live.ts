// Live figures for the overview: every few seconds the stores' GET /metrics
// are read and counters turned into rates (delta over elapsed time).
import { parsePromText, sum, type Sample } from "./prom-text.ts";
import { storeRequest, type Topology } from "./stores.ts";

export interface Figures {
  at: number;
  logLinesPerSec: number | undefined;
  samplesPerSec: number | undefined;
  activeSeries: number | undefined;
  requestsPerSec: number | undefined;
}

interface Totals {
  at: number;
  lines?: number;
  samples?: number;
  series?: number;
  /** each store's own request counter: a rate is taken per store, so one store missing a scrape adds no spike */
  logRequests?: number;
  metricRequests?: number;
}

async function scrape(t: Topology): Promise<Totals> {
  const read = async (l: Topology["logs"]): Promise<Sample[] | undefined> =>
    l.enabled ? parsePromText(await storeRequest<string>(l, "/metrics", { text: true })) : undefined;
  const [logs, metrics] = await Promise.all([read(t.logs).catch(() => undefined), read(t.metrics).catch(() => undefined)]);
  return {
    at: performance.now(),
    lines: logs && sum(logs, "svc_distributor_lines_received_total"),
    samples: metrics && sum(metrics, "cortex_distributor_received_samples_total"),
    series: metrics && sum(metrics, "cortex_ingester_active_series"),
    logRequests: logs && sum(logs, "svc_request_duration_seconds_count"),
    metricRequests: metrics && sum(metrics, "cortex_request_duration_seconds_count"),
  };
}

/** reads the stores' metrics and returns a function giving figures since the previous call */
export function createLiveFigures(t: Topology): () => Promise<Figures | undefined> {
  let previous: Totals | undefined;
  return async () => {
    const now = await scrape(t);
    const before = previous;
    previous = now;
    if (!before) return undefined;
    const dt = (now.at - before.at) / 1000;
    const per = (a?: number, b?: number) => (a === undefined || b === undefined || dt <= 0 ? undefined : Math.max(0, (a - b) / dt));
    const logReq = per(now.logRequests, before.logRequests);
    const metricReq = per(now.metricRequests, before.metricRequests);
    return {
      at: Date.now(),
      logLinesPerSec: per(now.lines, before.lines),
      samplesPerSec: per(now.samples, before.samples),
      activeSeries: now.series,
      requestsPerSec: logReq === undefined && metricReq === undefined ? undefined : (logReq ?? 0) + (metricReq ?? 0),
    };
  };
}
