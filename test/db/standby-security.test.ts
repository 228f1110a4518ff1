// What a standby store node must not become (issue 26's review): a way to
// reach other hosts (a path of "//host/" forwarded), a way around the log
// store's authenticating proxy, or a node that acknowledges pushes after
// another node took the stores over (the fencing token in store_epoch).
import { createServer, connect, type Server } from "node:net";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADVISORY_LOCK_BASE, MIGRATION_LOCK } from "../../src/db/migrate.ts";
import { STORE_LOCK } from "../../src/cluster/store-lock.ts";
import { LDAP_SYNC_LOCK, SECRETS_REWRAP_LOCK } from "../../src/apps/dashboard/cluster-locks.ts";
import { pollUntil } from "../helpers/eventually.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { logClient, nsAgo } from "../logstore/helpers.ts";
import { metricsClient } from "../metrics/helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-standby-"));
const htpasswd = join(dir, ".htpasswd");
writeFileSync(htpasswd, `team-a:${bcrypt.hashSync("pw-a", 5)}\n`);
let postgres: PostgresServer;
let db: pg.Pool;
let internal: Server;
const nodes: TestServer[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
  const url = await postgres.createDatabase();
  db = new pg.Pool({ connectionString: url, max: 1 });
  for (const name of ["a", "b"]) {
    nodes.push(await startTestServer({
      "storage.database_url": url, "security.secret_key": "the-standby-test-secret-key", "server.node_name": name,
      "logs.auth_proxy.enabled": true, "logs.auth_proxy.htpasswd_file": htpasswd, "logs.auth_proxy.port": 0,
    }));
  }
  // a service inside the network that no client should reach through Outpost
  internal = createServer((s) => s.end("HTTP/1.1 200 OK\r\nContent-Length: 15\r\nConnection: close\r\n\r\nINTERNAL SECRET"));
  await new Promise<void>((r) => internal.listen(0, "127.0.0.1", r));
}, 180_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  internal?.close();
  await db?.end();
  await postgres?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** a request as a raw HTTP/1.1 request line (fetch would normalise the path) */
function raw(base: string, path: string): Promise<string> {
  const u = new URL(base);
  return new Promise((resolve) => {
    const c = connect(Number(u.port), u.hostname, () => c.write(`GET ${path} HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`));
    let out = "";
    // what came within a few seconds (a server may keep the connection open after its answer)
    const timer = setTimeout(() => {
      c.destroy();
      resolve(out);
    }, 3_000);
    c.on("data", (d) => (out += d.toString()));
    c.on("end", () => {
      clearTimeout(timer);
      resolve(out);
    });
    c.on("error", (e) => resolve(String(e)));
  });
}

describe("a standby store node", () => {
  it("never forwards to another host than the active node's, whatever the path", async () => {
    const standby = nodes[1]!;
    const port = (internal.address() as { port: number }).port;
    for (const path of [`//127.0.0.1:${port}/admin`, `/\\127.0.0.1:${port}/x`, `//127.0.0.1:${port}`]) {
      for (const listener of ["logs", "metrics", "logs proxy"]) {
        const answer = await raw(standby.urls[listener as "logs"]!, path);
        expect(answer, `${listener} ${path}`).not.toContain("INTERNAL SECRET");
        expect(answer, `${listener} ${path}`).toMatch(/^HTTP\/1\.1 [45]\d\d /);
      }
    }
  });

  it("checks the authenticating proxy's credentials itself: no way around them through a standby", async () => {
    const push = (base: string, headers: Record<string, string>) =>
      fetch(`${base}/loki/api/v1/push`, {
        method: "POST", headers: { "Content-Type": "application/json", ...headers },
        body: JSON.stringify({ streams: [{ stream: { app: "proxy" }, values: [[nsAgo(1), "through the proxy"]] }] }),
      }).then((r) => r.status);
    const query = (base: string, headers: Record<string, string>) =>
      fetch(`${base}/loki/api/v1/query_range?query=${encodeURIComponent('{app="proxy"}')}&start=${nsAgo(600)}`, { headers }).then((r) => r.status);
    for (const node of nodes) {
      const proxy = node.urls["logs proxy"]!;
      expect(await push(proxy, { "X-Scope-OrgID": "team-a" })).toBe(401);
      expect(await query(proxy, { "X-Scope-OrgID": "team-a" })).toBe(401);
      expect(await push(proxy, { Authorization: `Basic ${btoa("team-a:wrong")}` })).toBe(401);
      expect((await fetch(`${proxy}/metrics`, { headers: { Authorization: `Basic ${btoa("team-a:pw-a")}` } })).status).toBe(403);
      expect(await push(proxy, { Authorization: `Basic ${btoa("team-a:pw-a")}` })).toBe(204);
    }
  });

  it("Outpost's advisory lock keys are exact integers, one per use", () => {
    const keys = [MIGRATION_LOCK, ADVISORY_LOCK_BASE + 1, STORE_LOCK, LDAP_SYNC_LOCK, SECRETS_REWRAP_LOCK];
    for (const k of keys) expect(Number.isSafeInteger(k) && k < 2 ** 31).toBe(true);
    expect(new Set(keys.map(String)).size).toBe(keys.length);
  });
});

describe("the active store node", () => {
  it("acknowledges no push once another node has taken the stores' epoch (it lost the lock without knowing)", async () => {
    const active = nodes[0]!;
    const logs = logClient(active.urls.logs!);
    expect((await logs.push("fenced", [{ stream: { app: "f" }, values: [[nsAgo(1), "before"]] }])).status).toBe(204);
    // what a node taking the lock does first
    await db.query("update store_epoch set epoch = epoch + 1 where id = 1");
    const after = await logs.push("fenced", [{ stream: { app: "f" }, values: [[nsAgo(1), "after"]] }]);
    expect(after.status).toBeGreaterThanOrEqual(500);
    // and stays so: nothing more of it reaches the shared log
    const rows = async () => Number((await db.query("select count(*) as n from store_wal where position('after'::bytea in body) > 0")).rows[0].n);
    expect(await pollUntil(async () => (await rows()) === 0, 2_000)).toBe(true);
    const metrics = await metricsClient(active.urls.metrics!).push("fenced", [{ labels: { __name__: "fenced_total" }, samples: [[Date.now(), 1]] }]);
    expect(metrics.status).toBeGreaterThanOrEqual(500);
  });
});
