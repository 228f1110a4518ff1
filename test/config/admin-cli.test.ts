// outpost admin create-token / reset-password on a data dir, then used by a server.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ADMIN, basic, bearer, client } from "../helpers/api.ts";
import { bunBin, repoRoot } from "../helpers/paths.ts";
import { runToExit } from "../helpers/process.ts";
import { startTestServer } from "../helpers/server.ts";

const outpost = (...args: string[]) => runToExit(bunBin, [join(repoRoot, "src", "main.ts"), ...args], { cwd: repoRoot, timeoutMs: 60_000 });
const outpostWithInput = (input: string, ...args: string[]) =>
  runToExit(bunBin, [join(repoRoot, "src", "main.ts"), ...args], { cwd: repoRoot, timeoutMs: 60_000, input });

describe("outpost admin", () => {
  it("create-token makes a token the cloud edition accepts; refused while a server holds the data dir", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-admin-"));
    const made = outpost("admin", "create-token", "--data-dir", dir, "--name", "automation", "--role", "Admin");
    expect(made.stderr).toBe("");
    expect(made.status).toBe(0);
    const key = made.stdout.trim();
    expect(key).toMatch(/^opsa_[A-Za-z0-9]{32}_[0-9a-f]{8}$/);

    const server = await startTestServer({ "storage.in_memory": false, "storage.data_dir": dir, "server.edition": "cloud" });
    try {
      const api = client(server.urls.dashboard);
      const search = await api.get("/api/serviceaccounts/search", { auth: bearer(key) });
      expect(search.status).toBe(200);
      expect(search.body.serviceAccounts).toEqual([expect.objectContaining({ name: "automation", role: "Admin", tokens: 1 })]);
      expect((await api.get("/api/serviceaccounts/search", { auth: ADMIN })).status).toBe(401);

      const busy = outpost("admin", "create-token", "--data-dir", dir, "--name", "automation");
      expect(busy.status).toBe(1);
      expect(busy.stderr).toMatch(/data dir in use: .*stop the server first/);
    } finally {
      await server.stop();
    }

    // a second run reuses the account and adds a token
    const again = outpost("admin", "create-token", "--data-dir", dir, "--name", "automation");
    expect(again.status).toBe(0);
    expect(again.stdout.trim()).not.toBe(key);
  }, 120_000);

  it("reset-password sets the admin password (from standard input or --password); bad arguments exit 2", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-admin-"));
    expect(outpost("admin", "reset-password", "--data-dir", dir, "--password", "first-pw").status).toBe(0);
    const r = outpostWithInput("new-admin-pw\n", "admin", "reset-password", "--data-dir", dir);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe("password of admin changed\n");
    expect(outpost("admin", "reset-password", "--data-dir", dir, "--login", "nobody", "--password", "whatever").status).toBe(1);
    expect(outpost("admin", "reset-password", "--data-dir", dir, "--password", "ab").status).toBe(2);
    expect(outpost("admin", "create-token", "--data-dir", dir, "--name", "x", "--role", "Boss").status).toBe(2);

    const server = await startTestServer({ "storage.in_memory": false, "storage.data_dir": dir });
    try {
      const api = client(server.urls.dashboard);
      expect((await api.get("/api/user", { auth: ADMIN })).status).toBe(401);
      expect((await api.get("/api/user", { auth: basic("admin", "new-admin-pw") })).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 120_000);
});
