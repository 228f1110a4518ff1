// What tokens mode costs a store request (issue 22): the same binary in
// header mode and in tokens mode, the same small requests (a one-line log
// push, the log labels, a PromQL vector(1)) under load, in one run; figures
// are requests/s and the ratio tokens/header. A token is checked against
// memory (one SHA-256), so the ratio should stay near 1.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { report, startBinary, stopBinary, throughput } from "./lib.ts";

const SECONDS = Number(process.env.SECONDS_PER_RUN ?? 6);
const CONNECTIONS = 8;
const ADMIN = "outpost-admin-bench-token-0123456789";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");

// "header+": header mode with an Authorization header of a token's length sent and ignored: a
// control that tells the cost of carrying the credentials from the cost of checking them
type Mode = "header" | "header+" | "tokens";
const results: Record<Mode, Record<string, number>> = { header: {}, "header+": {}, tokens: {} };
const FAKE_TOKEN = Buffer.from(`bench-0123456789abcdef:${"x".repeat(32)}`).toString("base64");

for (const mode of ["header", "header+", "tokens"] as const) {
  const dir = mkdtempSync(join(tmpdir(), "outpost-bench-tokens-"));
  const server = await startBinary(binary, [
    "serve", "--data-dir", join(dir, "data"), "--http-port", "0", "--logs-port", "0", "--metrics-port", "0", "--log-level", "warn",
    "--logs-auth-type", mode === "tokens" ? "tokens" : "header", "--metrics-auth-type", mode === "tokens" ? "tokens" : "header", "--metrics-admin-token", ADMIN,
    "--logs-ingestion-rate-mb", "1000", "--logs-ingestion-burst-size-mb", "1000",
  ]);
  try {
    let auth: Record<string, string> = { "X-Scope-OrgID": "bench" };
    if (mode === "header+") auth = { ...auth, Authorization: `Basic ${Buffer.from(`bench:${FAKE_TOKEN}`).toString("base64")}` };
    if (mode === "tokens") {
      const admin = { Authorization: `Basic ${Buffer.from(`:${ADMIN}`).toString("base64")}`, "Content-Type": "application/json" };
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${server.urls.metrics}${path}`, { method: "POST", headers: admin, body: JSON.stringify(body) });
        if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
        return (await res.json()) as { token?: string };
      };
      // a few policies and tokens besides the one used, as a site has
      for (let i = 0; i < 50; i++) {
        await post("/admin/api/v3/accesspolicies", { name: `team-${i}`, realms: [{ tenant: `team-${i}` }], scopes: ["logs:write", "logs:read", "metrics:read"] });
        await post("/admin/api/v3/tokens", { name: `team-${i}`, access_policy: `team-${i}` });
      }
      await post("/admin/api/v3/accesspolicies", { name: "bench", realms: [{ tenant: "bench" }], scopes: ["logs:write", "logs:read", "metrics:read"] });
      const { token } = await post("/admin/api/v3/tokens", { name: "bench", access_policy: "bench" });
      auth = { Authorization: `Basic ${Buffer.from(`bench:${token}`).toString("base64")}` };
    }
    const push = JSON.stringify({ streams: [{ stream: { app: "bench" }, values: [[String(BigInt(Date.now()) * 1_000_000n), "one line"]] }] });
    const cases: Array<[string, string, "GET" | "POST", string | undefined, Record<string, string>]> = [
      ["log push (one line)", `${server.urls.logs}/loki/api/v1/push`, "POST", push, { "Content-Type": "application/json" }],
      ["log labels", `${server.urls.logs}/loki/api/v1/labels`, "GET", undefined, {}],
      ["PromQL vector(1)", `${server.urls.metrics}/prometheus/api/v1/query?query=vector(1)`, "GET", undefined, {}],
    ];
    for (const [name, url, method, body, headers] of cases) {
      const t = await throughput(url, { seconds: SECONDS, connections: CONNECTIONS, method, headers: { ...headers, ...auth }, ...(body ? { body } : {}) });
      if (t.bad > 0) throw new Error(`${mode} ${name}: ${t.bad} failed requests`);
      results[mode][name] = t.rps;
      console.log(`${mode.padEnd(7)} ${name}: ${Math.round(t.rps)} req/s, p99 ${t.p99} ms`);
      report.figure(`${name}, ${mode} mode`, t.rps, "req/s", null, { connections: CONNECTIONS });
    }
  } finally {
    await stopBinary(server.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
for (const name of Object.keys(results.header)) {
  const ratio = results.tokens[name]! / results.header[name]!;
  const carried = results.tokens[name]! / results["header+"][name]!;
  console.log(`${name}: tokens/header ${ratio.toFixed(2)}; tokens/header with the same Authorization bytes ${carried.toFixed(2)}`);
  report.figure(`${name}: tokens mode / header mode`, ratio, "ratio", ">= 0.85", {});
  report.figure(`${name}: tokens mode / header mode carrying the same Authorization header`, carried, "ratio", null, {});
}
report.save();
