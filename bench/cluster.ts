// Outpost on a PostgreSQL server, in one run against the compiled binary:
//  1. dashboard reads with 1, 2 and 3 nodes (separate processes of
//     dist/outpost) on one PostgreSQL database, a fixed total concurrency
//     (CONNECTIONS, default 50) spread round-robin over the nodes (connection
//     i goes to node i mod n);
//  2. the PostgreSQL backend against the embedded PGlite for the same
//     single-node workload: the same reads, and writes (creating dashboards
//     through POST /api/dashboards/db, WRITE_CONNECTIONS, default 10), as
//     ratios PostgreSQL / PGlite.
// Failover time is not measured here.
//
// The read mix, as a browser session (its cookie, made by POST /login) sends
// it, over DASHBOARDS (default 3000) dashboards in 30 folders and 5 data
// sources made before measuring: 40% GET /api/dashboards/uid/<random>, 10%
// GET /api/search?query=<a prefix matching ~100>, 10% GET
// /api/search?folderUIDs=<a folder> (its ~100 dashboards), 20% GET
// /api/datasources, 20% GET /api/user. Each figure is SECONDS_PER_RUN
// (default 20) seconds of load after 3 seconds of warm-up on the same nodes;
// the two backends' figures are taken in the order PostgreSQL, PGlite,
// PGlite, PostgreSQL, half of it each, so that a machine getting busier or
// quieter meanwhile weighs on both alike.
//
// Everything shares this machine's cores: the nodes, PostgreSQL (its own
// throwaway cluster, test/helpers/postgres.ts: fsync off) and the load
// generator (autocannon, in this process). On a 2-core machine more nodes
// cannot add CPU, so req/s stays flat or falls as nodes are added: that is
// what is measured and printed. What one request costs does not depend on
// that: the CPU time (Linux /proc, user + system) of the node processes, of
// PostgreSQL's processes and of the load generator, per request, is printed
// and recorded beside each figure.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type autocannon from "autocannon";
import { startPostgres, type PostgresServer } from "../test/helpers/postgres.ts";
import { percentile, report, rng, startBinary, stopBinary, type Started } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error(`${binary} is missing: run npm run build first`);
const seconds = Number(process.env.SECONDS_PER_RUN ?? 20);
const warmSeconds = Math.min(3, seconds);
const connections = Number(process.env.CONNECTIONS ?? 50);
const writeConnections = Number(process.env.WRITE_CONNECTIONS ?? 10);
const dashboardCount = Number(process.env.DASHBOARDS ?? 3000);
const FOLDERS = 30;
const DATASOURCES = 5;
const SECRET_KEY = "bench-cluster-secret-key-shared-by-every-node";
const settings = { dashboards: dashboardCount, folders: FOLDERS, seconds };

// --- CPU time from /proc (Linux); NaN elsewhere ---------------------------------------------

/** utime, stime, cutime, cstime of a process in ms (clock ticks of 10 ms) */
function times(pid: number): [number, number, number, number] {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ");
  return [Number(f[11]) * 10, Number(f[12]) * 10, Number(f[13]) * 10, Number(f[14]) * 10];
}
/** CPU ms a process has used so far, all its threads */
function cpuMs(pid: number | undefined): number {
  try {
    const [u, s] = times(pid!);
    return u + s;
  } catch {
    return NaN;
  }
}
/**
 * CPU ms of a PostgreSQL server: the postmaster, its children alive now
 * (backends, checkpointer, wal writer...), and those that ended (their time
 * is added to the postmaster's cutime and cstime when it reaps them)
 */
function postgresCpuMs(postmaster: number): number {
  try {
    const [u, s, cu, cs] = times(postmaster);
    let total = u + s + cu + cs;
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, "utf8").replace(/^.*\) /s, "").split(" ");
        if (Number(stat[1]) === postmaster) total += (Number(stat[11]) + Number(stat[12])) * 10;
      } catch {
        // ended meanwhile
      }
    }
    return total;
  } catch {
    return NaN;
  }
}
const selfCpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

// --- nodes ------------------------------------------------------------------------------------

interface OutpostNode {
  name: string;
  server: Started;
  base: string;
  dir: string;
}
const base = mkdtempSync(join(tmpdir(), "outpost-bench-cluster-"));
const running: OutpostNode[] = [];

async function startNode(name: string, databaseUrl?: string): Promise<OutpostNode> {
  const dir = join(base, name);
  const server = await startBinary(binary, [
    "serve", ...(databaseUrl ? ["--database-url", databaseUrl] : []), "--data-dir", dir,
    "--http-port", "0", "--logs-port", "0", "--metrics-port", "0", "--secret-key", SECRET_KEY, "--log-level", "warn",
  ]);
  const node = { name, server, base: server.urls.dashboard!, dir };
  running.push(node);
  return node;
}
async function stopNode(node: OutpostNode): Promise<void> {
  await stopBinary(node.server.child);
  running.splice(running.indexOf(node), 1);
}

// --- the dataset --------------------------------------------------------------------------------

const adminAuth = { Authorization: `Basic ${btoa("admin:admin")}` };
const json = { "Content-Type": "application/json" };

async function call(node: OutpostNode, method: string, path: string, body: unknown, expect: number): Promise<Response> {
  const res = await fetch(node.base + path, { method, headers: { ...adminAuth, ...json }, body: JSON.stringify(body) });
  if (res.status !== expect) throw new Error(`${node.name}: ${method} ${path}: ${res.status} ${await res.text()}`);
  return res;
}

const dashboardSpec = (i: number) => ({
  title: `Dashboard ${i}`, tags: [`team-${i % 7}`, `env-${i % 3}`],
  panels: Array.from({ length: 8 }, (_, p) => ({ id: p, type: "timeseries", title: `Panel ${p}`, gridPos: { x: (p % 2) * 12, y: Math.floor(p / 2) * 8, w: 12, h: 8 } })),
});

/** folders, dashboards (4 requests in flight: one node writes a bucket one at a time) and data sources */
async function seed(node: OutpostNode): Promise<number> {
  const t0 = performance.now();
  for (let f = 0; f < FOLDERS; f++) {
    await call(node, "POST", "/apis/folder.svc.app/v1/namespaces/default/folders", { metadata: { name: `folder-${f}` }, spec: { title: `Folder ${f}` } }, 201);
  }
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < dashboardCount; i = next++) {
      await call(node, "POST", "/apis/dashboard.svc.app/v1/namespaces/default/dashboards", {
        metadata: { name: `dash-${i}`, annotations: { "svc.app/folder": `folder-${i % FOLDERS}` } }, spec: dashboardSpec(i),
      }, 201);
    }
  };
  await Promise.all(Array.from({ length: 4 }, worker));
  for (let d = 0; d < DATASOURCES; d++) {
    await call(node, "POST", "/api/datasources", { name: `ds-${d}`, type: d % 2 ? "loki" : "prometheus", access: "proxy", url: `http://127.0.0.1:${9000 + d}` }, 200);
  }
  return performance.now() - t0;
}

/** a browser session of the admin: its cookie */
async function session(node: OutpostNode): Promise<string> {
  const res = await call(node, "POST", "/login", { user: "admin", password: "admin" }, 200);
  const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0]!;
  if (!cookie.includes("=")) throw new Error(`${node.name}: no session cookie from POST /login`);
  return cookie;
}

// --- load -------------------------------------------------------------------------------------

type Pick = () => { method: "GET" | "POST"; path: string; body?: string };

function readMix(seedValue: number): Pick {
  const r = rng(seedValue);
  const n = (k: number) => Math.floor(r() * k);
  return () => {
    const x = r();
    if (x < 0.4) return { method: "GET", path: `/api/dashboards/uid/dash-${n(dashboardCount)}` };
    // "dashboard 1" to "dashboard 29" match about a hundred each at the default 3000
    if (x < 0.5) return { method: "GET", path: `/api/search?query=${encodeURIComponent(`dashboard ${1 + n(Math.max(1, Math.floor(dashboardCount / 100) - 1))}`)}` };
    if (x < 0.6) return { method: "GET", path: `/api/search?folderUIDs=folder-${n(FOLDERS)}` };
    if (x < 0.8) return { method: "GET", path: "/api/datasources" };
    return { method: "GET", path: "/api/user" };
  };
}

let written = 0;
function writeMix(prefix: string): Pick {
  return () => {
    const i = written++;
    const dashboard = { ...dashboardSpec(i), uid: `${prefix}-${i}`, title: `Written ${prefix} ${i}` };
    return { method: "POST", path: "/api/dashboards/db", body: JSON.stringify({ dashboard, folderUid: `folder-${i % FOLDERS}`, message: "bench" }) };
  };
}

/** what one stretch of load measured */
interface Sample {
  latencies: number[];
  bad: number;
  seconds: number;
  /** CPU ms used meanwhile: the nodes together, PostgreSQL's processes (NaN for PGlite), the load generator */
  nodeMs: number;
  postgresMs: number;
  loadMs: number;
}

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
  /** non-2xx answers and transport errors */
  bad: number;
  /** CPU µs per request: the nodes together, PostgreSQL's processes, the load generator */
  nodeCpuUs: number;
  postgresCpuUs: number;
  loadCpuUs: number;
}

/** connection i of `total` goes to node i mod n; every response's latency is kept, so percentiles are over all nodes */
async function load(nodes: OutpostNode[], cookie: string, pick: Pick, total: number, secs: number): Promise<{ latencies: number[]; bad: number }> {
  const { default: autocannon } = await import("autocannon");
  const latencies: number[] = [];
  let bad = 0;
  await Promise.all(nodes.map((node, k) => {
    const share = Math.floor(total / nodes.length) + (k < total % nodes.length ? 1 : 0);
    return new Promise<void>((resolve, reject) => {
      const instance = autocannon(
        {
          url: node.base, connections: share, duration: secs, headers: { Cookie: cookie },
          requests: [{ setupRequest: (req) => ({ ...req, ...(pick() as autocannon.Request), headers: { ...req.headers, ...json } }) }],
        },
        (err: Error | null, result: { errors: number; timeouts: number }) => {
          if (err) return reject(err);
          bad += result.errors + result.timeouts;
          resolve();
        },
      );
      instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
        latencies.push(ms);
        if (status < 200 || status > 299) bad++;
      });
    });
  }));
  return { latencies, bad };
}

/** warm-up: the JIT, each node's buckets and caches, the session looked up once on each */
async function warm(nodes: OutpostNode[], cookie: string, pick: Pick, total: number): Promise<void> {
  await load(nodes, cookie, pick, total, warmSeconds);
}

async function sample(nodes: OutpostNode[], cookie: string, pick: Pick, total: number, secs: number, postmaster?: number): Promise<Sample> {
  const node0 = nodes.map((n) => cpuMs(n.server.child.pid));
  const pg0 = postmaster ? postgresCpuMs(postmaster) : NaN;
  const self0 = selfCpuMs();
  const t0 = performance.now();
  const l = await load(nodes, cookie, pick, total, secs);
  return {
    latencies: l.latencies, bad: l.bad, seconds: (performance.now() - t0) / 1000,
    nodeMs: nodes.reduce((sum, n, i) => sum + cpuMs(n.server.child.pid) - node0[i]!, 0),
    postgresMs: postmaster ? postgresCpuMs(postmaster) - pg0 : NaN,
    loadMs: selfCpuMs() - self0,
  };
}

/** several stretches of the same configuration as one */
function combine(samples: Sample[]): Measured {
  const latencies = samples.flatMap((x) => x.latencies);
  const requests = latencies.length;
  const sum = (f: (x: Sample) => number) => samples.reduce((acc, x) => acc + f(x), 0);
  const per = (ms: number) => (requests ? (ms * 1000) / requests : NaN);
  return {
    rps: requests / sum((x) => x.seconds), p50: percentile(latencies, 50), p99: percentile(latencies, 99), requests,
    bad: sum((x) => x.bad), nodeCpuUs: per(sum((x) => x.nodeMs)), postgresCpuUs: per(sum((x) => x.postgresMs)), loadCpuUs: per(sum((x) => x.loadMs)),
  };
}

interface Side {
  nodes: OutpostNode[];
  cookie: string;
  postmaster?: number;
}
/**
 * two single-node configurations compared: each warmed, then measured in the
 * order A B B A, half the time each stretch, so a machine getting busier or
 * quieter during the run weighs on both alike
 */
async function abba(a: Side, b: Side, pick: () => Pick, total: number): Promise<[Measured, Measured]> {
  const half = seconds / 2;
  await warm(a.nodes, a.cookie, pick(), total);
  await warm(b.nodes, b.cookie, pick(), total);
  const run = (s: Side) => sample(s.nodes, s.cookie, pick(), total, half, s.postmaster);
  const a1 = await run(a);
  const b1 = await run(b);
  const b2 = await run(b);
  const a2 = await run(a);
  return [combine([a1, a2]), combine([b1, b2])];
}

const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");
function show(label: string, m: Measured, extra = ""): void {
  console.log(
    `${label.padEnd(44)} ${fmt(m.rps).padStart(6)} req/s  p50 ${fmt(m.p50, 1)} ms  p99 ${fmt(m.p99, 1)} ms  non-2xx ${m.bad}  ` +
      `CPU/request: nodes ${fmt(m.nodeCpuUs)} µs, PostgreSQL ${fmt(m.postgresCpuUs, 1)} µs, load generator ${fmt(m.loadCpuUs)} µs${extra}`,
  );
}
function record(label: string, m: Measured, nodes: number, conns: number): void {
  const extras = { p50Ms: m.p50, p99Ms: m.p99, bad: m.bad, requests: m.requests, nodes, ...settings, connections: conns, loadGeneratorCpuUsPerRequest: m.loadCpuUs };
  report.figure(label, m.rps, "req/s", null, extras);
  report.figure(`${label}: p99 latency`, m.p99, "ms", null, { p50Ms: m.p50 });
  report.figure(`${label}: node CPU per request`, m.nodeCpuUs, "us");
  if (Number.isFinite(m.postgresCpuUs)) report.figure(`${label}: PostgreSQL CPU per request`, m.postgresCpuUs, "us");
}
const pct = (a: number, b: number) => (a / b) * 100;

// --- the run ----------------------------------------------------------------------------------

const loadAtStart = loadavg()[0]!;
let pg: PostgresServer | undefined;
try {
  pg = await startPostgres();
  const databaseUrl = await pg.createDatabase("outpost_bench");
  const dataDir = (await pg.query("show data_directory")).rows[0].data_directory as string;
  const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0]);

  // one node on PostgreSQL and one on PGlite, made and filled alike (in parallel)
  const [pgNode, liteNode] = await Promise.all([startNode("pg-1", databaseUrl), startNode("pglite")]);
  const [pgSeedMs, liteSeedMs] = await Promise.all([seed(pgNode), seed(liteNode)]);
  console.log(`created ${FOLDERS} folders, ${dashboardCount} dashboards and ${DATASOURCES} data sources on each: PostgreSQL ${fmt(pgSeedMs / 1000, 1)} s, PGlite ${fmt(liteSeedMs / 1000, 1)} s (both at once)`);
  report.figure(`create ${FOLDERS} folders and ${dashboardCount} dashboards (PostgreSQL, 4 in flight)`, pgSeedMs, "ms");
  report.figure(`create ${FOLDERS} folders and ${dashboardCount} dashboards (PGlite, 4 in flight)`, liteSeedMs, "ms");
  const pgCookie = await session(pgNode);
  const liteCookie = await session(liteNode);

  // reads: one node on each backend
  const pgSide: Side = { nodes: [pgNode], cookie: pgCookie, postmaster };
  const liteSide: Side = { nodes: [liteNode], cookie: liteCookie };
  let mixSeed = 1;
  const [pg1, lite] = await abba(pgSide, liteSide, () => readMix(mixSeed++), connections);
  show("reads, 1 node, PostgreSQL", pg1);
  show("reads, 1 node, PGlite", lite);

  // more nodes on the same database, the same total concurrency
  const pgNodes = [pgNode];
  const byNodes = new Map<number, Measured>([[1, pg1]]);
  for (let n = 2; n <= 3; n++) {
    pgNodes.push(await startNode(`pg-${n}`, databaseUrl));
    await warm(pgNodes, pgCookie, readMix(mixSeed++), connections);
    const m = combine([await sample(pgNodes, pgCookie, readMix(mixSeed++), connections, seconds, postmaster)]);
    byNodes.set(n, m);
    show(`reads, ${n} nodes, PostgreSQL`, m, `  (${fmt(pct(m.rps, pg1.rps))}% of 1 node)`);
  }

  // writes: back to one node on PostgreSQL, against PGlite
  for (const extra of pgNodes.slice(1)) await stopNode(extra);
  let writer = 0;
  const [pgWrites, liteWrites] = await abba(pgSide, liteSide, () => writeMix(`w${writer++}`), writeConnections);
  show("writes (create dashboards), 1 node, PostgreSQL", pgWrites);
  show("writes (create dashboards), 1 node, PGlite", liteWrites);

  for (const [n, m] of byNodes) record(`reads, ${n} node${n > 1 ? "s" : ""}, PostgreSQL`, m, n, connections);
  record("reads, 1 node, PGlite", lite, 1, connections);
  record("writes (create dashboards), 1 node, PostgreSQL", pgWrites, 1, writeConnections);
  record("writes (create dashboards), 1 node, PGlite", liteWrites, 1, writeConnections);
  for (const n of [2, 3]) report.figure(`reads, ${n} nodes / 1 node (req/s)`, pct(byNodes.get(n)!.rps, pg1.rps), "%", null, { better: "higher" });

  const ratios: Array<[string, number, "higher" | "lower"]> = [
    ["reads: PostgreSQL / PGlite (req/s)", pct(pg1.rps, lite.rps), "higher"],
    ["reads: PostgreSQL / PGlite (p99 latency)", pct(pg1.p99, lite.p99), "lower"],
    ["reads: PostgreSQL / PGlite (node CPU per request)", pct(pg1.nodeCpuUs, lite.nodeCpuUs), "lower"],
    ["reads: PostgreSQL / PGlite (node + PostgreSQL CPU per request)", pct(pg1.nodeCpuUs + pg1.postgresCpuUs, lite.nodeCpuUs), "lower"],
    ["writes: PostgreSQL / PGlite (req/s)", pct(pgWrites.rps, liteWrites.rps), "higher"],
    ["writes: PostgreSQL / PGlite (p99 latency)", pct(pgWrites.p99, liteWrites.p99), "lower"],
    ["writes: PostgreSQL / PGlite (node CPU per request)", pct(pgWrites.nodeCpuUs, liteWrites.nodeCpuUs), "lower"],
    ["writes: PostgreSQL / PGlite (node + PostgreSQL CPU per request)", pct(pgWrites.nodeCpuUs + pgWrites.postgresCpuUs, liteWrites.nodeCpuUs), "lower"],
  ];
  console.log("\nPostgreSQL against PGlite, one node:");
  for (const [label, value, better] of ratios) {
    console.log(`  ${label.padEnd(62)} ${fmt(value / 100, 2)}x`);
    report.figure(label, value, "%", null, { better });
  }
} finally {
  for (const node of [...running]) await stopNode(node).catch(() => undefined);
  await pg?.stop();
  rmSync(base, { recursive: true, force: true });
}
const [load1] = loadavg();
console.log(`load average: ${loadAtStart.toFixed(2)} at the start, ${load1!.toFixed(2)} at the end, on ${availableParallelism()} cores; ${connections} connections for reads, ${writeConnections} for writes, ${seconds} s each`);
report.save();
