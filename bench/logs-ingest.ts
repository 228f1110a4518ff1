// Log store ingest against the compiled binary (issue 6): JSON batches of
// 1,000 lines of ~200 bytes over 100 streams, 8 pushes in flight, for 20 s;
// then a query over the last 5 minutes of one stream. Target: >= 30 MB/s of
// log lines, and the query under 100 ms. Then (issue 17) the soak's log
// query — {job="soak"} |= "status=200", limit 100, the last 5 minutes — over
// ~400k lines of 4 streams (LINES), backward and forward: ms per query
// (target < 1 ms: it reads only the newest or oldest entries it needs).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, report, startBinary, stopBinary } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");
const SECONDS = Number(process.env.SECONDS_PER_RUN ?? 20);
const CONCURRENCY = 8;
const LINES = 1000;
const STREAMS = 100;

const dir = mkdtempSync(join(tmpdir(), "outpost-bench-logs-"));
// generous limits: this measures the store, not the rate limiter
const server = await startBinary(binary, [
  "serve", "--data-dir", join(dir, "data"), "--http-port", "0", "--logs-port", "0", "--no-metrics", "--log-level", "warn",
  "--logs-ingestion-rate-mb", "100000", "--logs-ingestion-burst-size-mb", "100000",
], 2);
try {
  const url = `${server.urls.logs}/svc/api/v1/push`;
  const filler = "x".repeat(150);
  let seq = 0;
  const batch = () => {
    const now = BigInt(Date.now()) * 1_000_000n;
    const perStream = LINES / STREAMS;
    const streams = Array.from({ length: STREAMS }, (_, s) => ({
      stream: { app: `app-${s % 10}`, instance: `i-${s}` },
      values: Array.from({ length: perStream }, (_, i) => {
        const n = seq++;
        return [String(now + BigInt(i)), `level=info seq=${n} stream=${s} msg="request handled" ${filler}`];
      }),
    }));
    const body = JSON.stringify({ streams });
    const bytes = streams.reduce((a, s) => a + s.values.reduce((b, v) => b + v[1]!.length, 0), 0);
    return { body, bytes };
  };
  let lines = 0;
  let bytes = 0;
  let failures = 0;
  const deadline = performance.now() + SECONDS * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const b = batch();
        const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", "X-Scope-OrgID": "bench" }, body: b.body });
        await res.arrayBuffer();
        if (res.status === 204) {
          lines += LINES;
          bytes += b.bytes;
        } else failures++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  console.log(`pushed ${lines} lines (${(bytes / 1e6).toFixed(0)} MB of lines) in ${elapsed.toFixed(1)} s, ${failures} failed pushes`);
  console.log(`ingest: ${Math.round(lines / elapsed)} lines/s, ${(bytes / 1e6 / elapsed).toFixed(1)} MB/s (target >= 30 MB/s)`);
  report.figure("ingest, lines", lines / elapsed, "lines/s", null, { failedPushes: failures });
  report.figure("ingest, bytes of lines", bytes / 1e6 / elapsed, "MB/s", ">= 30", { failedPushes: failures });

  const end = Date.now();
  const params = new URLSearchParams({ query: '{app="app-3", instance="i-13"}', start: String((end - 5 * 60_000) / 1000), end: String(end / 1000), limit: "100" });
  const times: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t = performance.now();
    const res = await fetch(`${server.urls.logs}/svc/api/v1/query_range?${params}`, { headers: { "X-Scope-OrgID": "bench" } });
    const body = (await res.json()) as { data: { result: Array<{ values: unknown[] }> } };
    if (res.status !== 200 || body.data.result[0]?.values.length !== 100) throw new Error(`query failed: ${res.status}`);
    times.push(performance.now() - t);
  }
  console.log(`query, last 5 minutes of one stream (limit 100): median ${median(times).toFixed(1)} ms, max ${Math.max(...times).toFixed(1)} ms (target < 100 ms)`);
  report.figure("query, last 5 minutes of one stream, limit 100 (median)", median(times), "ms", "< 100", { maxMs: Math.max(...times) });
  const metric = new URLSearchParams({ query: 'sum(count_over_time({app="app-3"}[1m]))', start: String((end - 5 * 60_000) / 1000), end: String(end / 1000), step: "15" });
  const t = performance.now();
  const res = await fetch(`${server.urls.logs}/svc/api/v1/query_range?${metric}`, { headers: { "X-Scope-OrgID": "bench" } });
  await res.arrayBuffer();
  console.log(`metric query over 5 minutes of 10 streams: ${(performance.now() - t).toFixed(0)} ms (status ${res.status})`);
  report.figure("metric query over 5 minutes of 10 streams", performance.now() - t, "ms", null, { status: res.status });

  // ~400k lines of the soak's shape (4 streams, batches of 1,000), spread over the last two minutes
  const soakLines = Number(process.env.LINES ?? 400_000);
  const first = Date.now() - 120_000;
  for (let pushed = 0; pushed < soakLines; pushed += 1000) {
    const at = BigInt(first + Math.floor((pushed / soakLines) * 120_000)) * 1_000_000n;
    const values = Array.from({ length: 1000 }, (_, i) => [String(at + BigInt(i)), `level=info seq=${pushed + i} msg="request handled" path=/api/user status=200`]);
    const body = JSON.stringify({ streams: [{ stream: { job: "soak", instance: `i-${(pushed / 1000) % 4}` }, values }] });
    const pushRes = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json", "X-Scope-OrgID": "soak" }, body });
    if (pushRes.status !== 204) throw new Error(`soak push failed: ${pushRes.status} ${await pushRes.text()}`);
  }
  for (const direction of ["backward", "forward"]) {
    const qs = new URLSearchParams({ query: '{job="soak"} |= "status=200"', limit: "100", since: "5m", direction });
    const perQuery: number[] = [];
    for (let i = 0; i < 220; i++) {
      const t0 = performance.now();
      const r = await fetch(`${server.urls.logs}/svc/api/v1/query_range?${qs}`, { headers: { "X-Scope-OrgID": "soak" } });
      const body = (await r.json()) as { data: { result: Array<{ values: unknown[] }> } };
      if (r.status !== 200 || body.data.result.reduce((n, s) => n + s.values.length, 0) !== 100) throw new Error(`soak query failed: ${r.status}`);
      if (i >= 20) perQuery.push(performance.now() - t0);
    }
    console.log(`query_range limit 100 ${direction} over ~${Math.round(soakLines / 1000)}k lines: median ${median(perQuery).toFixed(2)} ms per query (target < 1 ms)`);
    report.figure(`query_range limit 100 ${direction} over ~${Math.round(soakLines / 1000)}k lines: ms per query`, median(perQuery), "ms", "< 1", { maxMs: Math.max(...perQuery) });
  }
} finally {
  await stopBinary(server.child);
  rmSync(dir, { recursive: true, force: true });
}
report.save();
