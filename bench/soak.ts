// Mixed soak against the compiled binary with default flags (issue 17): the
// seven everyday operations at once — basic-auth GET /api/user, GET of one
// dashboard, /api/search?query=..., a log push and a log query, a metric push
// (remote write) and a metric query — 50 connections in total (CONNECTIONS)
// for 120 s (SOAK_SECONDS; SOAK_OPS=a,b runs only the operations whose names contain a or b; SOAK_RATE=n
// offers each at most n requests a second), the server's resident memory sampled every
// second. Prints per-operation req/s, p50/p99 and errors (transport errors
// such as ECONNRESET by code), the total req/s and RSS start/peak/end.
// Target: >= 20x the 92 req/s total measured before issue 17, with flat memory.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeWriteRequest } from "../src/apps/metrics/core/remote-write.ts";
import { Connection } from "../test/helpers/connection.ts";
import { report, startBinary, stopBinary } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error(`${binary} is missing: run npm run build first`);
const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 50);
// SOAK_RATE=n: each operation offered n requests a second at most (open loop) instead of as many as
// its connections get answered; two builds offered the same load at once compare by CPU per request
const RATE = Number(process.env.SOAK_RATE ?? 0);
const basic = { Authorization: `Basic ${btoa("admin:admin")}` };
const tenant = { "X-Scope-OrgID": "soak" };

/** CPU seconds a process has used (user + system, all its threads), from /proc (Linux; ticks of 1/100 s) */
function cpuOf(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** resident memory of a process in bytes, from /proc (Linux) */
function rssOf(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return m ? Number(m[1]) * 1024 : NaN;
}

interface Operation {
  name: string;
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  /** a fresh body for every request (pushes carry new timestamps) */
  body?: () => string | Buffer;
  /** the status a success answers */
  ok: number;
}

const dir = mkdtempSync(join(tmpdir(), "outpost-bench-soak-"));
// default flags but the ports (0: free ones, so parallel runs do not collide) and the data directory
const server = await startBinary(binary, ["serve", "--data-dir", join(dir, "data"), "--http-port", "0", "--logs-port", "0", "--metrics-port", "0"], 3);
const pid = server.child.pid!;
const samples: number[] = [];
const sampler = setInterval(() => samples.push(rssOf(pid)), 1000);
try {
  const { dashboard, logs, metrics } = server.urls as { dashboard: string; logs: string; metrics: string };
  const apis = `${dashboard}/apis/dashboard.svc.app/v1/namespaces/default/dashboards`;
  for (let i = 0; i < 20; i++) {
    const res = await fetch(apis, {
      method: "POST", headers: { ...basic, "Content-Type": "application/json" },
      body: JSON.stringify({ metadata: { name: `soak-${i}` }, spec: { title: `Soak dashboard ${i}`, tags: [`team-${i % 3}`], panels: [{ id: 1, type: "timeseries", title: "Requests" }] } }),
    });
    if (res.status !== 201) throw new Error(`creating a dashboard: ${res.status} ${await res.text()}`);
  }
  // ordinary use: a service account with a token exists (the issue's 92 req/s were measured so)
  const sa = await fetch(`${dashboard}/api/serviceaccounts`, { method: "POST", headers: { ...basic, "Content-Type": "application/json" }, body: JSON.stringify({ name: "soak-bot", role: "Viewer" }) });
  if (sa.status !== 201) throw new Error(`creating a service account: ${sa.status} ${await sa.text()}`);
  const token = await fetch(`${dashboard}/api/serviceaccounts/${((await sa.json()) as { id: number }).id}/tokens`, { method: "POST", headers: { ...basic, "Content-Type": "application/json" }, body: JSON.stringify({ name: "soak" }) });
  if (token.status !== 200) throw new Error(`creating a token: ${token.status} ${await token.text()}`);

  let logSeq = 0;
  // A fixed set of series, as a site has: SENDERS senders of 10 series each, taken in turn, each
  // sender's timestamps rising. (autocannon resets a connection's context before every request of a
  // one-request sequence, so a sender per connection kept in the context was a new sender, ten new
  // series, on every push: series churn that grew without bound, not the ordinary load meant here.)
  // A sender comes round again only after SENDERS other pushes, far more than are ever in flight,
  // so its samples arrive in order.
  const SENDERS = 200;
  let nextSender = 0;
  const lastOfSender = new Array<number>(SENDERS).fill(0);
  const seriesOf = (sender: number) => Array.from({ length: 10 }, (_, s) => [
    { name: "__name__", value: "soak_requests_total" },
    { name: "instance", value: `host-${s}:9100` },
    { name: "job", value: "soak" },
    { name: "sender", value: String(sender) },
  ]);
  const allOperations: Operation[] = [
    { name: "GET /api/user (basic auth)", url: `${dashboard}/api/user`, headers: basic, ok: 200 },
    { name: "GET dashboard", url: `${apis}/soak-7`, headers: basic, ok: 200 },
    { name: "GET /api/search?query=", url: `${dashboard}/api/search?query=soak%20dashboard%201`, headers: basic, ok: 200 },
    {
      name: "log push (JSON)", url: `${logs}/svc/api/v1/push`, method: "POST", headers: { ...tenant, "Content-Type": "application/json" }, ok: 204,
      body: () => {
        const ns = BigInt(Date.now()) * 1_000_000n;
        const values = Array.from({ length: 10 }, (_, i) => [String(ns + BigInt(i)), `level=info seq=${logSeq++} msg="request handled" path=/api/user status=200`]);
        return JSON.stringify({ streams: [{ stream: { job: "soak", instance: `i-${logSeq % 4}` }, values }] });
      },
    },
    {
      name: "log query_range", url: `${logs}/svc/api/v1/query_range?${new URLSearchParams({ query: '{job="soak"} |= "status=200"', limit: "100", since: "5m" })}`,
      headers: tenant, ok: 200,
    },
    {
      name: "metric push (remote write)", url: `${metrics}/api/v1/push`, method: "POST", ok: 200,
      headers: { ...tenant, "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" },
      body: () => {
        const sender = nextSender++ % SENDERS;
        const t = Math.max(Date.now(), lastOfSender[sender]! + 1);
        lastOfSender[sender] = t;
        return Buffer.from(encodeWriteRequest({ timeseries: seriesOf(sender).map((labels) => ({ labels, samples: [{ value: t / 1000, timestampMs: t }] })) }));
      },
    },
    { name: "metric query", url: `${metrics}/prometheus/api/v1/query?${new URLSearchParams({ query: "sum by (job) (rate(soak_requests_total[1m]))" })}`, headers: tenant, ok: 200 },
  ];

  // SOAK_OPS=<comma-separated substrings of operation names> runs only those (to find which one is the brake)
  const only = process.env.SOAK_OPS?.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
  const operations = only ? allOperations.filter((op) => only.some((o) => op.name.toLowerCase().includes(o))) : allOperations;
  if (!operations.length) throw new Error(`SOAK_OPS=${process.env.SOAK_OPS} names no operation`);
  const { default: autocannon } = await import("autocannon");
  samples.length = 0;
  const rssStart = rssOf(pid);
  const cpuStart = cpuOf(pid);
  const started = performance.now();
  const runs = operations.map((op, i) => {
    const connections = Math.floor(CONNECTIONS / operations.length) + (i < CONNECTIONS % operations.length ? 1 : 0);
    const errorsByCode = new Map<string, number>();
    const wrong = new Map<number, number>();
    return new Promise<{ op: Operation; connections: number; result: import("autocannon").Result; errorsByCode: Map<string, number>; wrong: Map<number, number> }>((resolve, reject) => {
      const instance = autocannon({
        url: op.url, connections, duration: SECONDS, timeout: 30, ...(RATE > 0 ? { overallRate: RATE } : {}),
        requests: [{
          method: op.method ?? "GET", headers: op.headers ?? {},
          ...(op.body ? { setupRequest: (req: import("autocannon").Request) => ({ ...req, body: op.body!() }) } : {}),
        }],
      }, (err: unknown, result: import("autocannon").Result) => (err ? reject(err as Error) : resolve({ op, connections, result, errorsByCode, wrong })));
      instance.on("reqError", (err: NodeJS.ErrnoException) => {
        const code = err.code ?? err.message;
        errorsByCode.set(code, (errorsByCode.get(code) ?? 0) + 1);
      });
      instance.on("response", (_client: unknown, status: number) => {
        if (status !== op.ok) wrong.set(status, (wrong.get(status) ?? 0) + 1);
      });
    });
  });
  // beside the load: one connection per listener used every 15 s, as a scraper or shipper pool does
  // (before issue 17 every listener closed a connection idle for about 12 s)
  const probe = { requests: 0, failures: [] as string[] };
  const probes = ([[dashboard, "/api/health"], [logs, "/ready"], [metrics, "/ready"]] as const).map(async ([url, path]) => {
    let c = await Connection.open(url);
    const end = Date.now() + SECONDS * 1000;
    for (;;) {
      const res = await c.get(path).catch((err: Error) => ({ status: 0, body: err.message }));
      probe.requests++;
      if (res.status !== 200) {
        probe.failures.push(`${new URL(url).port}${path}: ${res.body}`);
        c.close();
        c = await Connection.open(url);
      }
      if (Date.now() + 15_000 > end) break;
      await new Promise((r) => setTimeout(r, 15_000));
    }
    c.close();
  });
  const results = await Promise.all(runs);
  await Promise.all(probes);
  const elapsed = (performance.now() - started) / 1000;
  const rssEnd = rssOf(pid);
  const cpu = cpuOf(pid) - cpuStart;

  const mb = (b: number) => `${(b / 1024 ** 2).toFixed(0)} MB`;
  console.log(`soak: ${operations.length} operations, ${CONNECTIONS} connections, ${elapsed.toFixed(0)} s, compiled binary ${binary}`);
  let total = 0;
  let failures = 0;
  for (const { op, connections, result, errorsByCode, wrong } of results) {
    total += result.requests.total;
    const bad = [...wrong].reduce((a, [, n]) => a + n, 0) + result.errors;
    failures += bad;
    const detail = [...[...wrong].map(([s, n]) => `${n}x${s}`), ...[...errorsByCode].map(([c, n]) => `${n}x${c}`)].join(" ");
    console.log(
      `${op.name.padEnd(30)} ${String(connections).padStart(3)} conn ${String(Math.round(result.requests.total / elapsed)).padStart(7)} req/s` +
      `  p50 ${String(result.latency.p50).padStart(5)} ms  p99 ${String(result.latency.p99).padStart(5)} ms  errors ${bad}${detail ? ` (${detail})` : ""}`,
    );
    report.figure(op.name, result.requests.total / elapsed, "req/s", null, { p50Ms: result.latency.p50, p99Ms: result.latency.p99, errors: bad, connections });
  }
  const peak = Math.max(rssStart, rssEnd, ...samples);
  const tail = samples.slice(Math.floor(samples.length / 2));
  const plateau = tail.length ? Math.min(...tail) : rssEnd;
  console.log(`idle keep-alive probes (a request every 15 s on one held connection per listener): ${probe.requests} requests, ${probe.failures.length} found the connection closed${probe.failures.length ? ` (${probe.failures.slice(0, 3).join("; ")})` : ""}`);
  console.log(`total: ${Math.round(total / elapsed)} req/s (before issue 17: 92 req/s; target >= 20x), ${failures} errors`);
  // what a request costs the server whatever share of the machine it got: comparable across runs on a busy machine
  console.log(`server CPU: ${cpu.toFixed(1)} s in ${elapsed.toFixed(0)} s (${Math.round((100 * cpu) / elapsed)}% of a core), ${((1000 * cpu) / total).toFixed(3)} ms per request`);
  report.figure("server CPU per request", (1000 * cpu) / total, "ms", null, { cpuSeconds: cpu, coreShare: cpu / elapsed });
  report.figure("idle keep-alive probes that found the connection closed", probe.failures.length, "count", "<= 0", { requests: probe.requests });
  report.figure("total", total / elapsed, "req/s", ">= 1840", { errors: failures });
  report.figure("RSS peak", peak / 1024 ** 2, "MB", null, { startMb: rssStart / 1024 ** 2, endMb: rssEnd / 1024 ** 2, secondHalfMinMb: plateau / 1024 ** 2 });
  console.log(`RSS: start ${mb(rssStart)}, peak ${mb(peak)}, end ${mb(rssEnd)}; second half of the run between ${mb(plateau)} and ${mb(Math.max(...tail, rssEnd))} (${samples.length} samples)`);
  // whether memory is flat: the trajectory, every tenth sample (a sample a second)
  console.log(`RSS every 10 s (MB): ${samples.filter((_, i) => i % 10 === 9).map((b) => Math.round(b / 1024 ** 2)).join(" ")}`);
  report.save();
} finally {
  clearInterval(sampler);
  await stopBinary(server.child);
  rmSync(dir, { recursive: true, force: true });
}
