// DNS rebinding (issue 16, "Stores and DNS rebinding"): the log store, the
// metrics store and the log store's auth proxy answer only requests whose
// Host names this machine (localhost, 127.0.0.1, [::1], the bind address) or
// an IP address; another name -> 403 naming server.allowed_hosts, before any
// tenant, credential or CORS handling. server.allowed_hosts adds names; *
// allows any. The dashboard (credentials on every route) is not checked.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { afterAll, describe, expect, it } from "vitest";
import { useServer } from "./helpers/server.ts";

/** fetch cannot set Host: node:http can, on every runtime */
function withHost(url: string, host: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<{ status: number; text: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path: u.pathname + u.search, method: init.method ?? "GET", headers: { ...init.headers, Host: host }, setHost: false }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (d: string) => { text += d; });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.end(init.body);
  });
}

const dir = mkdtempSync(join(tmpdir(), "outpost-hosts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const htpasswd = join(dir, ".htpasswd");
writeFileSync(htpasswd, `team-a:${bcrypt.hashSync("pw-a", 5)}\n`);

describe("store Host check: defaults", () => {
  const t = useServer({ "logs.auth_proxy.enabled": true, "logs.auth_proxy.htpasswd_file": htpasswd, "logs.auth_proxy.port": 0 });
  const port = (url: string) => new URL(url).port;

  it("GET /ready and a push with Host: a rebound name -> 403 naming server.allowed_hosts, on logs, metrics and the logs proxy", async () => {
    for (const base of [t.server.urls.logs!, t.server.urls.metrics!, t.server.urls["logs proxy"]!]) {
      const ready = await withHost(`${base}/ready`, `rebind.attacker.test:${port(base)}`);
      expect(ready.status, base).toBe(403);
      expect(ready.text).toContain('host "rebind.attacker.test:');
      expect(ready.text).toContain("server.allowed_hosts");
    }
    const push = await withHost(`${t.server.urls.logs}/svc/api/v1/push`, "rebind.attacker.test", {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Scope-OrgID": "t" },
      body: JSON.stringify({ streams: [{ stream: { job: "rebound" }, values: [[`${Date.now()}000000`, "forged"]] }] }),
    });
    expect(push.status).toBe(403);
    const write = await withHost(`${t.server.urls.metrics}/api/v1/push`, "Rebind.Attacker.Test.", { method: "POST", headers: { "X-Scope-OrgID": "t" }, body: "x" });
    expect(write.status).toBe(403);
  });

  it("a CORS preflight with a rebound Host -> 403 (checked before CORS)", async () => {
    const r = await withHost(`${t.server.urls.metrics}/api/v1/push`, "rebind.attacker.test", {
      method: "OPTIONS",
      headers: { Origin: "http://rebind.attacker.test:3000", "Access-Control-Request-Method": "POST" },
    });
    expect(r.status).toBe(403);
    expect(r.text).toContain("DNS rebinding protection");
  });

  it("Host localhost, 127.0.0.1, [::1], another IP address, no port, a trailing dot -> answered", async () => {
    for (const base of [t.server.urls.logs!, t.server.urls.metrics!]) {
      for (const host of [`localhost:${port(base)}`, "LOCALHOST", "localhost.", `127.0.0.1:${port(base)}`, `[::1]:${port(base)}`, "10.1.2.3:3100", "[fd00::1]"]) {
        expect((await withHost(`${base}/ready`, host)).status, `${base} ${host}`).toBe(200);
      }
    }
  });

  it("the dashboard answers any Host (every route but health and sign-in needs credentials)", async () => {
    expect((await withHost(`${t.server.urls.dashboard}/api/health`, "dash.corp.test")).status).toBe(200);
  });
});

describe("store Host check: server.allowed_hosts", () => {
  const t = useServer({ "server.allowed_hosts": ["logs.corp.test", "[fd00::5]"] });

  it("a listed name -> answered; the defaults still hold; another name -> 403", async () => {
    expect((await withHost(`${t.server.urls.logs}/ready`, "logs.corp.test:3100")).status).toBe(200);
    expect((await withHost(`${t.server.urls.metrics}/ready`, "logs.corp.test")).status).toBe(200);
    expect((await withHost(`${t.server.urls.metrics}/ready`, "localhost")).status).toBe(200);
    expect((await withHost(`${t.server.urls.metrics}/ready`, "corp.test")).status).toBe(403);
    expect((await withHost(`${t.server.urls.metrics}/ready`, "logs.corp.test.attacker.test")).status).toBe(403);
  });
});

describe("store Host check: server.allowed_hosts = *", () => {
  const t = useServer({ "server.allowed_hosts": ["*"] });

  it("any Host -> answered", async () => {
    expect((await withHost(`${t.server.urls.logs}/ready`, "anything.example")).status).toBe(200);
    expect((await withHost(`${t.server.urls.metrics}/ready`, "rebind.attacker.test")).status).toBe(200);
  });
});
