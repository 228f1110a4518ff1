// Authenticated GET /api/user (basic auth, the admin user) against the
// unauthenticated GET /api/health, in one run against the compiled binary.
// Target (issue 3): the authenticated request reaches at least 50% of the
// health check's requests per second.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { report, startBinary, stopBinary, throughput } from "./lib.ts";

const binary = join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");
const seconds = Number(process.env.SECONDS_PER_RUN ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 50);

const measure = (url: string, headers: Record<string, string> = {}) => throughput(url, { seconds, connections, headers });

const dir = mkdtempSync(join(tmpdir(), "outpost-bench-auth-"));
const server = await startBinary(binary, ["serve", "--data-dir", join(dir, "data"), "--http-port", "0", "--no-logs", "--no-metrics", "--log-level", "warn"], 1);
try {
  const base = server.urls.dashboard!;
  const auth = { Authorization: `Basic ${btoa("admin:admin")}` };
  // warm both paths (the first basic-auth request pays bcrypt once)
  await fetch(`${base}/api/user`, { headers: auth });
  await measure(`${base}/api/health`).catch(() => undefined);
  const health = await measure(`${base}/api/health`);
  const user = await measure(`${base}/api/user`, auth);
  const ratio = user.rps / health.rps;
  console.log(`GET /api/health (no auth):   ${Math.round(health.rps)} req/s, p99 ${health.p99} ms, non-2xx ${health.bad}`);
  console.log(`GET /api/user (basic auth):  ${Math.round(user.rps)} req/s, p99 ${user.p99} ms, non-2xx ${user.bad}`);
  console.log(`ratio: ${(ratio * 100).toFixed(0)}% (target >= 50%)`);
  report.figure("GET /api/health (no auth)", health.rps, "req/s", null, { p99Ms: health.p99, bad: health.bad });
  report.figure("GET /api/user (basic auth)", user.rps, "req/s", null, { p99Ms: user.p99, bad: user.bad });
  report.figure("GET /api/user (basic auth) / health", ratio * 100, "%", ">= 50");
} finally {
  await stopBinary(server.child);
  rmSync(dir, { recursive: true, force: true });
}
report.save();
