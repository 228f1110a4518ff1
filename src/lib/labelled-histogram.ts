// A Prometheus histogram with labels, recorded cheaply: prom-client's
// Histogram checks, sorts and hashes the label object on every observation (a
// visible share of a push's cost in the soak profile); here a label set's
// bucket counts are found by one string key and exported in prom-client's own
// format, as a metric a registry reads like its own. For what is observed
// very often: every request of a listener, every database query.
import type { Registry } from "prom-client";

interface Series {
  labels: Record<string, string>;
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

interface MetricData {
  name: string;
  help: string;
  type: string;
  aggregator: string;
  values: Sample[];
}

/** the part of prom-client's metric interface its registry uses */
export class LabelledHistogram {
  readonly type = "histogram";
  readonly aggregator = "sum";
  readonly #series = new Map<string, Series>();

  constructor(
    readonly name: string,
    readonly help: string,
    readonly labelNames: readonly string[],
    readonly buckets: readonly number[],
  ) {}

  /** one observation; `values` are the label values in the order of labelNames */
  observe(values: readonly string[], value: number): void {
    const key = values.length === 1 ? values[0]! : values.join("\n");
    let s = this.#series.get(key);
    if (!s) {
      const labels: Record<string, string> = {};
      this.labelNames.forEach((n, i) => (labels[n] = values[i]!));
      s = { labels, counts: new Float64Array(this.buckets.length + 1), sum: 0, count: 0 };
      this.#series.set(key, s);
    }
    let b = 0;
    while (b < this.buckets.length && value > this.buckets[b]!) b++;
    s.counts[b]!++;
    s.sum += value;
    s.count++;
  }

  /** prom-client's histogram export: cumulative buckets (le first, then the series' labels), +Inf, sum, count */
  async getForPromString(): Promise<MetricData> {
    const values: Sample[] = [];
    for (const s of this.#series.values()) {
      let acc = 0;
      this.buckets.forEach((bound, i) => {
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
  async get(): Promise<MetricData> {
    const data = await this.getForPromString();
    data.values = data.values.map(({ sharedLabels, ...v }) => ({ ...v, labels: { ...v.labels, ...sharedLabels } }));
    return data;
  }

  /** shown by a registry's exposition from now on */
  registerWith(registry: Registry): void {
    registry.registerMetric(this as never);
  }

  reset(): void {
    this.#series.clear();
  }
}

/** bounds growing by `factor` from `start` (client_golang's ExponentialBuckets) */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  // rounded: a bound is a label value (le="0.00064", not le="0.0006400000000000001")
  return Array.from({ length: count }, (_, i) => Number((start * factor ** i).toPrecision(12)));
}
