// A verified client certificate names the tenant (issue 22, opt-in:
// <store>.auth.tenant_from_client_cert and client_cert_allowed_tenants), with
// certificates written by `outpost certs` (writeCerts, what the command runs):
// for each field (cn, ou, san_dns, san_uri) on the log store and cn on the
// metrics store, a push without X-Scope-OrgID lands in the certificate's
// tenant, a header naming another tenant is 401, the same tenant is accepted,
// a tenant off the allow-list (or a field missing or not a tenant id) is 403,
// "*" allows any; without a certificate (VerifyClientCertIfGiven) the header
// decides; with the mapping off a certificate never names the tenant; in
// tokens mode the certificate names the tenant and a token is still needed.
// The peer certificate reaches the routes through listenTls (platform/tls.ts)
// on Node and Bun alike.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeCerts, type ClientSpec } from "../../src/cli/certs.ts";
import { loadConfig } from "../../src/config/load.ts";
import type { KeyPairPem } from "../../src/lib/pki.ts";
import { writeBody } from "../metrics/helpers.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-mtls-tenant-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const spec = (name: string, o: Partial<Omit<ClientSpec, "name">> = {}): ClientSpec => ({ name, ou: [], dns: [], uri: [], ...o });
const CLIENTS: ClientSpec[] = [
  spec("team-a"),
  spec("ou-client", { ou: ["team-b"] }),
  spec("dns-client", { dns: ["team-c.example"] }),
  spec("uri-client", { uri: ["spiffe://site/tenants/team-d"] }),
  // names a tenant off every allow-list below, by each field
  spec("other", { ou: ["other"], dns: ["other.example"], uri: ["spiffe://site/tenants/other"] }),
  // the first of several values names the tenant (team-b, team-c.example, team-d)
  spec("several", { ou: ["team-b", "second"], dns: ["team-c.example", "second.example"], uri: ["spiffe://site/tenants/team-d", "spiffe://site/tenants/second"] }),
  // a common name only
  spec("bare"),
  // an organizational unit and a URI whose last segment are not tenant ids
  spec("bad", { ou: ["team b"], uri: ["spiffe://site/tenants/team%20b"] }),
];

interface Files {
  ca: string;
  cert: string;
  key: string;
  clients: Record<string, KeyPairPem>;
}
let files: Files;
beforeAll(async () => {
  const out = join(dir, "certs");
  await writeCerts({ out, hosts: "localhost,127.0.0.1", clients: CLIENTS, days: "30" });
  const read = (name: string) => readFileSync(join(out, name), "utf8");
  files = {
    ca: join(out, "ca.pem"),
    cert: join(out, "server.pem"),
    key: join(out, "server-key.pem"),
    clients: Object.fromEntries(CLIENTS.map((c) => [c.name, { cert: read(`${c.name}.pem`), key: read(`${c.name}-key.pem`) }])),
  };
});

type Mode = "RequireAndVerifyClientCert" | "VerifyClientCertIfGiven";
const tlsFlags = (mode: Mode) => ({
  "server.http_tls_config.cert_file": files.cert,
  "server.http_tls_config.key_file": files.key,
  "server.http_tls_config.client_auth_type": mode,
  "server.http_tls_config.client_ca_file": files.ca,
});

interface Reply {
  status: number | "refused";
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

interface Call {
  method?: string;
  /** the client certificate's name (CLIENTS); none when absent */
  cert?: string;
  /** X-Scope-OrgID */
  tenant?: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
}

/** a request over HTTPS with the CA of `outpost certs`; "refused" when the TLS connection is not accepted */
function call(url: string, c: Call = {}): Promise<Reply> {
  const identity = c.cert === undefined ? undefined : files.clients[c.cert]!;
  const ca = readFileSync(files.ca, "utf8");
  const headers = { ...(c.tenant === undefined ? {} : { "X-Scope-OrgID": c.tenant }), ...c.headers };
  return new Promise((resolve) => {
    const req = request(url, { method: c.method ?? "GET", ca, ...(identity ?? {}), headers, agent: false, timeout: 30_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (b: Buffer) => chunks.push(b));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, body });
      });
    });
    req.on("error", () => resolve({ status: "refused", text: "", body: undefined }));
    req.on("timeout", () => req.destroy());
    req.end(c.body);
  });
}

let serial = 0;
const nowNs = () => String(BigInt(Date.now() - 1000) * 1_000_000n);

/** log store: push one unique line, and read back the lines a caller sees */
const logs = {
  line: (what: string) => `${what} #${++serial}`,
  push: (s: TestServer, line: string, c: Call = {}) =>
    call(`${s.urls.logs}/svc/api/v1/push`, {
      ...c,
      method: "POST",
      headers: { "Content-Type": "application/json", ...c.headers },
      body: JSON.stringify({ streams: [{ stream: { app: "mtls-tenant" }, values: [[nowNs(), line]] }] }),
    }),
  async lines(s: TestServer, c: Call = {}): Promise<string[]> {
    const r = await call(`${s.urls.logs}/svc/api/v1/query_range?${new URLSearchParams({ query: '{app="mtls-tenant"}', limit: "1000" })}`, c);
    if (r.status !== 200) throw new Error(`query: ${r.status} ${r.text}`);
    return (r.body.data.result as Array<{ values: Array<[string, string]> }>).flatMap((st) => st.values.map((v) => v[1]));
  },
};

/** metrics store: remote write one sample of mtls_tenant_up{n=<n>}, and read back the n a caller sees */
const metrics = {
  push: (s: TestServer, n: string, c: Call = {}) =>
    call(`${s.urls.metrics}/api/v1/push`, {
      ...c,
      method: "POST",
      headers: { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0", ...c.headers },
      body: writeBody([{ labels: { __name__: "mtls_tenant_up", n }, samples: [[Date.now() - 1000, 1]] }]),
    }),
  async ns(s: TestServer, c: Call = {}): Promise<string[]> {
    const r = await call(`${s.urls.metrics}/prometheus/api/v1/query?${new URLSearchParams({ query: "mtls_tenant_up" })}`, c);
    if (r.status !== 200) throw new Error(`query: ${r.status} ${r.text}`);
    return (r.body.data.result as Array<{ metric: { n: string } }>).map((x) => x.metric.n).sort();
  },
};

/** a server for the enclosing describe block, started once the certificates exist */
function useTlsServer(flags: () => Record<string, unknown>): { s: TestServer } {
  const ctx = {} as { s: TestServer };
  beforeAll(async () => {
    ctx.s = await startTestServer(flags());
  });
  afterAll(async () => {
    await ctx.s?.stop();
  });
  return ctx;
}

interface FieldCase {
  field: "cn" | "ou" | "san_dns" | "san_uri";
  /** the certificate whose field names `tenant` */
  cert: string;
  tenant: string;
  /** the tenant the certificate "other" names by this field */
  other: string;
  /** a certificate without the field */
  missing?: string;
  /** a certificate whose field is not a tenant id */
  invalid?: string;
  /** a certificate with several values of the field, the first naming `tenant` */
  several?: string;
}

const FIELDS: FieldCase[] = [
  { field: "cn", cert: "team-a", tenant: "team-a", other: "other" },
  { field: "ou", cert: "ou-client", tenant: "team-b", other: "other", missing: "bare", invalid: "bad", several: "several" },
  { field: "san_dns", cert: "dns-client", tenant: "team-c.example", other: "other.example", missing: "bare", several: "several" },
  { field: "san_uri", cert: "uri-client", tenant: "team-d", other: "other", missing: "bare", invalid: "bad", several: "several" },
];

for (const f of FIELDS) {
  describe(`log store, tenant from the client certificate's ${f.field}`, () => {
    describe(`RequireAndVerifyClientCert, allowed: ${f.tenant}`, () => {
      const t = useTlsServer(() => ({
        ...tlsFlags("RequireAndVerifyClientCert"),
        "logs.auth.tenant_from_client_cert": f.field,
        "logs.auth.client_cert_allowed_tenants": [f.tenant],
      }));

      it(`a push without X-Scope-OrgID lands in tenant ${f.tenant}`, async () => {
        const line = logs.line(f.field);
        const pushed = await logs.push(t.s, line, { cert: f.cert });
        expect(pushed.status, pushed.text).toBe(204);
        // read back as that tenant: named by the certificate alone, and by an agreeing header
        expect(await logs.lines(t.s, { cert: f.cert })).toContain(line);
        expect(await logs.lines(t.s, { cert: f.cert, tenant: f.tenant })).toContain(line);
      });

      it("X-Scope-OrgID naming another tenant is refused with 401", async () => {
        const pushed = await logs.push(t.s, logs.line("conflict"), { cert: f.cert, tenant: "someone-else" });
        expect(pushed.status).toBe(401);
        expect(pushed.text).toContain(`the client certificate is for tenant ${f.tenant}, and the request names someone-else`);
        expect((await call(`${t.s.urls.logs}/svc/api/v1/labels`, { cert: f.cert, tenant: "someone-else" })).status).toBe(401);
        // several tenants do not agree with one either
        expect((await call(`${t.s.urls.logs}/svc/api/v1/labels`, { cert: f.cert, tenant: `${f.tenant}|someone-else` })).status).toBe(400);
      });

      it("X-Scope-OrgID naming the same tenant is accepted", async () => {
        const line = logs.line("same");
        expect((await logs.push(t.s, line, { cert: f.cert, tenant: f.tenant })).status).toBe(204);
        expect(await logs.lines(t.s, { cert: f.cert })).toContain(line);
      });

      it(`a certificate naming a tenant off the allow-list (${f.other}) is refused with 403, header or not`, async () => {
        for (const tenant of [undefined, f.other, f.tenant]) {
          const pushed = await logs.push(t.s, logs.line("outsider"), { cert: "other", ...(tenant ? { tenant } : {}) });
          expect(pushed.status).toBe(403);
          expect(pushed.text).toContain(`the client certificate's tenant ${f.other} is not in the allowed list`);
        }
        expect((await call(`${t.s.urls.logs}/svc/api/v1/labels`, { cert: "other", tenant: f.tenant })).status).toBe(403);
      });

      if (f.missing) {
        it(`a certificate without ${f.field} is refused with 403`, async () => {
          const pushed = await logs.push(t.s, logs.line("missing"), { cert: f.missing, tenant: f.tenant });
          expect(pushed.status).toBe(403);
          expect(pushed.text).toContain(`the client certificate has no ${f.field} to take the tenant from`);
        });
      }

      if (f.invalid) {
        it(`a certificate whose ${f.field} is not a tenant id is refused with 403`, async () => {
          const pushed = await logs.push(t.s, logs.line("invalid"), { cert: f.invalid });
          expect(pushed.status).toBe(403);
          expect(pushed.text).toContain(`the client certificate's ${f.field} is not a tenant id`);
        });
      }

      if (f.several) {
        it(`of several values of ${f.field}, the first names the tenant`, async () => {
          const line = logs.line("several");
          expect((await logs.push(t.s, line, { cert: f.several })).status).toBe(204);
          expect(await logs.lines(t.s, { cert: f.cert })).toContain(line);
        });
      }

      it("the listener still refuses a client without a certificate (the mode is unchanged)", async () => {
        expect((await logs.push(t.s, logs.line("none"), { tenant: f.tenant })).status).toBe("refused");
      });
    });

    describe("VerifyClientCertIfGiven, allowed: *", () => {
      const t = useTlsServer(() => ({
        ...tlsFlags("VerifyClientCertIfGiven"),
        "logs.auth.tenant_from_client_cert": f.field,
        "logs.auth.client_cert_allowed_tenants": ["*"],
      }));

      it("* allows any tenant; each certificate sees only its own tenant's lines", async () => {
        const mine = logs.line("mine");
        const theirs = logs.line("theirs");
        expect((await logs.push(t.s, mine, { cert: f.cert })).status).toBe(204);
        expect((await logs.push(t.s, theirs, { cert: "other" })).status).toBe(204);
        const seenByMe = await logs.lines(t.s, { cert: f.cert });
        expect(seenByMe).toContain(mine);
        expect(seenByMe).not.toContain(theirs);
        const seenByThem = await logs.lines(t.s, { cert: "other" });
        expect(seenByThem).toContain(theirs);
        expect(seenByThem).not.toContain(mine);
        // the same, named by the header without a certificate
        expect(await logs.lines(t.s, { tenant: f.other })).toEqual(seenByThem);
        expect(await logs.lines(t.s, { tenant: f.tenant })).toEqual(seenByMe);
      });

      it("without a certificate the header decides", async () => {
        const line = logs.line("no-cert");
        expect((await logs.push(t.s, line, { tenant: "plain" })).status).toBe(204);
        expect(await logs.lines(t.s, { tenant: "plain" })).toEqual([line]);
        const none = await logs.push(t.s, logs.line("no-cert"), {});
        expect(none.status).toBe(401);
        expect(none.text).toContain("no org id");
      });
    });
  });
}

describe("metrics store, tenant from the client certificate's cn", () => {
  describe("RequireAndVerifyClientCert, allowed: team-a", () => {
    const t = useTlsServer(() => ({
      ...tlsFlags("RequireAndVerifyClientCert"),
      "metrics.auth.tenant_from_client_cert": "cn",
      "metrics.auth.client_cert_allowed_tenants": ["team-a"],
    }));

    it("a push without X-Scope-OrgID lands in tenant team-a; another tenant is 401, the same accepted, one off the list 403", async () => {
      const pushed = await metrics.push(t.s, "1", { cert: "team-a" });
      expect(pushed.status, pushed.text).toBe(200);
      expect(await metrics.ns(t.s, { cert: "team-a" })).toEqual(["1"]);
      expect(await metrics.ns(t.s, { cert: "team-a", tenant: "team-a" })).toEqual(["1"]);

      const conflict = await metrics.push(t.s, "2", { cert: "team-a", tenant: "team-b" });
      expect(conflict.status).toBe(401);
      expect(conflict.text).toContain("the client certificate is for tenant team-a, and the request names team-b");
      expect((await call(`${t.s.urls.metrics}/prometheus/api/v1/query?query=up`, { cert: "team-a", tenant: "team-b" })).status).toBe(401);
      // the basic auth user name is a tenant too
      const basic = `Basic ${Buffer.from("team-b:x").toString("base64")}`;
      expect((await metrics.push(t.s, "2", { cert: "team-a", headers: { Authorization: basic } })).status).toBe(200);

      expect((await metrics.push(t.s, "3", { cert: "team-a", tenant: "team-a" })).status).toBe(200);
      const outsider = await metrics.push(t.s, "4", { cert: "other", tenant: "team-a" });
      expect(outsider.status).toBe(403);
      expect(outsider.text).toContain("the client certificate's tenant other is not in the allowed list");
      expect(await metrics.ns(t.s, { cert: "team-a" })).toEqual(["1", "2", "3"]);
    });

    it("a mapped certificate is one tenant's client: the endpoints that show every tenant refuse it with 403 (review finding)", async () => {
      for (const path of ["/distributor/all_user_stats", "/runtime_config", "/metrics", "/config"]) {
        const r = await call(`${t.s.urls.metrics}${path}`, { cert: "team-a" });
        expect(r.status, path).toBe(403);
        expect(r.text).toContain("the client certificate is for tenant team-a, and this endpoint shows every tenant");
      }
      // the log store, its mapping off, keeps them open (header mode)
      expect((await call(`${t.s.urls.logs}/distributor/all_user_stats`, { cert: "team-a" })).status).toBe(200);
    });

    it("the log store, its mapping off, still takes the tenant from the header", async () => {
      const line = logs.line("logs-off");
      expect((await logs.push(t.s, line, { cert: "team-a", tenant: "x" })).status).toBe(204);
      expect(await logs.lines(t.s, { cert: "team-a", tenant: "x" })).toEqual([line]);
      expect((await logs.push(t.s, logs.line("logs-off"), { cert: "team-a" })).status).toBe(401);
    });
  });

  describe("VerifyClientCertIfGiven, allowed: *", () => {
    const t = useTlsServer(() => ({
      ...tlsFlags("VerifyClientCertIfGiven"),
      "metrics.auth.tenant_from_client_cert": "cn",
      "metrics.auth.client_cert_allowed_tenants": ["*"],
    }));

    it("* allows any tenant; without a certificate the header decides", async () => {
      expect((await metrics.push(t.s, "a", { cert: "team-a" })).status).toBe(200);
      expect((await metrics.push(t.s, "o", { cert: "other" })).status).toBe(200);
      expect((await metrics.push(t.s, "p", { tenant: "plain" })).status).toBe(200);
      expect(await metrics.ns(t.s, { cert: "team-a" })).toEqual(["a"]);
      expect(await metrics.ns(t.s, { cert: "other" })).toEqual(["o"]);
      expect(await metrics.ns(t.s, { tenant: "other" })).toEqual(["o"]);
      expect(await metrics.ns(t.s, { tenant: "plain" })).toEqual(["p"]);
      expect((await metrics.push(t.s, "q", {})).status).toBe(401);
    });
  });
});

describe("mapping off (the default): a certificate never names the tenant", () => {
  const t = useTlsServer(() => tlsFlags("RequireAndVerifyClientCert"));

  it("both stores take the tenant from X-Scope-OrgID alone", async () => {
    const line = logs.line("off");
    expect((await logs.push(t.s, line, { cert: "team-a", tenant: "x" })).status).toBe(204);
    expect(await logs.lines(t.s, { cert: "other", tenant: "x" })).toEqual([line]);
    expect((await logs.push(t.s, logs.line("off"), { cert: "team-a" })).status).toBe(401);
    expect((await metrics.push(t.s, "x", { cert: "team-a", tenant: "x" })).status).toBe(200);
    expect(await metrics.ns(t.s, { cert: "other", tenant: "x" })).toEqual(["x"]);
    expect((await metrics.push(t.s, "y", { cert: "team-a" })).status).toBe(401);
    expect(await metrics.ns(t.s, { cert: "team-a", tenant: "team-a" })).toEqual([]);
  });
});

describe("tokens mode: the certificate names the tenant, a token is still required", () => {
  const ADMIN = "outpost-admin-mtls-tenant-0123456789";
  const t = useTlsServer(() => ({
    ...tlsFlags("VerifyClientCertIfGiven"),
    "logs.auth.type": "tokens",
    "logs.auth.tenant_from_client_cert": "cn",
    "logs.auth.client_cert_allowed_tenants": ["team-a", "other"],
    "metrics.admin_token": ADMIN,
  }));
  const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
  let token = "";
  beforeAll(async () => {
    const admin = (path: string, body: unknown) =>
      call(`${t.s.urls.metrics}/admin/api/v3/${path}`, { method: "POST", headers: { Authorization: basic("", ADMIN), "Content-Type": "application/json" }, body: JSON.stringify(body) });
    const policy = await admin("accesspolicies", { name: "team-a-logs", display_name: "team-a-logs", realms: [{ tenant: "team-a" }], scopes: ["logs:write", "logs:read"] });
    expect(policy.status, policy.text).toBe(200);
    const made = await admin("tokens", { name: "team-a-logs", access_policy: "team-a-logs" });
    expect(made.status, made.text).toBe(200);
    token = made.body.token as string;
  });

  it("certificate and token: the push lands in the certificate's tenant", async () => {
    const line = logs.line("tokens");
    expect((await logs.push(t.s, line, { cert: "team-a", headers: { Authorization: `Bearer ${token}` } })).status).toBe(204);
    expect(await logs.lines(t.s, { cert: "team-a", headers: { Authorization: `Bearer ${token}` } })).toContain(line);
    expect((await logs.push(t.s, logs.line("tokens"), { cert: "team-a", headers: { Authorization: basic("team-a", token) } })).status).toBe(204);
  });

  it("a certificate without a token is 401; a user name naming another tenant is 401; a token not reaching the certificate's tenant is 403", async () => {
    expect((await logs.push(t.s, logs.line("tokens"), { cert: "team-a" })).status).toBe(401);
    expect((await logs.push(t.s, logs.line("tokens"), { cert: "team-a", tenant: "team-a" })).status).toBe(401);
    const user = await logs.push(t.s, logs.line("tokens"), { cert: "team-a", headers: { Authorization: basic("other", token) } });
    expect(user.status).toBe(401);
    expect(user.text).toContain("the client certificate is for tenant team-a");
    const reach = await logs.push(t.s, logs.line("tokens"), { cert: "other", headers: { Authorization: `Bearer ${token}` } });
    expect(reach.status).toBe(403);
    expect(reach.text).toContain('access policy "team-a-logs" does not reach tenant other');
  });

  it("without a certificate the mode decides alone", async () => {
    expect((await logs.push(t.s, logs.line("tokens"), { headers: { Authorization: basic("team-a", token) } })).status).toBe(204);
    expect((await logs.push(t.s, logs.line("tokens"), { tenant: "team-a" })).status).toBe(401);
  });
});

describe("config: the mapping is refused where it could not work", () => {
  const tls = () => ({
    "server.http_tls_config.cert_file": files.cert,
    "server.http_tls_config.key_file": files.key,
    "server.http_tls_config.client_ca_file": files.ca,
  });

  it("needs a client_auth_type that verifies certificates", () => {
    for (const mode of ["", "NoClientCert", "RequestClientCert", "RequireAnyClientCert"]) {
      expect(() =>
        loadConfig({ flags: { ...tls(), "server.http_tls_config.client_auth_type": mode, "logs.auth.tenant_from_client_cert": "cn", "logs.auth.client_cert_allowed_tenants": ["*"] } }),
      ).toThrow(/logs\.auth\.tenant_from_client_cert \(from --logs-tenant-from-client-cert\): only verified certificates name a tenant: set server\.http_tls_config\.client_auth_type to RequireAndVerifyClientCert or VerifyClientCertIfGiven/);
    }
    // without TLS at all
    expect(() => loadConfig({ flags: { "metrics.auth.tenant_from_client_cert": "san_uri", "metrics.auth.client_cert_allowed_tenants": ["a"] } }))
      .toThrow(/metrics\.auth\.tenant_from_client_cert \(from --metrics-tenant-from-client-cert\): only verified certificates name a tenant/);
  });

  it("needs an allow-list", () => {
    expect(() => loadConfig({ flags: { ...tls(), "server.http_tls_config.client_auth_type": "VerifyClientCertIfGiven", "metrics.auth.tenant_from_client_cert": "ou" } }))
      .toThrow(/metrics\.auth\.client_cert_allowed_tenants \(default\): list the tenants a certificate may name, or \* for any/);
  });

  it("takes only cn, ou, san_dns, san_uri or nothing", () => {
    expect(() => loadConfig({ flags: { ...tls(), "server.http_tls_config.client_auth_type": "VerifyClientCertIfGiven", "logs.auth.tenant_from_client_cert": "email", "logs.auth.client_cert_allowed_tenants": ["*"] } }))
      .toThrow(/logs\.auth\.tenant_from_client_cert/);
  });

  it("a verifying mode and an allow-list load; off is the default", () => {
    const c = loadConfig({ flags: { ...tls(), "server.http_tls_config.client_auth_type": "RequireAndVerifyClientCert", "logs.auth.tenant_from_client_cert": "san_uri", "logs.auth.client_cert_allowed_tenants": ["a", "b"] } });
    expect(c.logs.auth.tenant_from_client_cert).toBe("san_uri");
    expect(c.logs.auth.client_cert_allowed_tenants).toEqual(["a", "b"]);
    expect(c.metrics.auth.tenant_from_client_cert).toBe("");
    expect(c.metrics.auth.client_cert_allowed_tenants).toEqual([]);
  });
});
