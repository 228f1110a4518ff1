// Authenticated reads against the unauthenticated GET /api/health, in one run
// against the compiled binary with default flags (request logging on, log and
// metrics stores running), after a service account and a token were created
// (issue 17: that used to drop basic auth to bcrypt on every request).
// Target: every authenticated read reaches at least 50% of the health check's
// requests per second (each measured right after a health figure of its own).
//
// BINARY=<path> measures another build (e.g. an older dist/outpost) the same way;
// SECONDS_PER_RUN and CONNECTIONS set the load; WARM_AFTER_CHANGES=1 sends one
// basic-auth request after the changes, before the load.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { report, startBinary, stopBinary, throughput } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error(`${binary} is missing: run npm run build first`);
const seconds = Number(process.env.SECONDS_PER_RUN ?? 10);
const connections = Number(process.env.CONNECTIONS ?? 50);
const TARGET = 0.5;

/** the server's CPU time in ms (Linux /proc; undefined elsewhere): CPU per request drifts far less than req/s on a shared machine */
const cpuMs = (pid: number | undefined): number | undefined => {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in USER_HZ (100)
  } catch {
    return undefined;
  }
};

const measure = async (url: string, headers: Record<string, string> = {}) => {
  const before = cpuMs(server.child.pid);
  const r = await throughput(url, { seconds, connections, headers });
  const after = cpuMs(server.child.pid);
  const requests = r.rps * seconds;
  const cpuUs = before === undefined || after === undefined || !requests ? undefined : ((after - before) * 1000) / requests;
  return { ...r, cpuUs };
};
const cpuText = (us: number | undefined) => (us === undefined ? "" : `, ${us.toFixed(0)} µs server CPU/request`);

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
  const cases: Array<{ label: string; path: string; headers: Record<string, string>; status: number }> = [
    { label: "GET /api/user (basic)", path: "/api/user", headers: basicAuth, status: 200 },
    { label: "GET /api/org (basic)", path: "/api/org", headers: basicAuth, status: 200 },
    { label: "GET /api/user/preferences (basic)", path: "/api/user/preferences", headers: basicAuth, status: 200 },
  ];
  const check = async (list: typeof cases) => {
    for (const c of list) {
      const r = await fetch(`${base}${c.path}`, { headers: c.headers });
      await r.arrayBuffer();
      if (r.status !== c.status) throw new Error(`${c.label}: ${r.status}, expected ${c.status}`);
    }
  };
  // the admin's password is verified (one bcrypt), then identity changes as in ordinary use; the
  // next basic-auth request is the benchmark's own (issue 17: from there on, bcrypt on every request)
  await check(cases);
  const account = await call("POST", "/api/serviceaccounts", { name: "bench", role: "Viewer" });
  const token = await call("POST", `/api/serviceaccounts/${account.id}/tokens`, { name: "bench" });
  const tokenAuth = { Authorization: `Bearer ${String(token.key)}` };
  const tokenCases = [
    // a service account gets the real product's 403 "Endpoint only available for users" here: measured all the same
    { label: "GET /api/user (token, 403)", path: "/api/user", headers: tokenAuth, status: 403 },
    { label: "GET /api/org (token)", path: "/api/org", headers: tokenAuth, status: 200 },
  ];
  await check(tokenCases);
  // WARM_AFTER_CHANGES=1: verify the password again first, so an old build's figures show its
  // steady state rather than the collapse
  if (process.env.WARM_AFTER_CHANGES === "1") await check(cases);
  cases.push(...tokenCases);

  // warm the server, then each figure beside a health figure taken just before it: on a shared
  // machine the load drifts, and a ratio of neighbours drifts least
  await measure(`${base}/api/health`).catch(() => undefined);
  let met = true;
  for (const c of cases) {
    // each path warmed first (the JIT, the permission cache), as health was
    await throughput(`${base}${c.path}`, { seconds: 2, connections, headers: c.headers });
    const health = await measure(`${base}/api/health`);
    const r = await measure(`${base}${c.path}`, c.headers);
    const ratio = r.rps / health.rps;
    met &&= ratio >= TARGET;
    report.figure(`${c.label}`, r.rps, "req/s", null, { p99Ms: r.p99, bad: c.status === 200 ? r.bad : 0, cpuUsPerRequest: r.cpuUs ?? null });
    report.figure(`${c.label} / health`, ratio * 100, "%", `>= ${TARGET * 100}`, { healthRps: health.rps });
    const unexpected = c.status === 200 ? `, non-2xx ${r.bad}` : "";
    console.log(
      `${c.label}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms${unexpected}${cpuText(r.cpuUs)}; ` +
        `GET /api/health just before: ${Math.round(health.rps)} req/s${cpuText(health.cpuUs)}; ` +
        `${(ratio * 100).toFixed(0)}% of health (target >= ${TARGET * 100}%)`,
    );
  }
  console.log(met ? "all targets met" : "a target was missed");
} finally {
  await stopBinary(server.child);
  rmSync(dir, { recursive: true, force: true });
}
report.save();
