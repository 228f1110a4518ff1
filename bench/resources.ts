// Reads of the resource API against the health check, in one run against
// the compiled binary: 1,000 dashboards in 50 folders (DASHBOARDS=n for
// more), 50 connections. Targets (issue 4): GET of one dashboard >= 40% of
// GET /api/health's requests per second, GET /api/search?query=... >= 20%;
// the same reads by a Viewer, who reaches dashboards through the folders'
// managed permissions (issue 21), not a role-wide grant.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { report, startBinary, stopBinary, throughput, type Throughput } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");
const seconds = Number(process.env.SECONDS_PER_RUN ?? 10);
const connections = 50;
const auth = { Authorization: `Basic ${btoa("admin:admin")}` };
const viewerAuth = { Authorization: `Basic ${btoa("bench-viewer:bench-viewer-pw")}` };
const dashboardCount = Number(process.env.DASHBOARDS ?? 1000);

const measure = (url: string, headers: Record<string, string> = {}) => throughput(url, { seconds, connections, headers });

const dir = mkdtempSync(join(tmpdir(), "outpost-bench-res-"));
const server = await startBinary(binary, ["serve", "--data-dir", join(dir, "data"), "--http-port", "0", "--no-logs", "--no-metrics", "--log-level", "warn"], 1);
try {
  const base = server.urls.dashboard!;
  const ns = `${base}/apis`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(ns + path, { method: "POST", headers: { ...auth, "Content-Type": "application/json" }, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  };
  const started = performance.now();
  for (let f = 0; f < 50; f++) {
    await post("/folder.svc.app/v1/namespaces/default/folders", { metadata: { name: `folder-${f}` }, spec: { title: `Folder ${f}` } });
  }
  for (let i = 0; i < dashboardCount; i++) {
    await post("/dashboard.svc.app/v1/namespaces/default/dashboards", {
      metadata: { name: `dash-${i}`, annotations: { "svc.app/folder": `folder-${i % 50}` } },
      spec: { title: `Dashboard ${i}`, tags: [`team-${i % 7}`], panels: Array.from({ length: 8 }, (_, p) => ({ id: p, type: "timeseries", title: `Panel ${p}` })) },
    });
  }
  console.log(`created 50 folders and ${dashboardCount} dashboards in ${Math.round(performance.now() - started)} ms`);
  report.figure(`create 50 folders and ${dashboardCount} dashboards, one at a time`, performance.now() - started, "ms");
  const viewer = await fetch(`${base}/api/admin/users`, {
    method: "POST", headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ name: "bench viewer", login: "bench-viewer", email: "bench-viewer@example.com", password: "bench-viewer-pw" }),
  });
  if (viewer.status !== 200) throw new Error(`viewer: ${viewer.status} ${await viewer.text()}`);
  await measure(`${base}/api/health`); // warm-up
  const health = await measure(`${base}/api/health`);
  const one = await measure(`${ns}/dashboard.svc.app/v1/namespaces/default/dashboards/dash-500`, auth);
  const search = await measure(`${base}/api/search?query=dashboard%2099`, auth);
  const viewerOne = await measure(`${ns}/dashboard.svc.app/v1/namespaces/default/dashboards/dash-500`, viewerAuth);
  const viewerSearch = await measure(`${base}/api/search?query=dashboard%2099`, viewerAuth);
  const line = (name: string, m: Throughput) =>
    `${name.padEnd(40)} ${String(Math.round(m.rps)).padStart(6)} req/s  p99 ${m.p99} ms  non-2xx ${m.bad}  ${((m.rps / health.rps) * 100).toFixed(0)}% of health`;
  console.log(line("GET /api/health", health));
  console.log(line("GET /apis/.../dashboards/dash-500", one) + " (target >= 40%)");
  console.log(line("GET /api/search?query=dashboard 99", search) + " (target >= 20%)");
  console.log(line("  the same by a Viewer: one dashboard", viewerOne));
  console.log(line("  the same by a Viewer: search", viewerSearch));
  report.figure("GET /api/health", health.rps, "req/s", null, { p99Ms: health.p99, bad: health.bad });
  report.figure("GET /apis/.../dashboards/dash-500", one.rps, "req/s", null, { p99Ms: one.p99, bad: one.bad });
  report.figure("GET /api/search?query=dashboard 99", search.rps, "req/s", null, { p99Ms: search.p99, bad: search.bad });
  report.figure("Viewer: GET /apis/.../dashboards/dash-500", viewerOne.rps, "req/s", null, { p99Ms: viewerOne.p99, bad: viewerOne.bad });
  report.figure("Viewer: GET /api/search?query=dashboard 99", viewerSearch.rps, "req/s", null, { p99Ms: viewerSearch.p99, bad: viewerSearch.bad });
  report.figure("GET /apis/.../dashboards/dash-500 / health", (one.rps / health.rps) * 100, "%", ">= 40");
  report.figure("GET /api/search?query=dashboard 99 / health", (search.rps / health.rps) * 100, "%", ">= 20");
} finally {
  await stopBinary(server.child);
  rmSync(dir, { recursive: true, force: true });
}
report.save();
