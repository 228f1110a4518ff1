// A backup of a running server with a database of a few hundred MB (issue
// 25): how long the database is held (its copy: queries and dashboard calls
// wait that long at most), the backup's time and size, the slowest write and
// query of a light load meanwhile against the same load before it, and the
// restore's time. The database is filled with metrics chunk rows written
// straight into it (DATA_MB of them, default 300, random bytes: a worst case
// for the archive's compression; remote write would take an hour), and ~40 MB
// of log lines pushed; then the server is started again. BINARY=path runs
// another build (a script running the source under Bun will do).
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase } from "../src/db/open.ts";
import { silentLogger } from "../src/lib/logger.ts";
import { directorySize } from "../src/lib/dir-size.ts";
import { median, percentile, report, startBinary, stopBinary, type Started } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
const dataMb = Number(process.env.DATA_MB ?? 300);
const dir = mkdtempSync(join(tmpdir(), "outpost-bench-backup-"));
const dataDir = join(dir, "data");
const auth = { Authorization: `Basic ${Buffer.from("admin:admin").toString("base64")}` };
const args = ["serve", "--data-dir", dataDir, "--http-port", "0", "--logs-port", "0", "--metrics-port", "0", "--log-level", "warn", "--logs-ingestion-rate-mb", "1000", "--logs-ingestion-burst-size-mb", "1000"];

try {
  // log lines through the API (segment files and their rows), then chunk rows straight into the database
  let server = await startBinary(binary, args);
  const line = "l".repeat(1000);
  const t0 = Date.now() - 3_600_000;
  for (let i = 0; i < 800; i++) {
    const values = Array.from({ length: 50 }, (_, k) => [`${BigInt(t0 + i) * 1_000_000n + BigInt(k)}`, `${i} ${k} ${Math.random()} ${line}`]);
    const res = await fetch(`${server.urls.logs}/svc/api/v1/push`, { method: "POST", headers: { "X-Scope-OrgID": "bench", "Content-Type": "application/json" }, body: JSON.stringify({ streams: [{ stream: { job: `j${i % 8}` }, values }] }) });
    if (res.status !== 204) throw new Error(`push: ${res.status}`);
  }
  await stopBinary(server.child);
  const db = await openDatabase({ dataDir, logger: silentLogger });
  // ~1.4 MB of rows a batch, 640 random bytes each (as compressible as XOR chunks are: hardly)
  for (let b = 0, mb = 0; mb < dataMb; b++) {
    const rows = Array.from({ length: 2000 }, () => `\\x${randomBytes(640).toString("hex")}`);
    await db.pg.query(
      `insert into metrics_chunks (tenant, series_id, min_t, max_t, samples, data)
       select 'bench', g, $1::bigint, $1::bigint + 100, 120, d from unnest($2::text[]::bytea[]) with ordinality as r(d, g)`,
      [b * 1000, rows],
    );
    if (b % 20 === 19) mb = (await directorySize(join(dataDir, "pgdata"))) / 1048576;
  }
  await db.close();
  const pgMb = (await directorySize(join(dataDir, "pgdata"))) / 1048576;
  server = await startBinary(binary, args);

  // a light load: a push to each store, a dashboard write and a query, in turn
  const load = startLoad(server);
  await new Promise((r) => setTimeout(r, 5000));
  const quiet = load.take();
  const started = performance.now();
  const res = await fetch(`${server.urls.dashboard}/api/admin/backups`, { method: "POST", headers: auth });
  const { name } = (await res.json()) as { name: string };
  let info: { state: string; size: number; databaseHeldMs: number; files: number } | undefined;
  while (!info) {
    const list = (await (await fetch(`${server.urls.dashboard}/api/admin/backups`, { headers: auth })).json()) as Array<{ name: string; state: string; size: number; databaseHeldMs: number; files: number }>;
    info = list.find((b) => b.name === name && b.state !== "running");
    if (!info) await new Promise((r) => setTimeout(r, 50));
  }
  const backupMs = performance.now() - started;
  const during = load.take();
  await load.stop();
  if (info.state !== "complete") throw new Error(`backup ${info.state}`);
  const dataDirMb = (await directorySize(dataDir)) / 1048576;

  const restoreStarted = performance.now();
  const restored = spawnSync(binary, ["restore", "--from", join(dataDir, "backups", name), "--data-dir", join(dir, "restored")], { encoding: "utf8" });
  if (restored.status !== 0) throw new Error(`restore: ${restored.stderr}`);
  const restoreMs = performance.now() - restoreStarted;
  const again = await startBinary(binary, [...args.slice(0, 2), join(dir, "restored"), ...args.slice(3)]);
  await stopBinary(again.child);
  await stopBinary(server.child);

  console.log(`database ${pgMb.toFixed(0)} MB, data dir ${dataDirMb.toFixed(0)} MB (with the backup), ${info.files} files`);
  report.figure("database held for its copy", info.databaseHeldMs, "ms");
  report.figure("backup, start to complete", backupMs, "ms");
  report.figure("archive size", info.size / 1048576, "MiB");
  report.figure("database size", pgMb, "MB");
  report.figure("slowest request during the backup", Math.max(...during), "ms");
  report.figure("p99 request during the backup", percentile(during, 99), "ms");
  report.figure("median request during the backup", median(during), "ms");
  report.figure("slowest request before it (same load)", Math.max(...quiet), "ms");
  report.figure("p99 request before it", percentile(quiet, 99), "ms");
  report.figure("restore", restoreMs, "ms");
  report.figure("restored server's start", again.readyMs, "ms");
  report.save();
} finally {
  rmSync(dir, { recursive: true, force: true });
}

/** requests in turn (log push, remote write of one sample, annotation, dashboard search); their times */
function startLoad(server: Started) {
  let times: number[] = [];
  let stop = false;
  let i = 0;
  const calls = [
    () => fetch(`${server.urls.logs}/svc/api/v1/push`, { method: "POST", headers: { "X-Scope-OrgID": "bench", "Content-Type": "application/json" }, body: JSON.stringify({ streams: [{ stream: { job: "load" }, values: [[`${BigInt(Date.now()) * 1_000_000n + BigInt(i)}`, `load ${i}`]] }] }) }),
    () => fetch(`${server.urls.dashboard}/api/annotations`, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify({ time: Date.now(), text: `load ${i}` }) }),
    () => fetch(`${server.urls.dashboard}/api/search`, { headers: auth }),
    () => fetch(`${server.urls.logs}/svc/api/v1/query_range?query=${encodeURIComponent('{job="load"}')}&limit=10`, { headers: { "X-Scope-OrgID": "bench" } }),
  ];
  const running = (async () => {
    while (!stop) {
      const t = performance.now();
      const res = await calls[i++ % calls.length]!();
      await res.arrayBuffer();
      if (res.status >= 300) throw new Error(`load: ${res.status}`);
      times.push(performance.now() - t);
    }
  })();
  return {
    take() {
      const out = times;
      times = [];
      return out;
    },
    stop: async () => {
      stop = true;
      await running;
    },
  };
}
