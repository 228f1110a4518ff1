// Request durations of a store listener as a Prometheus histogram (by
// method, route pattern and status), recorded by the base app's outer layer.
//
// Recorded per request, so recorded cheaply: prom-client's Histogram checks,
// sorts and hashes the label object on every observation (a visible share of
// a push's cost in the soak profile); here a label set's bucket counts are
// found by one string key and exported in prom-client's own format, as a
// metric the registry reads like its own.
import type { Context } from "hono";
import type { Registry } from "prom-client";

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

interface Series {
  labels: { method: string; route: string; status_code: string };
  /** per bucket (not cumulative); the last slot counts what is above every bound */
  counts: Float64Array;
  sum: number;
  count: number;
}

interface Sample {
  labels: Record<string, string | number>;
  sharedLabels?: Record<string, string>;
  value: number;
  metricName: string;
}

/** the part of prom-client's metric interface its registry uses */
export class RequestHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly #series = new Map<string, Series>();

  constructor(readonly name: string, readonly help: string) {}

  observe(method: string, route: string, status: number, seconds: number): void {
    const key = `${method} ${status} ${route}`;
    let s = this.#series.get(key);
    if (!s) {
      s = { labels: { method, route, status_code: String(status) }, counts: new Float64Array(BUCKETS.length + 1), sum: 0, count: 0 };
      this.#series.set(key, s);
    }
    let b = 0;
    while (b < BUCKETS.length && seconds > BUCKETS[b]!) b++;
    s.counts[b]!++;
    s.sum += seconds;
    s.count++;
  }

  /** prom-client's histogram export: cumulative buckets (le first, then the series' labels), +Inf, sum, count */
  async getForPromString(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    for (const s of this.#series.values()) {
      let acc = 0;
      BUCKETS.forEach((bound, i) => {
        acc += s.counts[i]!;
        values.push({ labels: { le: bound }, sharedLabels: s.labels, value: acc, metricName: `${this.name}_bucket` });
      });
      values.push({ labels: { le: "+Inf" }, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_bucket` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** the JSON form (registry.getMetricsAsJSON): each sample's labels in one object */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const data = await this.getForPromString();
    data.values = data.values.map(({ sharedLabels, ...v }) => ({ ...v, labels: { ...v.labels, ...sharedLabels } }));
    return data;
  }

  /** a request's duration, by its method, route pattern and status */
  readonly observeRequest = (c: Context, seconds: number): void => this.observe(c.req.method, c.req.routePath, c.res.status, seconds);

  /** shown by a registry's exposition from now on */
  registerWith(registry: Registry): void {
    registry.registerMetric(this as never);
  }

  reset(): void {
    this.#series.clear();
  }
}

/** a request histogram of the given name; the base app observes each request into it (createStoreApp's `durations`) */
export function requestDurations(name: string): RequestHistogram {
  return new RequestHistogram(name, "Time (in seconds) spent serving HTTP requests.");
}
