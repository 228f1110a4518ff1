// The real OpenTelemetry JS SDK (@opentelemetry/sdk-metrics) with its OTLP/HTTP
// metric exporters, JSON (exporter-metrics-otlp-http) and protobuf
// (exporter-metrics-otlp-proto), pointed at the metrics store's
// /otlp/v1/metrics (issue 24): a counter, an up-down counter, a histogram,
// a synchronous and an observable gauge come back through PromQL with the
// Prometheus translator's names (`_total`, unit suffixes, `_bucket{le}`),
// job and instance from the resource, target_info, and otel_scope_* labels
// (promoted here: metrics.otlp.promote_scope_metadata).
import { OTLPMetricExporter as JsonExporter } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as ProtoExporter } from "@opentelemetry/exporter-metrics-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, PeriodicExportingMetricReader, type PushMetricExporter } from "@opentelemetry/sdk-metrics";
import { describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { useServer } from "../helpers/server.ts";
import { metricsClient } from "../metrics/helpers.ts";

interface Series {
  metric: Record<string, string>;
  value: [number, string];
}

describe.each([
  ["JSON", (url: string, tenant: string): PushMetricExporter => new JsonExporter({ url, headers: { "X-Scope-OrgID": tenant } })],
  ["protobuf", (url: string, tenant: string): PushMetricExporter => new ProtoExporter({ url, headers: { "X-Scope-OrgID": tenant } })],
])("the OpenTelemetry SDK's OTLP/HTTP %s metric exporter", (variant, exporterFor) => {
  const t = useServer({ "metrics.otlp.promote_scope_metadata": true });
  const tenant = `otel-${variant.toLowerCase()}`;

  it("sends metrics that come back through PromQL with Prometheus names, labels and values", async () => {
    const exporter = exporterFor(`${t.server.urls.metrics}/otlp/v1/metrics`, tenant);
    // a long interval: the test exports with forceFlush, which fails when the export fails
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    const provider = new MeterProvider({
      resource: resourceFromAttributes({ "service.name": `checkout-${variant}`, "service.namespace": "shop", "service.instance.id": "pod-1", "host.name": "node-7" }),
      readers: [reader],
    });
    const meter = provider.getMeter("payments", "2.1.0");
    const requests = meter.createCounter("http.server.requests", { unit: "{request}", description: "requests served" });
    requests.add(3, { "http.route": "/pay" });
    requests.add(2, { "http.route": "/pay" });
    requests.add(1, { "http.route": "/cart" });
    const active = meter.createUpDownCounter("http.server.active_requests", { unit: "{request}" });
    active.add(4);
    active.add(-1);
    const duration = meter.createHistogram("http.server.request.duration", { unit: "s", advice: { explicitBucketBoundaries: [0.1, 0.5, 1] } });
    for (const v of [0.05, 0.2, 0.3, 0.7, 2]) duration.record(v, { "http.route": "/pay" });
    const queue = meter.createGauge("queue.size", { unit: "{item}" });
    queue.record(17, { queue: "orders" });
    const memory = meter.createObservableGauge("process.memory.usage", { unit: "By" });
    memory.addCallback((result) => result.observe(123456));
    await provider.forceFlush();
    await provider.shutdown();

    const m = metricsClient(t.server.urls.metrics!);
    const values = new Map<string, Series[]>();
    const read = async (query: string) => {
      const q = await m.query(tenant, query);
      expect(q.status).toBe(200);
      return q.body.data.result as Series[];
    };
    const job = { job: `shop/checkout-${variant}`, instance: "pod-1" };
    const scope = { otel_scope_name: "payments", otel_scope_version: "2.1.0" };
    await eventually(
      () => read('{__name__=~"http_server_.*|queue_size|process_memory_usage_bytes|target_info"}'),
      (series) => {
        values.clear();
        for (const s of series) values.set(s.metric.__name__!, [...(values.get(s.metric.__name__!) ?? []), s]);
        expect(values.get("http_server_requests_total")).toHaveLength(2);
        expect(values.get("process_memory_usage_bytes")).toHaveLength(1);
      },
    );
    const byRoute = Object.fromEntries(values.get("http_server_requests_total")!.map((s) => [s.metric.http_route, s]));
    expect(byRoute["/pay"]!.metric).toEqual({ __name__: "http_server_requests_total", ...job, ...scope, http_route: "/pay" });
    expect(byRoute["/pay"]!.value[1]).toBe("5");
    expect(byRoute["/cart"]!.value[1]).toBe("1");
    // an up-down counter is a non-monotonic sum: a gauge, no _total
    expect(values.get("http_server_active_requests")!.map((s) => s.value[1])).toEqual(["3"]);
    expect(values.get("queue_size")!.map((s) => [s.metric.queue, s.value[1]])).toEqual([["orders", "17"]]);
    expect(values.get("process_memory_usage_bytes")![0]!.value[1]).toBe("123456");
    const buckets = Object.fromEntries(values.get("http_server_request_duration_seconds_bucket")!.map((s) => [s.metric.le, s.value[1]]));
    expect(buckets).toEqual({ "0.1": "1", "0.5": "3", "1": "4", "+Inf": "5" });
    expect(values.get("http_server_request_duration_seconds_count")![0]!.value[1]).toBe("5");
    expect(Number(values.get("http_server_request_duration_seconds_sum")![0]!.value[1])).toBeCloseTo(3.25, 10);
    const info = values.get("target_info")!;
    expect(info).toHaveLength(1);
    expect(info[0]!.metric).toMatchObject({ __name__: "target_info", ...job, host_name: "node-7" });
    expect(info[0]!.metric).not.toHaveProperty("service_name");
    expect(info[0]!.metric).not.toHaveProperty("otel_scope_name");

    // the quantile of the histogram, through PromQL
    const p50 = await read("histogram_quantile(0.5, sum by (le) (http_server_request_duration_seconds_bucket))");
    expect(Number(p50[0]!.value[1])).toBeGreaterThan(0.1);
    expect(Number(p50[0]!.value[1])).toBeLessThanOrEqual(0.5);

    // the tenant's OTLP statistics
    const stats = await m.get("/api/v1/user_stats", tenant);
    expect(stats.body.otlpRequests).toBeGreaterThanOrEqual(1);
    expect(stats.body.otlpDataPoints).toBeGreaterThanOrEqual(7);
  });
});
