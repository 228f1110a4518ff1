// Failover of the stores between nodes on one PostgreSQL database (issue
// 26), and what the shared write-ahead log costs a push.
//
// Three nodes of the compiled binary on a PostgreSQL cluster of the
// benchmark's own (test/helpers/postgres.ts). Log lines (100 a push) and
// samples (500 series a push) are pushed without pause through the standbys
// for SECONDS_PER_RUN seconds; then the active node is killed with SIGKILL.
// Measured, RUNS times (the killed node comes back as a standby each time):
// from the kill until a standby holds the store lock, and until the first
// push through a standby is acknowledged again; the write-ahead rows the new
// node replayed; and whether every acknowledged line is there afterwards.
// Then the push rates themselves: log lines a second through one node on
// PostgreSQL (the shared log, group commit) against the same node on PGlite
// (the log's files), one after the other on this machine.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { startPostgres } from "../test/helpers/postgres.ts";
import { median, report, startBinary, stopBinary, type Started } from "./lib.ts";
import { writeBody } from "../test/metrics/helpers.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
const seconds = Number(process.env.SECONDS_PER_RUN ?? 10);
const runs = Number(process.env.RUNS ?? 3);
const dir = mkdtempSync(join(tmpdir(), "outpost-bench-failover-"));
const server = await startPostgres();
const url = await server.createDatabase();
const db = new pg.Pool({ connectionString: url, max: 2 });
const SECRET = "the-failover-benchmark-secret-key";

const node = (name: string, database = url) =>
  startBinary(binary, [
    "serve", "--database-url", database, "--data-dir", join(dir, name), "--node-name", name, "--secret-key", SECRET, "--log-level", "warn",
    "--http-port", "0", "--logs-port", "0", "--metrics-port", "0",
    "--logs-ingestion-rate-mb", "1000", "--logs-ingestion-burst-size-mb", "1000",
    "--metrics-ingestion-rate", "100000000", "--metrics-ingestion-burst-size", "100000000",
  ]);

async function activeNode(): Promise<string | undefined> {
  const r = await db.query("select name from cluster_nodes where store_active and heartbeat_at > now() - interval '10 seconds'");
  return r.rows[0]?.name as string | undefined;
}

let seq = 0;
const t0 = Date.now();
/** one push of 100 lines; true when acknowledged */
async function pushLines(base: string, lines: string[]): Promise<boolean> {
  const values = [];
  for (let i = 0; i < 100; i++) {
    const n = seq++;
    values.push([String(BigInt(t0) * 1_000_000n + BigInt(n)), `line ${n} level=info msg="a line of a benchmark" user=${n % 97}`]);
  }
  const r = await fetch(`${base}/loki/api/v1/push`, {
    method: "POST", headers: { "Content-Type": "application/json", "X-Scope-OrgID": "bench" },
    body: JSON.stringify({ streams: [{ stream: { app: "failover", pod: `p${seq % 8}` }, values }] }),
  }).catch(() => undefined);
  await r?.arrayBuffer().catch(() => undefined);
  if (r?.status !== 204) return false;
  for (const [, l] of values) lines.push(l!);
  return true;
}

async function pushSamples(base: string): Promise<boolean> {
  const t = Date.now();
  const body = writeBody(Array.from({ length: 500 }, (_, i) => ({ labels: { __name__: "bench_gauge", series: String(i) }, samples: [[t, seq++] as [number, number]] })));
  const r = await fetch(`${base}/api/v1/push`, {
    method: "POST", headers: { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Scope-OrgID": "bench" }, body,
  }).catch(() => undefined);
  await r?.arrayBuffer().catch(() => undefined);
  return r?.status === 200;
}

const nodes = new Map<string, Started>();
const ADMIN = { Authorization: `Basic ${btoa("admin:admin")}` };
/**
 * ms from a write's answer on one node until another node answers with it: a user made on `from`,
 * then looked up on `to` (from its access model, read again after the change), polled every millisecond
 */
async function propagationMs(from: Started, to: Started, i: number): Promise<number> {
  const login = `prop-${i}`;
  const made = await fetch(`${from.urls.dashboard}/api/admin/users`, {
    method: "POST", headers: { ...ADMIN, "Content-Type": "application/json" }, body: JSON.stringify({ login, password: "a-long-password-1", email: `${login}@example.com` }),
  });
  if (made.status !== 200) throw new Error(`creating a user: ${made.status}`);
  const t = performance.now();
  // asked as the admin (signing in as the new user before it is there would count as failed sign-ins)
  for (;;) {
    const r = await fetch(`${to.urls.dashboard}/api/users/lookup?loginOrEmail=${login}`, { headers: ADMIN });
    const body = await r.text();
    if (r.status === 200) return performance.now() - t;
    if (performance.now() - t > 30_000) throw new Error(`a write did not reach another node in 30 s (${r.status} ${body})`);
    await new Promise((res) => setTimeout(res, 1));
  }
}

try {
  for (const name of ["a", "b", "c"]) nodes.set(name, await node(name));
  const propagation: number[] = [];
  for (let i = 0; i < 20; i++) propagation.push(await propagationMs(nodes.get("abc"[i % 3]!)!, nodes.get("abc"[(i + 1) % 3]!)!, i));
  report.figure("a write on one node until another answers with it (median of 20)", Math.round(median(propagation) * 10) / 10, "ms", "< 1000", { min: Math.round(Math.min(...propagation)), max: Math.round(Math.max(...propagation)) });
  const tookLock: number[] = [];
  const firstAck: number[] = [];
  const replayed: number[] = [];
  const acked: string[] = [];
  for (let run = 0; run < runs; run++) {
    const active = (await activeNode())!;
    const standbys = [...nodes.keys()].filter((n) => n !== active).map((n) => nodes.get(n)!.urls);
    const until = Date.now() + seconds * 1000;
    await Promise.all([0, 1, 2, 3].map(async (k) => {
      while (Date.now() < until) {
        const via = standbys[k % 2]!;
        if (k < 2) await pushLines(via.logs!, acked);
        else await pushSamples(via.metrics!);
      }
    }));
    const rows = Number((await db.query("select count(*) as n from store_wal")).rows[0].n);
    const killedAt = performance.now();
    nodes.get(active)!.child.kill("SIGKILL");
    let locked: number | undefined;
    let ack: number | undefined;
    while (ack === undefined) {
      if (locked === undefined && ((await activeNode()) ?? active) !== active) locked = performance.now() - killedAt;
      if (await pushLines(standbys[0]!.logs!, acked)) ack = performance.now() - killedAt;
      else await new Promise((r) => setTimeout(r, 20));
      if (performance.now() - killedAt > 120_000) throw new Error("no standby took over in 2 minutes");
    }
    locked ??= performance.now() - killedAt;
    tookLock.push(locked);
    firstAck.push(ack);
    replayed.push(rows);
    console.log(`run ${run + 1}: ${active} killed with ${rows} write-ahead rows; a standby held the lock after ${Math.round(locked)} ms, a push was acknowledged after ${Math.round(ack)} ms`);
    // the killed node comes back as a standby
    nodes.set(active, await node(active));
  }
  // every acknowledged line is there
  const now = (await activeNode())!;
  const base = nodes.get(now)!.urls.logs!;
  const q = await fetch(`${base}/loki/api/v1/query?query=${encodeURIComponent('sum(count_over_time({app="failover"}[1h]))')}&time=${(Date.now() + 1000) / 1000}`, { headers: { "X-Scope-OrgID": "bench" } });
  const counted = Number(((await q.json()) as { data: { result: Array<{ value: [number, string] }> } }).data.result[0]?.value[1] ?? 0);
  console.log(`acknowledged lines: ${acked.length}; queryable after ${runs} failovers: ${counted}`);
  report.figure("failover: kill -9 until a standby runs the stores (lock taken, log replayed; median)", Math.round(median(tookLock)), "ms", "< 10000");
  report.figure("failover: kill -9 until a push is acknowledged again (median)", Math.round(median(firstAck)), "ms", "< 10000");
  report.figure("write-ahead rows in the database at the kill (median)", Math.round(median(replayed)), "rows");
  report.figure("acknowledged log lines missing after the failovers", Math.max(0, acked.length - counted), "lines", "= 0");

  // the push rate of one node: the shared log on PostgreSQL, then the log's files on PGlite
  for (const n of nodes.values()) await stopBinary(n.child, "SIGKILL");
  nodes.clear();
  const rates: Record<string, number> = {};
  for (const backend of ["postgres", "pglite"] as const) {
    const alone = await (backend === "postgres"
      ? (async () => node("rate-pg", await server.createDatabase()))()
      : startBinary(binary, ["serve", "--data-dir", join(dir, "rate-lite"), "--log-level", "warn", "--http-port", "0", "--logs-port", "0", "--metrics-port", "0",
        "--logs-ingestion-rate-mb", "1000", "--logs-ingestion-burst-size-mb", "1000"]));
    nodes.set(backend, alone);
    const sink: string[] = [];
    const until = Date.now() + seconds * 1000;
    const start = performance.now();
    let lines = 0;
    await Promise.all(Array.from({ length: 8 }, async () => {
      while (Date.now() < until) if (await pushLines(alone.urls.logs!, sink)) lines += 100;
    }));
    rates[backend] = lines / ((performance.now() - start) / 1000);
    await stopBinary(alone.child);
    nodes.delete(backend);
  }
  report.figure("log lines a second, one node on PostgreSQL (8 clients, 100 lines a push)", Math.round(rates.postgres!), "lines/s");
  report.figure("log lines a second, one node on PGlite (the same)", Math.round(rates.pglite!), "lines/s");
  report.figure("PostgreSQL / PGlite log push rate", Number((rates.postgres! / rates.pglite!).toFixed(2)), "ratio");
  report.save();
} finally {
  for (const n of nodes.values()) await stopBinary(n.child, "SIGKILL").catch(() => undefined);
  await db.end();
  await server.stop();
  rmSync(dir, { recursive: true, force: true });
}
