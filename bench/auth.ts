// Authenticated reads against the unauthenticated GET /api/health, in one run
// against the compiled binary with default flags (request logging on, log and
// metrics stores running), after a service account and a token were created
// (issue 17: that used to drop basic auth to bcrypt on every request).
// Target: every authenticated read reaches at least 50% of the health check's
// requests per second.
//
// BINARY=<path> measures another build (e.g. an older dist/outpost) the same way;
// SECONDS_PER_RUN and CONNECTIONS set the load.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBinary, stopBinary, throughput } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error(`${binary} is missing: run npm run build first`);
const seconds = Number(process.env.SECONDS_PER_RUN ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 50);
const TARGET = 0.5;

const measure = (url: string, headers: Record<string, string> = {}) => throughput(url, { seconds, connections, headers });

const dir = mkdtempSync(join(tmpdir(), "outpost-bench-auth-"));
// default flags: no --no-logs/--no-metrics, default log level (every request logged)
const server = await startBinary(binary, ["serve", "--data-dir", join(dir, "data"), "--http-port", "0", "--logs-port", "0", "--metrics-port", "0"], 3);
try {
  const base = server.urls.dashboard!;
  const json = { "Content-Type": "application/json" };
  const basicAuth = { Authorization: `Basic ${btoa("admin:admin")}` };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${base}${path}`, { method, headers: { ...basicAuth, ...json }, ...(body ? { body: JSON.stringify(body) } : {}) });
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  // the admin's password is verified once (one bcrypt), then identity changes as in ordinary use
  await call("GET", "/api/user");
  const account = await call("POST", "/api/serviceaccounts", { name: "bench", role: "Viewer" });
  const token = await call("POST", `/api/serviceaccounts/${account.id}/tokens`, { name: "bench" });
  const tokenAuth = { Authorization: `Bearer ${String(token.key)}` };

  const cases: Array<{ label: string; path: string; headers: Record<string, string>; status: number }> = [
    { label: "GET /api/user (basic)", path: "/api/user", headers: basicAuth, status: 200 },
    { label: "GET /api/org (basic)", path: "/api/org", headers: basicAuth, status: 200 },
    { label: "GET /api/user/preferences (basic)", path: "/api/user/preferences", headers: basicAuth, status: 200 },
    // a service account gets the real product's 403 "Endpoint only available for users" here: measured all the same
    { label: "GET /api/user (token, 403)", path: "/api/user", headers: tokenAuth, status: 403 },
    { label: "GET /api/org (token)", path: "/api/org", headers: tokenAuth, status: 200 },
  ];
  for (const c of cases) {
    const r = await fetch(`${base}${c.path}`, { headers: c.headers });
    await r.arrayBuffer();
    if (r.status !== c.status) throw new Error(`${c.label}: ${r.status}, expected ${c.status}`);
  }
  // warm the server before the reference figure
  await measure(`${base}/api/health`).catch(() => undefined);
  const health = await measure(`${base}/api/health`);
  console.log(`GET /api/health (no auth): ${Math.round(health.rps)} req/s, p99 ${health.p99} ms`);
  let met = true;
  for (const c of cases) {
    const r = await measure(`${base}${c.path}`, c.headers);
    const ratio = r.rps / health.rps;
    met &&= ratio >= TARGET;
    const unexpected = c.status === 200 ? `, non-2xx ${r.bad}` : "";
    console.log(`${c.label}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms${unexpected}, ${(ratio * 100).toFixed(0)}% of health (target >= ${TARGET * 100}%)`);
  }
  console.log(met ? "all targets met" : "a target was missed");
} finally {
  await stopBinary(server.child);
  rmSync(dir, { recursive: true, force: true });
}
