// Issue 16 #11: no dashboard answer may be framed by another site
// (X-Frame-Options: deny on every response, as the real product's default
// allow_embedding = false), nothing is content-sniffed, and the admin page
// carries a Content-Security-Policy: its own scripts and styles only, requests
// to itself and to the two stores it reads, never framed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../helpers/api.ts";
import { freePort } from "../helpers/browser.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("framing and sniffing headers on the dashboard listener", () => {
  const t = {} as { server: TestServer };
  const ports = { logs: 0, metrics: 0 };
  beforeAll(async () => {
    ports.logs = await freePort();
    ports.metrics = await freePort();
    t.server = await startTestServer({ "logs.http_port": ports.logs, "metrics.http_port": ports.metrics });
  }, 60_000);
  afterAll(async () => {
    await t.server?.stop();
  });

  it("API answers (200, 401, 404, 403 CSRF refusal) -> X-Frame-Options: deny, nosniff", async () => {
    const base = t.server.urls.dashboard;
    const answers = [
      await fetch(`${base}/api/health`),
      await fetch(`${base}/api/user`, { headers: { Authorization: ADMIN } }),
      await fetch(`${base}/api/user`),
      await fetch(`${base}/api/nowhere`, { headers: { Authorization: ADMIN } }),
      await fetch(`${base}/api/teams`, { method: "POST", headers: { Cookie: "svc_session=x", Origin: "http://evil.test", "Content-Type": "application/json" }, body: "{}" }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 200, 401, 404, 403]);
    for (const r of answers) {
      expect(r.headers.get("x-frame-options")).toBe("deny");
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("the admin page -> a CSP allowing itself and the stores on the host it was reached at, framed by no one", async () => {
    const res = await fetch(`${t.server.urls.dashboard}/`, { headers: { Accept: "text/html" } });
    expect(res.headers.get("x-frame-options")).toBe("deny");
    const csp = res.headers.get("content-security-policy") ?? "";
    const host = new URL(t.server.urls.dashboard).hostname;
    expect(csp).toContain("default-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    // and the default ports, which the page assumes for a user who may not read the settings
    expect(csp).toContain(`connect-src 'self' http://${host}:${ports.logs} http://${host}:${ports.metrics} http://${host}:3100 http://${host}:9009`);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it("the admin page's assets (script, stylesheet, icon) -> nosniff and deny", async () => {
    const base = t.server.urls.dashboard;
    const html = await (await fetch(`${base}/`)).text();
    const assets = [...html.matchAll(/(?:src|href)="(\/[^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThanOrEqual(3);
    for (const path of assets) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("deny");
    }
  });

  it("a hostile Host header cannot add directives to the page's CSP", async () => {
    const { request } = await import("node:http");
    const url = new URL(t.server.urls.dashboard);
    const csp = await new Promise<string>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path: "/", headers: { Host: "evil.test;script-src", Accept: "text/html" } }, (res) => {
        res.resume();
        resolve(String(res.headers["content-security-policy"] ?? ""));
      });
      req.on("error", reject);
      req.end();
    });
    expect(csp).toContain("default-src 'self'");
    expect(csp).not.toContain("evil.test");
    expect(csp).toMatch(/connect-src 'self'$/);
  });
});
