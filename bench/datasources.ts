// Queries through data sources against the same queries sent straight to the
// bundled stores, in one run against the compiled binary: what the proxy and
// POST /api/ds/query cost on top (authentication, permission check, the data
// source's sealed credentials added, hop-by-hop filtering, redaction, frames).
// Also the cost of sealing and opening one secret (Web Crypto envelope).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createKeyring } from "../src/lib/envelope.ts";
import { encodeWriteRequest } from "../src/apps/metrics/core/remote-write.ts";
import { report, startBinary, stopBinary, throughput, type Throughput } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");
const seconds = Number(process.env.SECONDS_PER_RUN ?? 10);
const connections = 20;
const auth = { Authorization: `Basic ${btoa("admin:admin")}` };
const tenant = { "X-Scope-OrgID": "bench" };

// sealing and opening, in this process
{
  const k = await createKeyring("bench secret key");
  const n = 2000;
  let t = performance.now();
  const sealed = [];
  for (let i = 0; i < n; i++) sealed.push(await k.seal(`password-${i}`, `datasource:${i}/basicAuthPassword`));
  const sealUs = ((performance.now() - t) / n) * 1000;
  t = performance.now();
  for (let i = 0; i < n; i++) await k.open(sealed[i]!, `datasource:${i}/basicAuthPassword`);
  const openUs = ((performance.now() - t) / n) * 1000;
  console.log(`envelope: seal ${sealUs.toFixed(0)} us, open ${openUs.toFixed(0)} us per secret (${n} each)`);
  report.figure("envelope: seal one secret", sealUs, "us");
  report.figure("envelope: open one secret", openUs, "us");
}

const dir = mkdtempSync(join(tmpdir(), "outpost-bench-ds-"));
const server = await startBinary(binary, ["serve", "--data-dir", join(dir, "data"), "--http-port", "0", "--logs-port", "0", "--metrics-port", "0", "--log-level", "warn"]);
try {
  const { dashboard, logs, metrics } = server.urls as Record<string, string>;
  const now = Date.now();
  // 20 series of 60 samples over the last 10 minutes; 10 streams of 100 lines
  const write = encodeWriteRequest({
    timeseries: Array.from({ length: 20 }, (_, s) => ({
      labels: [{ name: "__name__", value: "bench_requests_total" }, { name: "instance", value: `i-${s}` }],
      samples: Array.from({ length: 60 }, (_, i) => ({ timestampMs: now - (60 - i) * 10_000, value: i * (s + 1) })),
    })),
  });
  const pushed = await fetch(`${metrics}/api/v1/push`, { method: "POST", headers: { ...tenant, "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" }, body: write });
  if (pushed.status !== 200) throw new Error(`metrics push: ${pushed.status} ${await pushed.text()}`);
  const streams = Array.from({ length: 10 }, (_, s) => ({
    stream: { job: "bench", instance: `i-${s}` },
    values: Array.from({ length: 100 }, (_, i) => [String(BigInt(now - (100 - i) * 1000) * 1_000_000n), `line ${i} of stream ${s} level=info`]),
  }));
  const logPush = await fetch(`${logs}/svc/api/v1/push`, { method: "POST", headers: { ...tenant, "Content-Type": "application/json" }, body: JSON.stringify({ streams }) });
  if (logPush.status !== 204) throw new Error(`logs push: ${logPush.status} ${await logPush.text()}`);

  const create = async (body: unknown) => {
    const res = await fetch(`${dashboard}/api/datasources`, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (res.status !== 200) throw new Error(`create data source: ${res.status} ${await res.text()}`);
    return ((await res.json()) as { datasource: { uid: string } }).datasource.uid;
  };
  // sealed credentials on both, so every request opens them
  const secure = { basicAuth: true, basicAuthUser: "bench", secureJsonData: { basicAuthPassword: "bench-password" }, jsonData: { tenantId: "bench" } };
  const prom = await create({ name: "metrics", type: "prometheus", url: `${metrics}/prometheus`, ...secure });
  const loki = await create({ name: "logs", type: "loki", url: logs, ...secure });

  const promQuery = `query=${encodeURIComponent("sum(rate(bench_requests_total[1m]))")}&time=${now / 1000}`;
  const logQuery = `query=${encodeURIComponent('{job="bench"} |= "level=info"')}&limit=100&start=${(now - 300_000) * 1e6}&end=${now * 1e6}`;
  const dsBody = JSON.stringify({
    from: String(now - 600_000), to: String(now),
    queries: [{ refId: "A", datasource: { uid: prom }, expr: "sum(rate(bench_requests_total[1m]))", intervalMs: 15_000, maxDataPoints: 100 }],
  });
  const cases: Array<[string, string, Parameters<typeof throughput>[1]]> = [
    ["metrics store direct: instant query", `${metrics}/prometheus/api/v1/query?${promQuery}`, { seconds, connections, headers: tenant }],
    ["the same through the data source proxy", `${dashboard}/api/datasources/proxy/uid/${prom}/api/v1/query?${promQuery}`, { seconds, connections, headers: auth }],
    ["metrics store direct: range query (10 min, 15 s)", `${metrics}/prometheus/api/v1/query_range?query=${encodeURIComponent("sum(rate(bench_requests_total[1m]))")}&start=${(now - 600_000) / 1000}&end=${now / 1000}&step=15`, { seconds, connections, headers: tenant }],
    ["the same as POST /api/ds/query (frames)", `${dashboard}/api/ds/query`, { seconds, connections, headers: { ...auth, "Content-Type": "application/json" }, method: "POST", body: dsBody }],
    ["log store direct: query_range, 100 lines", `${logs}/svc/api/v1/query_range?${logQuery}`, { seconds, connections, headers: tenant }],
    ["the same through the data source proxy", `${dashboard}/api/datasources/proxy/uid/${loki}/svc/api/v1/query_range?${logQuery}`, { seconds, connections, headers: auth }],
  ];
  await throughput(`${dashboard}/api/health`, { seconds: 2, connections }); // warm-up
  let direct: Throughput | undefined;
  let directName = "";
  for (const [name, url, options] of cases) {
    const m = await throughput(url, options);
    const ratio = name.includes("direct") ? "" : `  ${((m.rps / direct!.rps) * 100).toFixed(0)}% of direct`;
    if (name.includes("direct")) {
      direct = m;
      directName = name;
      report.figure(name, m.rps, "req/s", null, { p99Ms: m.p99, bad: m.bad });
    } else {
      report.figure(`${directName}, ${name}`, m.rps, "req/s", null, { p99Ms: m.p99, bad: m.bad });
      report.figure(`${directName}, ${name} / direct`, (m.rps / direct!.rps) * 100, "%");
    }
    console.log(`${name.padEnd(50)} ${String(Math.round(m.rps)).padStart(6)} req/s  p99 ${m.p99} ms  non-2xx ${m.bad}${ratio}`);
  }
} finally {
  await stopBinary(server.child);
  rmSync(dir, { recursive: true, force: true });
}
report.save();
