// OTLP metrics ingest against the compiled binary (issue 24), beside remote
// write of the same series in the same run: 10,000 series (the metric-ingest
// benchmark's: 50 metric names × instance × series), 500 a request, 4 senders
// (worker threads encoding each request afresh with a new timestamp), for
// SECONDS_PER_RUN (20) seconds per shape, each shape into a tenant of its own:
// remote write (snappy protobuf); OTLP protobuf of gauges (one data point, one
// sample); OTLP JSON of the same; OTLP protobuf of explicit-bucket histograms
// (10 bounds: 13 samples a data point). Figures: samples/s for remote write,
// data points/s and samples/s for each OTLP shape, and OTLP protobuf data
// points/s over remote write samples/s.
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { encodeWriteRequest } from "../src/apps/metrics/core/remote-write.ts";
import { otlpType } from "../src/lib/otlp/proto.ts";
import { pushUntil, report, startMetricsStore } from "./lib.ts";

const SECONDS = Number(process.env.SECONDS_PER_RUN ?? 20);
const SENDERS = 4;
const SERIES = 10_000;
const PER_REQUEST = 500;
const BOUNDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

type Shape = "remote write" | "OTLP protobuf, gauges" | "OTLP JSON, gauges" | "OTLP protobuf, histograms";
interface SenderData { url: string; shape: Shape; tenant: string; first: number; count: number; deadline: number }
interface SenderResult { requests: number; failures: number; firstFailure?: string }

/** samples a data point of the shape makes */
const samplesPerPoint = (shape: Shape) => (shape === "OTLP protobuf, histograms" ? BOUNDS.length + 3 : 1);

if (!isMainThread) {
  const { url, shape, tenant, first, count, deadline } = workerData as SenderData;
  const series = (s: number) => ({ metric: `bench_metric_${s % 50}`, instance: `host-${s % 200}.example.com:9100`, series: String(s) });
  const Request = otlpType("ExportMetricsServiceRequest");
  // one request body maker per group of series; OTLP messages are built once and only their times and values change
  const makers: Array<(t: number, v: number) => Uint8Array | string> = [];
  for (let g = first; g < first + count; g += PER_REQUEST) {
    const group = Array.from({ length: Math.min(PER_REQUEST, first + count - g) }, (_, i) => series(g + i));
    if (shape === "remote write") {
      const labels = group.map((s) => [
        { name: "__name__", value: s.metric }, { name: "instance", value: s.instance }, { name: "job", value: "node" }, { name: "series", value: s.series },
      ]);
      makers.push((t, v) => encodeWriteRequest({ timeseries: labels.map((l) => ({ labels: l, samples: [{ value: v, timestampMs: t }] })) }));
      continue;
    }
    const histograms = shape === "OTLP protobuf, histograms";
    const byMetric = new Map<string, Array<Record<string, unknown>>>();
    for (const s of group) {
      const attributes = [{ key: "instance", value: { stringValue: s.instance } }, { key: "series", value: { stringValue: s.series } }];
      const point: Record<string, unknown> = histograms
        ? { attributes, timeUnixNano: "0", count: "0", sum: 0, explicitBounds: BOUNDS, bucketCounts: BOUNDS.map(() => "0").concat("0") }
        : { attributes, timeUnixNano: "0", asDouble: 0 };
      byMetric.set(s.metric, [...(byMetric.get(s.metric) ?? []), point]);
    }
    const points = [...byMetric.values()].flat();
    const message = {
      resourceMetrics: [{
        resource: { attributes: [{ key: "service.name", value: { stringValue: "node" } }] },
        scopeMetrics: [{
          scope: { name: "bench" },
          metrics: [...byMetric].map(([name, dataPoints]) =>
            histograms ? { name, histogram: { aggregationTemporality: 2, dataPoints } } : { name, gauge: { dataPoints } }),
        }],
      }],
    };
    makers.push((t, v) => {
      const ns = `${t}000000`;
      for (const p of points) {
        p.timeUnixNano = ns;
        if (histograms) {
          p.count = String(v * 11);
          p.sum = v;
          p.bucketCounts = (p.bucketCounts as string[]).map(() => String(v));
        } else p.asDouble = v;
      }
      return shape === "OTLP JSON, gauges" ? JSON.stringify(message) : Request.encode(message).finish();
    });
  }
  const contentType = shape === "OTLP JSON, gauges" ? "application/json" : "application/x-protobuf";
  const headers: Record<string, string> = { "Content-Type": contentType, "X-Scope-OrgID": tenant, ...(shape === "remote write" ? { "Content-Encoding": "snappy" } : {}) };
  let firstFailure: string | undefined;
  const { accepted, failed } = await pushUntil(deadline, makers, async (body) => {
    const res = await fetch(url, { method: "POST", headers, body: body as BodyInit });
    const answer = await res.arrayBuffer();
    // an OTLP partial success would be a 200 with a body: counted as a failure
    if (res.status === 200 && answer.byteLength <= 2) return true;
    firstFailure ??= `${res.status} ${new TextDecoder().decode(answer).slice(0, 300)}`;
    return false;
  });
  const result: SenderResult = { requests: accepted, failures: failed, ...(firstFailure ? { firstFailure } : {}) };
  parentPort!.postMessage(result);
} else {
  const store = await startMetricsStore("outpost-bench-otlp-metrics-");
  const server = store.server;
  const run = async (shape: Shape, path: string): Promise<{ points: number; samples: number }> => {
    const deadline = Date.now() + SECONDS * 1000;
    const started = performance.now();
    const per = SERIES / SENDERS;
    const tenant = `bench-${shape.replace(/[^a-zA-Z]+/g, "-").toLowerCase()}`;
    const results = await Promise.all(
      Array.from({ length: SENDERS }, (_, i) =>
        new Promise<SenderResult>((resolve, reject) => {
          const w = new Worker(new URL(import.meta.url), { workerData: { url: `${server.urls.metrics}${path}`, shape, tenant, first: i * per, count: per, deadline } satisfies SenderData });
          w.once("message", (m) => { resolve(m as SenderResult); void w.terminate(); });
          w.once("error", reject);
        }),
      ),
    );
    const elapsed = (performance.now() - started) / 1000;
    const points = (results.reduce((a, r) => a + r.requests, 0) * PER_REQUEST) / elapsed;
    const failures = results.reduce((a, r) => a + r.failures, 0);
    const firstFailure = results.find((r) => r.firstFailure)?.firstFailure;
    const samples = points * samplesPerPoint(shape);
    const unit = shape === "remote write" ? "samples" : "data points";
    console.log(`${shape}: ${Math.round(points)} ${unit}/s (${Math.round(samples)} samples/s), ${failures} failed requests${firstFailure ? `, the first: ${firstFailure}` : ""}`);
    report.figure(`${shape}: ${unit} per second`, points, `${unit}/s`, null, { failedRequests: failures, samplesPerSecond: samples });
    return { points, samples };
  };
  try {
    const rw = await run("remote write", "/api/v1/push");
    const pb = await run("OTLP protobuf, gauges", "/otlp/v1/metrics");
    const json = await run("OTLP JSON, gauges", "/otlp/v1/metrics");
    const hist = await run("OTLP protobuf, histograms", "/otlp/v1/metrics");
    console.log(`OTLP protobuf data points / remote write samples: ${(pb.points / rw.points).toFixed(2)}; JSON: ${(json.points / rw.points).toFixed(2)}; histogram samples / remote write samples: ${(hist.samples / rw.points).toFixed(2)}`);
    report.figure("OTLP protobuf gauge data points/s over remote write samples/s", pb.points / rw.points, "ratio", null);
    report.figure("OTLP JSON gauge data points/s over remote write samples/s", json.points / rw.points, "ratio", null);
    report.figure("OTLP protobuf histogram samples/s over remote write samples/s", hist.samples / rw.points, "ratio", null);
  } finally {
    await store.stop();
  }
  report.save();
}
