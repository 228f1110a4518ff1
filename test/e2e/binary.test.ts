// The compiled single executable, run as an operator runs it: copied alone
// into an empty folder, on free ports, with a data dir it creates; stopped
// with SIGTERM and started again with everything intact.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { ensureBuilt } from "../helpers/build.ts";
import { expectRe2 } from "../helpers/re2-probe.ts";
import { expectTail } from "../helpers/tail-probe.ts";
import { distBinary } from "../helpers/paths.ts";
import { freePortArgs, runToExit, startChild, type Child } from "../helpers/process.ts";

describe("dist/outpost (compiled binary)", () => {
  let folder: string;
  let binary: string;
  let dataDir: string;
  const children: Child[] = [];

  beforeAll(() => {
    ensureBuilt();
    folder = mkdtempSync(join(tmpdir(), "outpost-bin-"));
    binary = join(folder, "outpost");
    copyFileSync(distBinary, binary);
    execFileSync("chmod", ["+x", binary]);
    dataDir = join(folder, "data");
  }, 180_000);

  afterAll(async () => {
    for (const c of children) await c.stop("SIGKILL");
    // a copy of the binary: ~150 MB a run, left behind it fills a machine's disk
    if (folder) rmSync(folder, { recursive: true, force: true });
  });

  const start = async (...extra: string[]) => {
    const child = await startChild(binary, ["serve", "--data-dir", dataDir, ...freePortArgs, ...extra], { cwd: folder });
    children.push(child);
    return child;
  };

  it("runs alone from an empty folder: version and health", async () => {
    const v = runToExit(binary, ["version"], { cwd: folder });
    expect(v.status).toBe(0);
    expect(v.stdout).toMatch(/^outpost \d+\.\d+\.\d+ \(commit \S+, bun /);

    const server = await start();
    expect(Object.keys(server.urls).sort()).toEqual(["dashboard", "logs", "metrics"]);
    const health = await (await fetch(`${server.urls.dashboard}/api/health`)).json();
    expect(health.database).toBe("ok");
    const page = await fetch(`${server.urls.dashboard}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(await page.text()).toContain("<title>Outpost</title>");
    expect(await (await fetch(`${server.urls.logs}/ready`)).text()).toBe("ready\n");
    expect(await (await fetch(`${server.urls.metrics}/ready`)).text()).toBe("ready\n");
    await expectRe2(server.urls);
    // Bun.serve's WebSocket upgrade in the compiled binary
    await expectTail(server.urls);
    expect(server.stderr()).toMatch(/level=warn msg="the admin user's password is the default/);

    // a second server on the same data dir is refused
    const second = runToExit(binary, ["serve", "--data-dir", dataDir, ...freePortArgs], { cwd: folder });
    expect(second.status).toBe(1);
    expect(second.stderr).toMatch(/error: data dir in use: .* is locked by process \d+/);

    expect(await server.stop("SIGTERM")).toBe(0);
    expect(server.stderr()).toMatch(/msg="stopped cleanly"/);
  }, 120_000);

  it("starts the worker pool's worker it embeds (outpost selftest), alone in its folder", () => {
    const r = runToExit(binary, ["selftest"], { cwd: folder });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const answer = JSON.parse(r.stdout) as { runtime: string; mainThread: number; workerThread: number };
    expect(answer.runtime).toMatch(/^bun /);
    expect(answer.workerThread).not.toBe(answer.mainThread);
  }, 60_000);

  it("kill -TERM and restart loses nothing", async () => {
    const admin = { Authorization: `Basic ${btoa("admin:admin")}`, "Content-Type": "application/json" };
    const first = await start();
    const created = await fetch(`${first.urls.dashboard}/api/admin/users`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ login: "survivor", email: "survivor@example.test", password: "survivor-pw" }),
    });
    expect(created.status).toBe(200);
    const sa = await (await fetch(`${first.urls.dashboard}/api/serviceaccounts`, { method: "POST", headers: admin, body: JSON.stringify({ name: "survivor bot" }) })).json();
    const token = await (await fetch(`${first.urls.dashboard}/api/serviceaccounts/${sa.id}/tokens`, { method: "POST", headers: admin, body: JSON.stringify({ name: "kept" }) })).json();
    expect(await first.stop("SIGTERM")).toBe(0);

    for (let i = 0; i < 3; i++) {
      const server = await start();
      const members = await (await fetch(`${server.urls.dashboard}/api/orgs/1/users`, { headers: admin })).json();
      expect(members.map((m: { login: string }) => m.login)).toContain("survivor");
      const asSurvivor = await fetch(`${server.urls.dashboard}/api/user`, { headers: { Authorization: `Basic ${btoa("survivor:survivor-pw")}` } });
      expect(asSurvivor.status).toBe(200);
      const withToken = await fetch(`${server.urls.dashboard}/api/serviceaccounts/search`, { headers: { Authorization: `Bearer ${token.key}` } });
      expect(withToken.status).toBe(403); // a Viewer token: authenticated, and refused by permission
      expect(await server.stop("SIGTERM")).toBe(0);
    }
    const after = await openDatabase({ dataDir, logger: silentLogger });
    expect(after.created).toBe(false);
    await after.close();
  }, 90_000);

  it("--in-memory writes no files", async () => {
    const empty = mkdtempSync(join(tmpdir(), "outpost-mem-"));
    const server = await startChild(binary, ["serve", "--in-memory", ...freePortArgs], { cwd: empty });
    children.push(server);
    expect((await (await fetch(`${server.urls.dashboard}/api/health`)).json()).database).toBe("ok");
    expect(await server.stop("SIGINT")).toBe(0);
    expect(readdirSync(empty)).toEqual([]);
  }, 60_000);

  it("--no-logs --no-metrics runs the dashboard alone", async () => {
    const server = await startChild(binary, ["serve", "--in-memory", "--no-logs", "--no-metrics", "--http-port", "0"], { cwd: folder, services: 1 });
    children.push(server);
    await new Promise((r) => setTimeout(r, 200));
    expect(Object.keys(server.urls)).toEqual(["dashboard"]);
    expect(await server.stop()).toBe(0);
  }, 60_000);

  it("a bad config file -> exit 2 with the key named", () => {
    const r = runToExit(binary, ["serve", "--in-memory", "--log-format", "xml"], { cwd: folder });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('server.log_format (from --log-format): must be "json" or "logfmt", got "xml"');
  });
});
