// CORS on the log store, the metrics store and the log store's auth proxy, so
// the admin page (the dashboard's origin) can call them from a browser: the
// dashboard listener on the same hostname and listed origins are allowed,
// preflights are answered before any tenant or credential check, refused
// preflights get 403, and the proxy never forwards the cross-tenant listing.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, useServer, type TestServer } from "./helpers/server.ts";

/** a port free right now (the same-host rule needs the dashboard's real port, not 0) */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

const dir = mkdtempSync(join(tmpdir(), "outpost-cors-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const htpasswd = join(dir, ".htpasswd");
writeFileSync(htpasswd, `team-a:${bcrypt.hashSync("pw-a", 5)}\n`);
const LISTED = "https://admin.example.com:8443";

const preflight = (url: string, origin: string, method = "GET") =>
  fetch(url, { method: "OPTIONS", headers: { Origin: origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": "authorization,x-scope-orgid" } });

describe("store CORS", () => {
  let server: TestServer;
  let dashboardOrigin = "";
  beforeAll(async () => {
    const port = await freePort();
    dashboardOrigin = `http://127.0.0.1:${port}`;
    server = await startTestServer({
      "dashboard.http_port": port,
      "server.cors_allowed_origins": [LISTED],
      "logs.auth_proxy.enabled": true,
      "logs.auth_proxy.htpasswd_file": htpasswd,
      "logs.auth_proxy.port": 0,
    });
    expect(server.urls.dashboard).toBe(`${dashboardOrigin}`);
  });
  afterAll(async () => {
    await server?.stop();
  });
  const stores = () => [
    ["metrics", `${server.urls.metrics}/api/v1/push`, "POST"],
    ["logs", `${server.urls.logs}/svc/api/v1/push`, "POST"],
    ["logs proxy", `${server.urls["logs proxy"]}/svc/api/v1/query_range`, "GET"],
  ] as const;

  it("OPTIONS preflight from the dashboard origin on the same host -> 204 with the CORS headers, no tenant or credentials needed", async () => {
    for (const [name, url, method] of stores()) {
      const r = await preflight(url, dashboardOrigin, method);
      expect(r.status, name).toBe(204);
      expect(r.headers.get("access-control-allow-origin"), name).toBe(dashboardOrigin);
      expect(r.headers.get("access-control-allow-methods"), name).toBe("GET, POST, PUT, DELETE, OPTIONS");
      expect(r.headers.get("access-control-allow-headers"), name).toBe(
        "Authorization, Content-Type, Content-Encoding, X-Scope-OrgID, X-Prometheus-Remote-Write-Version",
      );
      expect(r.headers.get("access-control-max-age"), name).toBe("600");
      expect(r.headers.get("vary"), name).toBe("Origin");
      expect(r.headers.get("access-control-allow-credentials"), name).toBeNull();
    }
  });

  it("preflight from an origin neither listed nor the dashboard here -> 403 origin not allowed", async () => {
    const port = new URL(dashboardOrigin).port;
    const refused = [
      "http://evil.example.com",
      `http://localhost:${port}`, // another hostname than the one the request came in on
      `https://127.0.0.1:${port}`, // the dashboard serves plain HTTP here
      `http://127.0.0.1:${Number(port) + 1}`,
      "null",
    ];
    for (const [name, url] of stores()) {
      for (const origin of refused) {
        const r = await preflight(url, origin);
        expect(r.status, `${name} ${origin}`).toBe(403);
        expect(await r.text()).toBe("origin not allowed\n");
        expect(r.headers.get("access-control-allow-origin")).toBeNull();
      }
    }
  });

  it("preflight from a configured origin (server.cors_allowed_origins) -> 204", async () => {
    for (const [name, url] of stores()) {
      const r = await preflight(url, LISTED);
      expect(r.status, name).toBe(204);
      expect(r.headers.get("access-control-allow-origin"), name).toBe(LISTED);
    }
  });

  it("a real GET with an allowed Origin gets Access-Control-Allow-Origin, Vary and the exposed headers; errors too", async () => {
    const headers = { Origin: dashboardOrigin };
    for (const url of [`${server.urls.metrics}/distributor/all_user_stats`, `${server.urls.logs}/distributor/all_user_stats`, `${server.urls.metrics}/ready`]) {
      const r = await fetch(url, { headers });
      expect(r.status, url).toBe(200);
      expect(r.headers.get("access-control-allow-origin"), url).toBe(dashboardOrigin);
      expect(r.headers.get("access-control-expose-headers"), url).toBe("Content-Type, WWW-Authenticate");
      expect(r.headers.get("vary"), url).toBe("Origin");
    }
    // the page can read why a request failed
    const noTenant = await fetch(`${server.urls.metrics}/api/v1/user_stats`, { headers });
    expect(noTenant.status).toBe(401);
    expect(noTenant.headers.get("access-control-allow-origin")).toBe(dashboardOrigin);
    const tenant = await fetch(`${server.urls.logs}/svc/api/v1/labels`, { headers: { ...headers, "X-Scope-OrgID": "t1" } });
    expect(tenant.status).toBe(200);
    expect(tenant.headers.get("access-control-allow-origin")).toBe(dashboardOrigin);
  });

  it("requests without Origin, or from a refused origin, carry no CORS headers", async () => {
    const plain = await fetch(`${server.urls.metrics}/distributor/all_user_stats`);
    expect(plain.status).toBe(200);
    expect(plain.headers.get("access-control-allow-origin")).toBeNull();
    expect(plain.headers.get("vary")).toBeNull();
    const evil = await fetch(`${server.urls.logs}/distributor/all_user_stats`, { headers: { Origin: "http://evil.example.com" } });
    expect(evil.status).toBe(200);
    expect(evil.headers.get("access-control-allow-origin")).toBeNull();
    expect(evil.headers.get("vary")).toBe("Origin");
  });

  it("the auth proxy: CORS on its 401 and on forwarded answers; /distributor/all_user_stats and /metrics -> 403 cross-tenant endpoint", async () => {
    const proxy = server.urls["logs proxy"]!;
    const denied = await fetch(`${proxy}/svc/api/v1/labels`, { headers: { Origin: dashboardOrigin } });
    expect(denied.status).toBe(401);
    expect(denied.headers.get("access-control-allow-origin")).toBe(dashboardOrigin);
    expect(denied.headers.get("access-control-expose-headers")).toContain("WWW-Authenticate");
    const auth = `Basic ${btoa("team-a:pw-a")}`;
    const ok = await fetch(`${proxy}/svc/api/v1/labels`, { headers: { Origin: dashboardOrigin, Authorization: auth } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("access-control-allow-origin")).toBe(dashboardOrigin);
    expect(ok.headers.get("vary")).toBe("Origin");
    for (const path of ["/distributor/all_user_stats", "/Distributor/all_user_stats", "//distributor/all_user_stats/", "/metrics", "/METRICS/"]) {
      const variants: Array<Record<string, string>> = [{}, { Authorization: auth }, { Authorization: auth, Origin: dashboardOrigin }];
      for (const headers of variants) {
        const r = await fetch(`${proxy}${path}`, { headers });
        expect(r.status, path).toBe(403);
        expect(await r.text()).toBe("cross-tenant endpoint\n");
      }
    }
  });
});

describe("store CORS: server.cors_allowed_origins = *", () => {
  const t = useServer({ "server.cors_allowed_origins": ["*"] });
  it("any origin is allowed and echoed back (never a literal *)", async () => {
    const r = await preflight(`${t.server.urls.metrics}/api/v1/push`, "https://anywhere.example", "POST");
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-origin")).toBe("https://anywhere.example");
    const get = await fetch(`${t.server.urls.logs}/ready`, { headers: { Origin: "https://anywhere.example" } });
    expect(get.headers.get("access-control-allow-origin")).toBe("https://anywhere.example");
  });
});
