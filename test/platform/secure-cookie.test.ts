// Issue 16 #10: the session cookie is Secure whenever browsers reach the
// dashboard over HTTPS: its own TLS listener, an https root_url (a TLS proxy in
// front), or security.cookie_secure; on plain HTTP it cannot be (the browser
// would drop it).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createCa, createServerCert } from "../../src/lib/pki.ts";
import { startTestServer } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-cookie-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ca = createCa();
const cert = createServerCert(ca, ["localhost", "127.0.0.1"]);
writeFileSync(join(dir, "server.pem"), cert.cert);
writeFileSync(join(dir, "server-key.pem"), cert.key);

/** POST /login over HTTPS (trusting the test CA); the Set-Cookie header */
function loginOverTls(url: string): Promise<{ status: number; setCookie: string }> {
  const body = JSON.stringify({ user: "admin", password: "admin" });
  return new Promise((resolve, reject) => {
    const req = request(`${url}/login`, { method: "POST", ca: ca.cert, headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode ?? 0, setCookie: [res.headers["set-cookie"] ?? []].flat().join("\n") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const loginOverHttp = async (url: string) => {
  const res = await fetch(`${url}/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ user: "admin", password: "admin" }) });
  return { status: res.status, setCookie: res.headers.get("set-cookie") ?? "" };
};

describe("the session cookie's Secure attribute", () => {
  it("dashboard TLS listener -> POST /login sets a Secure cookie; /logout clears it Secure too", async () => {
    const s = await startTestServer({
      "dashboard.http_tls_config.cert_file": join(dir, "server.pem"),
      "dashboard.http_tls_config.key_file": join(dir, "server-key.pem"),
    });
    try {
      expect(s.urls.dashboard).toMatch(/^https:\/\//);
      const r = await loginOverTls(s.urls.dashboard);
      expect(r.status).toBe(200);
      expect(r.setCookie).toMatch(/^svc_session=[^;]+;.*; Secure/);
      expect(r.setCookie).toMatch(/HttpOnly/);
    } finally {
      await s.stop();
    }
  }, 60_000);

  it("plain HTTP with an https root_url, or security.cookie_secure -> Secure", async () => {
    for (const flags of [{ "dashboard.root_url": "https://dash.corp.test/" }, { "security.cookie_secure": true }]) {
      const s = await startTestServer(flags);
      try {
        expect((await loginOverHttp(s.urls.dashboard)).setCookie).toMatch(/; Secure/);
      } finally {
        await s.stop();
      }
    }
  }, 60_000);

  it("plain HTTP and an http (or no) root_url -> not Secure (a browser would drop it)", async () => {
    const s = await startTestServer({ "dashboard.root_url": "http://localhost:3000/" });
    try {
      const r = await loginOverHttp(s.urls.dashboard);
      expect(r.status).toBe(200);
      expect(r.setCookie).not.toMatch(/Secure/);
    } finally {
      await s.stop();
    }
  }, 60_000);
});
