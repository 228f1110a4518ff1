// The five client_auth_type modes on the log store listener, against a client
// with no certificate, one the CA signed and a self-signed one (spec "Log
// store" 5). mTLS authenticates only: the tenant still comes from the header.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { createCa, createClientCert, createSelfSigned, createServerCert, type KeyPairPem } from "../../src/lib/pki.ts";
import { startTestServer } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-mtls-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const ca = createCa();
const server = createServerCert(ca, ["localhost", "127.0.0.1"]);
const client = createClientCert(ca, "shipper");
const stranger = createSelfSigned("stranger");
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const files = { cert: file("server.pem", server.cert), key: file("server-key.pem", server.key), ca: file("ca.pem", ca.cert) };

/** the status of GET <url><path>, or "refused" when the TLS connection is not accepted */
function get(url: string, path: string, identity?: KeyPairPem): Promise<number | "refused"> {
  return new Promise((resolve) => {
    const req = request(`${url}${path}`, { ca: ca.cert, ...(identity ? { cert: identity.cert, key: identity.key } : {}), headers: { "X-Scope-OrgID": "tls" }, timeout: 30_000 }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
    });
    req.on("error", () => resolve("refused"));
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

const MODES = {
  NoClientCert: { none: 200, signed: 200, self: 200 },
  RequestClientCert: { none: 200, signed: 200, self: 200 },
  RequireAnyClientCert: { none: "refused", signed: 200, self: 200 },
  VerifyClientCertIfGiven: { none: 200, signed: 200, self: "refused" },
  RequireAndVerifyClientCert: { none: "refused", signed: 200, self: "refused" },
} as const;

describe("mutual TLS on the store listeners", () => {
  for (const [mode, expected] of Object.entries(MODES)) {
    it(`${mode}: no certificate -> ${expected.none}, CA-signed -> ${expected.signed}, self-signed -> ${expected.self}`, async () => {
      const s = await startTestServer({
        "server.host": "127.0.0.1",
        "server.http_tls_config.cert_file": files.cert,
        "server.http_tls_config.key_file": files.key,
        "server.http_tls_config.client_auth_type": mode,
        "server.http_tls_config.client_ca_file": mode === "NoClientCert" ? "" : files.ca,
      });
      try {
        expect(s.urls.logs).toMatch(/^https:\/\//);
        expect(s.urls.metrics).toMatch(/^https:\/\//);
        expect(s.urls.dashboard).toMatch(/^http:\/\//);
        // the plain dashboard listener in the same process keeps working beside the TLS ones
        expect((await fetch(`${s.urls.dashboard}/api/health`)).status).toBe(200);
        const results = {
          none: await get(s.urls.logs!, "/svc/api/v1/labels"),
          signed: await get(s.urls.logs!, "/svc/api/v1/labels", client),
          self: await get(s.urls.logs!, "/svc/api/v1/labels", stranger),
        };
        expect(results).toEqual(expected);
      } finally {
        await s.stop();
      }
    }, 60_000);
  }

  it("the CA inline (client_ca) works like the file; a certificate never sets the tenant", async () => {
    const s = await startTestServer({
      "server.http_tls_config.cert_file": files.cert,
      "server.http_tls_config.key_file": files.key,
      "server.http_tls_config.client_auth_type": "RequireAndVerifyClientCert",
      "server.http_tls_config.client_ca": ca.cert,
    });
    try {
      expect(await get(s.urls.logs!, "/ready", client)).toBe(200);
      const noTenant = await new Promise<number>((resolve) => {
        request(`${s.urls.logs}/svc/api/v1/labels`, { ca: ca.cert, cert: client.cert, key: client.key }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        }).end();
      });
      expect(noTenant).toBe(401);
    } finally {
      await s.stop();
    }
  }, 60_000);

  it("client certificates without server TLS, or verification without a CA, are refused at startup", () => {
    expect(() => loadConfig({ flags: { "server.http_tls_config.client_auth_type": "RequireAndVerifyClientCert", "server.http_tls_config.client_ca_file": files.ca } }))
      .toThrow(/client certificates need server TLS first: set server.http_tls_config.cert_file and server.http_tls_config.key_file/);
    expect(() => loadConfig({ flags: { "server.http_tls_config.cert_file": files.cert, "server.http_tls_config.key_file": files.key, "server.http_tls_config.client_auth_type": "VerifyClientCertIfGiven" } }))
      .toThrow(/VerifyClientCertIfGiven needs a CA/);
    expect(() => loadConfig({ flags: { "server.http_tls_config.cert_file": files.cert } })).toThrow(/cert_file and key_file must be set together/);
    expect(() => loadConfig({ flags: { "server.http_tls_config.client_auth_type": "Sometimes" } })).toThrow(/client_auth_type/);
  });
});
