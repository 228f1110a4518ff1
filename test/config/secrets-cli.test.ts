// outpost secrets rotate: offline on a stopped data dir, and online while a
// server runs on it (no downtime: secrets keep opening throughout). The
// generated key file is private to its owner.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createKeySet, createSecrets } from "../../src/apps/dashboard/core/secrets/secrets.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import type { Sql } from "../../src/db/sql.ts";
import { ADMIN, client } from "../helpers/api.ts";
import { POLL_DEADLINE_MS, pollUntil } from "../helpers/eventually.ts";
import { bunBin, repoRoot } from "../helpers/paths.ts";
import { runToExit, type RunResult } from "../helpers/process.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { startUpstream } from "../dashboard/legacy/upstream-echo.ts";

const outpost = (...args: string[]) => runToExit(bunBin, [join(repoRoot, "src", "main.ts"), ...args], { cwd: repoRoot, timeoutMs: 90_000 });

/** the CLI without blocking this process (an in-process server must keep running meanwhile) */
function outpostAsync(...args: string[]): Promise<RunResult> {
  return new Promise((resolve) => {
    const child = spawn(bunBin, [join(repoRoot, "src", "main.ts"), ...args], { cwd: repoRoot });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

const dirs: string[] = [];
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), "outpost-secrets-"));
  dirs.push(d);
  return d;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const keyLines = (dir: string) => readFileSync(join(dir, "secret.key"), "utf8").trim().split("\n");

async function seed(server: TestServer) {
  const api = client(server.urls.dashboard);
  const ds = await api.post("/api/datasources", {
    auth: ADMIN,
    body: { name: "rotating", type: "prometheus", url: "http://127.0.0.1:9", basicAuth: true, basicAuthUser: "u", secureJsonData: { basicAuthPassword: "pw-before-rotation" } },
  });
  expect(ds.status).toBe(200);
  const sv = await api.post("/apis/secret.svc.app/v1beta1/namespaces/default/securevalues", {
    auth: ADMIN,
    body: { metadata: { name: "rotating-sv" }, spec: { description: "kept", value: "sv-before-rotation" } },
  });
  expect(sv.status).toBe(201);
}

/** every stored secret opens with the keys now in the file, and they are all wrapped by its single key */
async function openAll(pg: Sql, dir: string): Promise<string[]> {
  const keys = keyLines(dir);
  const secrets = createSecrets(pg, await createKeySet(keys), silentLogger);
  const owners = (await pg.query<{ owner: string }>("select distinct owner from secrets order by owner")).rows.map((r) => r.owner);
  const values = [];
  for (const o of owners) values.push(...Object.values(await secrets.open(o)));
  return values.sort();
}

describe("outpost secrets rotate", () => {
  it("first boot writes a 0600 key file; offline rotation re-wraps everything with a new key", async () => {
    const dir = newDir();
    const first = await startTestServer({ "storage.in_memory": false, "storage.data_dir": dir });
    await seed(first);
    const before = (await first.db.pg.query<{ key_id: string }>("select distinct key_id from secrets")).rows.map((r) => r.key_id);
    await first.stop();
    expect(statSync(join(dir, "secret.key")).mode & 0o777).toBe(0o600);
    const oldKey = keyLines(dir);
    expect(oldKey).toHaveLength(1);

    const r = outpost("secrets", "rotate", "--data-dir", dir);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^rotated: 2 secrets re-wrapped with the new key \S+\n$/);
    const now = keyLines(dir);
    expect(now).toHaveLength(1);
    expect(now[0]).not.toBe(oldKey[0]);
    expect(statSync(join(dir, "secret.key")).mode & 0o777).toBe(0o600);

    const again = await startTestServer({ "storage.in_memory": false, "storage.data_dir": dir });
    try {
      const ids = (await again.db.pg.query<{ key_id: string }>("select distinct key_id from secrets")).rows.map((r) => r.key_id);
      expect(ids).toHaveLength(1);
      expect(ids).not.toEqual(before);
      expect(await openAll(again.db.pg, dir)).toEqual(["pw-before-rotation", "sv-before-rotation"]);
      // the server seals new secrets with the rotated key too
      const api = client(again.urls.dashboard);
      await api.put("/apis/secret.svc.app/v1beta1/namespaces/default/securevalues/rotating-sv", {
        auth: ADMIN, body: { metadata: { name: "rotating-sv" }, spec: { description: "kept", value: "sv-after-rotation" } },
      });
      expect(await openAll(again.db.pg, dir)).toEqual(["pw-before-rotation", "sv-after-rotation"]);
    } finally {
      await again.stop();
    }
  });

  it("while a server runs: it picks up the new key, re-wraps, keeps serving; the command waits for it", async () => {
    const dir = newDir();
    const server = await startTestServer({ "storage.in_memory": false, "storage.data_dir": dir });
    const upstream = await startUpstream();
    try {
      await seed(server);
      const api = client(server.urls.dashboard);
      // a data source whose secret travels upstream through the proxy: it must open before, during and after
      const echo = await api.post("/api/datasources", {
        auth: ADMIN,
        body: { name: "echo", type: "loki", url: upstream.url, jsonData: { httpHeaderName1: "X-Key" }, secureJsonData: { httpHeaderValue1: "proxied-secret" } },
      });
      const sentKey = async () => {
        upstream.received.length = 0;
        expect((await api.get(`/api/datasources/proxy/uid/${echo.body.datasource.uid}/x`, { auth: ADMIN })).status).toBe(202);
        return upstream.received[0]!.headers["x-key"];
      };
      expect(await sentKey()).toBe("proxied-secret");
      const oldKey = keyLines(dir)[0];
      const rotating = outpostAsync("secrets", "rotate", "--data-dir", dir);
      // the API keeps answering and secrets keep opening during the rotation
      for (let i = 0; i < 5; i++) {
        expect((await api.get("/api/datasources/name/rotating", { auth: ADMIN })).status).toBe(200);
        expect(await sentKey()).toBe("proxied-secret");
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const r = await rotating;
      expect(r.status).toBe(0);
      expect(r.stderr).toMatch(/a server is running on this data dir/);
      expect(r.stdout).toMatch(/^rotated: the running server re-wrapped every secret with the new key \S+\n$/);
      expect(keyLines(dir)).toHaveLength(1);
      expect(keyLines(dir)[0]).not.toBe(oldKey);
      expect(server.logs.some((l) => l.msg === "secret key rotated: new secrets are sealed with the new key")).toBe(true);
      expect(await openAll(server.db.pg, dir)).toEqual(["proxied-secret", "pw-before-rotation", "sv-before-rotation"]);
      expect(await sentKey()).toBe("proxied-secret");
      // a secret written now is sealed with the new key
      await api.post("/api/datasources", { auth: ADMIN, body: { name: "after", type: "loki", secureJsonData: { password: "after-rotation" } } });
      expect(await openAll(server.db.pg, dir)).toEqual(["after-rotation", "proxied-secret", "pw-before-rotation", "sv-before-rotation"]);
      expect((await server.db.pg.query("select distinct key_id from secrets")).rows).toHaveLength(1);
    } finally {
      await upstream.close();
      await server.stop();
    }
  });

  it("refused when the key comes from the configuration, or before the first boot", () => {
    const dir = newDir();
    const fresh = runToExit(bunBin, [join(repoRoot, "src", "main.ts"), "secrets", "rotate", "--data-dir", dir], {
      cwd: repoRoot, timeoutMs: 60_000,
    });
    expect(fresh.status).toBe(1);
    expect(fresh.stderr).toMatch(/no secret key in .* yet/);
    const withKey = runToExit("env", ["OUTPOST_SECURITY_SECRET_KEY=my-own-key", bunBin, join(repoRoot, "src", "main.ts"), "secrets", "rotate", "--data-dir", dir], {
      cwd: repoRoot, timeoutMs: 60_000,
    });
    expect(withKey.status).toBe(2);
    expect(withKey.stderr).toMatch(/security\.secret_key is set in the configuration/);
    expect(withKey.stderr).not.toContain("my-own-key");
  });
});

describe("security.secret_key and security.previous_secret_keys", () => {
  it("a new configured key: secrets sealed with the previous one open and are re-wrapped at startup", async () => {
    const dir = newDir();
    const first = await startTestServer({ "storage.in_memory": false, "storage.data_dir": dir, "security.secret_key": "the-first-configured-key" });
    await seed(first);
    await first.stop();
    const second = await startTestServer({
      "storage.in_memory": false, "storage.data_dir": dir,
      "security.secret_key": "the-second-configured-key", "security.previous_secret_keys": ["the-first-configured-key"],
    });
    try {
      const keys = await createKeySet(["the-second-configured-key"]);
      await pollUntil(async () => (await second.db.pg.query("select 1 from secrets where key_id <> $1", [keys.current.id])).rows.length === 0, POLL_DEADLINE_MS, 100);
      const secrets = createSecrets(second.db.pg, keys, silentLogger);
      expect(await secrets.staleCount()).toBe(0);
      const owners = (await second.db.pg.query<{ owner: string }>("select distinct owner from secrets")).rows.map((r) => r.owner);
      const values = (await Promise.all(owners.map((o) => secrets.open(o)))).flatMap((v) => Object.values(v)).sort();
      expect(values).toEqual(["pw-before-rotation", "sv-before-rotation"]);
    } finally {
      await second.stop();
    }
  });
});
