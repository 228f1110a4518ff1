// Metrics store remote write against the compiled binary (issue 7): 10,000
// series, batches of 500 series per request, 4 parallel senders (worker
// threads, so encoding does not share the main thread), for 20 s; prints
// samples/s accepted and memory per active series. Target: >= 200,000
// samples/s on the 2-core machine.
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { encodeWriteRequest } from "../src/apps/metrics/core/remote-write.ts";
import { median, pushUntil, report, startMetricsStore } from "./lib.ts";

const SECONDS = Number(process.env.SECONDS_PER_RUN ?? 20);
const SENDERS = 4;
const SERIES = 10_000;
const PER_REQUEST = 500;

interface SenderData { url: string; first: number; count: number; deadline: number }

if (!isMainThread) {
  const { url, first, count, deadline } = workerData as SenderData;
  const groups: Array<Array<{ name: string; value: string }[]>> = [];
  for (let g = first; g < first + count; g += PER_REQUEST) {
    groups.push(Array.from({ length: Math.min(PER_REQUEST, first + count - g) }, (_, i) => {
      const s = g + i;
      return [
        { name: "__name__", value: `bench_metric_${s % 50}` },
        { name: "instance", value: `host-${s % 200}.example.com:9100` },
        { name: "job", value: "node" },
        { name: "series", value: String(s) },
      ];
    }));
  }
  const headers = { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Scope-OrgID": "bench" };
  const makers = groups.map((labels) => (t: number, value: number) => encodeWriteRequest({ timeseries: labels.map((l) => ({ labels: l, samples: [{ value, timestampMs: t }] })) }));
  const { accepted, failed: failures } = await pushUntil(deadline, makers, async (body) => {
    const res = await fetch(url, { method: "POST", headers, body });
    await res.arrayBuffer();
    return res.status === 200;
  });
  const samples = accepted * PER_REQUEST;
  parentPort!.postMessage({ samples, failures });
} else {
  const store = await startMetricsStore("outpost-bench-metrics-");
  const server = store.server;
  const rss = async () => {
    const text = await (await fetch(`${server.urls.metrics}/metrics`)).text();
    return Number(/^process_resident_memory_bytes (\S+)$/m.exec(text)?.[1] ?? NaN);
  };
  try {
    const before = await rss();
    const url = `${server.urls.metrics}/api/v1/push`;
    const deadline = Date.now() + SECONDS * 1000;
    const started = performance.now();
    const per = SERIES / SENDERS;
    const results = await Promise.all(
      Array.from({ length: SENDERS }, (_, i) =>
        new Promise<{ samples: number; failures: number }>((resolve, reject) => {
          const w = new Worker(new URL(import.meta.url), { workerData: { url, first: i * per, count: per, deadline } satisfies SenderData });
          w.once("message", (m) => { resolve(m as { samples: number; failures: number }); void w.terminate(); });
          w.once("error", reject);
        }),
      ),
    );
    const elapsed = (performance.now() - started) / 1000;
    const samples = results.reduce((a, r) => a + r.samples, 0);
    const failures = results.reduce((a, r) => a + r.failures, 0);
    const after = await rss();
    const active = Number(/^cortex_ingester_active_series\{user="bench"\} (\S+)$/m.exec(await (await fetch(`${server.urls.metrics}/metrics`)).text())?.[1] ?? 0);
    console.log(`pushed ${samples} samples in ${elapsed.toFixed(1)} s (${SENDERS} senders, ${PER_REQUEST} series a request), ${failures} failed pushes`);
    console.log(`ingest: ${Math.round(samples / elapsed)} samples/s (target >= 200,000)`);
    report.figure("ingest", samples / elapsed, "samples/s", ">= 200000", { failedPushes: failures });
    console.log(`active series ${active}; resident memory ${(before / 1e6).toFixed(0)} MB before, ${(after / 1e6).toFixed(0)} MB after: ${active ? Math.round((after - before) / active) : "?"} bytes per active series (head samples of the run included)`);
    if (active) report.figure("resident memory per active series (head samples of the run included)", (after - before) / active, "bytes", null, { activeSeries: active });

    const end = Date.now();
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const q = new URLSearchParams({ query: "sum by (job) (rate(bench_metric_7[1m]))", start: String((end - 5 * 60_000) / 1000), end: String(end / 1000), step: "15" });
      const t = performance.now();
      const res = await fetch(`${server.urls.metrics}/prometheus/api/v1/query_range?${q}`, { headers: { "X-Scope-OrgID": "bench" } });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`query failed: ${res.status}`);
      times.push(performance.now() - t);
    }
    console.log(`query sum by (job) (rate(x[1m])) over 200 series, 5 minutes at 15 s steps: median ${median(times).toFixed(1)} ms`);
    report.figure("query sum by (job) (rate(x[1m])) over 200 series, 5 min at 15 s (median)", median(times), "ms");
  } finally {
    await store.stop();
  }
  await headMemory();
  report.save();
}

/**
 * Memory a series costs in the head, measured in this process after a full
 * garbage collection (the binary's resident size above also holds garbage
 * not yet collected and the database's memory): 10,000 series with a full
 * open chunk of 119 samples each, as between two cuts.
 */
async function headMemory(): Promise<void> {
  const { TenantHead } = await import("../src/apps/metrics/core/head.ts");
  const gc = () => (globalThis as { Bun?: { gc(force: boolean): void } }).Bun?.gc(true);
  gc();
  const before = process.memoryUsage().heapUsed;
  const head = new TenantHead("bench");
  const now = Date.now();
  for (let s = 0; s < SERIES; s++) {
    const pairs = [
      { name: "__name__", value: `bench_metric_${s % 50}` },
      { name: "instance", value: `host-${s % 200}.example.com:9100` },
      { name: "job", value: "node" },
      { name: "series", value: String(s) },
    ];
    const series = head.addSeries(pairs);
    for (let i = 0; i < 119; i++) head.append(series, now + i * 15_000, s + i * 1.5, now);
    head.activate(series, now);
  }
  gc();
  const perSeries = (process.memoryUsage().heapUsed - before) / SERIES;
  console.log(`head memory per active series (index, labels, 119 open samples), after GC: ${Math.round(perSeries)} bytes`);
  report.figure("head memory per active series (119 open samples, after GC)", perSeries, "bytes");
}
