// Secrets at rest: on a real data dir, no secret (data source secureJsonData,
// the deprecated password fields, secure values, a provisioned data source's
// secrets, user passwords, service account tokens, the metrics admin token) is ever in any file of the
// data dir (PGlite's files and WAL included), in any table's text, in any
// response or in any log line, in plain text, base64 or hex.
import { readdirSync, readFileSync, statSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../../src/config/load.ts";
import { createLogger } from "../../../../src/lib/logger.ts";
import { startOutpost, type RunningServer } from "../../../../src/server.ts";
import { ADMIN, basic, bearer, client, type CallOptions, type Reply } from "../../../helpers/api.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-at-rest-"));
const dataDir = join(dir, "data");
const secrets: string[] = [];
const secret = (label: string) => {
  const s = `s3cr3t-${label}-${crypto.randomUUID()}`;
  secrets.push(s);
  return s;
};
const PROVISIONED = secret("provisioned");
const logs: string[] = [];
const replies: Reply[] = [];

/** the forms a secret could be written in: plain, hex, and base64 at each of the three alignments */
function forms(s: string): string[] {
  const bytes = Buffer.from(s);
  const base64 = [0, 1, 2].map((shift) => {
    const text = Buffer.concat([Buffer.alloc(shift), bytes]).toString("base64");
    // drop the characters that mix in the padding bytes or the end
    return text.slice(Math.ceil((shift * 4) / 3) + 1, -4);
  });
  const b64url = base64.map((b) => b.replace(/\+/g, "-").replace(/\//g, "_"));
  return [s, bytes.toString("hex"), bytes.toString("hex").toUpperCase(), ...base64, ...b64url];
}

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path).flatMap((entry) => filesUnder(join(path, entry)));
}

async function start(): Promise<RunningServer> {
  const file = join(dir, "outpost.yaml");
  writeFileSync(file, JSON.stringify({ datasources: [{ name: "From file", type: "loki", uid: "from-file", secureJsonData: { password: PROVISIONED } }] }));
  const logger = createLogger({ level: "debug", format: "json", write: (line) => logs.push(line) });
  const flags = { "storage.data_dir": dataDir, "dashboard.http_port": 0, "logs.http_port": 0, "metrics.http_port": 0, "server.log_format": "json" };
  // the metrics admin token, generated on first boot, is shown once: a secret from there on
  return startOutpost(loadConfig({ file, flags }), logger, {
    announce: (text) => secrets.push(/outpost-admin-[A-Za-z0-9_-]+/.exec(text)?.[0] ?? text),
  });
}

describe("secrets at rest", () => {
  let server: RunningServer | undefined;
  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const api = () => {
    const c = client(server!.urls.dashboard);
    const record = (call: (path: string, o?: CallOptions) => Promise<Reply>) => async (path: string, o?: CallOptions) => {
      const r = await call(path, o);
      replies.push(r);
      return r;
    };
    return { ...c, get: record(c.get), post: record(c.post), put: record(c.put), delete: record(c.delete) };
  };
  const SV = "/apis/secret.svc.app/v1beta1/namespaces/default/securevalues";

  it("secrets written through every API that takes one", async () => {
    server = await start();
    expect(secrets.some((s) => s.startsWith("outpost-admin-"))).toBe(true);
    const a = api();
    const ds = await a.post("/api/datasources", {
      auth: ADMIN, body: { name: "at rest", type: "prometheus", url: "http://x", basicAuth: true, basicAuthUser: "u", secureJsonData: { password: secret("ds-pw"), basicAuthPassword: secret("ds-basic"), token: secret("ds-token") } },
    });
    expect(ds.status).toBe(200);
    const uid = ds.body.datasource.uid;
    expect((await a.put(`/api/datasources/uid/${uid}`, { auth: ADMIN, body: { name: "at rest", type: "prometheus", secureJsonData: { password: secret("ds-pw2"), token: "" } } })).status).toBe(200);
    expect((await a.post("/api/datasources", { auth: ADMIN, body: { name: "legacy", type: "loki", password: secret("legacy-pw"), basicAuthPassword: secret("legacy-basic") } })).status).toBe(200);
    expect((await a.post(SV, { auth: ADMIN, body: { metadata: { name: "db" }, spec: { description: "db", value: secret("sv") } } })).status).toBe(201);
    expect((await a.put(`${SV}/db`, { auth: ADMIN, body: { metadata: { name: "db" }, spec: { description: "db v2", value: secret("sv2") } } })).status).toBe(200);
    expect((await a.post(SV, { auth: ADMIN, body: { metadata: { name: "gone" }, spec: { description: "deleted", value: secret("sv-deleted") } } })).status).toBe(201);
    expect((await a.delete(`${SV}/gone`, { auth: ADMIN })).status).toBe(200);
    expect((await a.post("/api/datasources", { auth: ADMIN, body: { name: "by ref", type: "loki", secureJsonData: { token: { name: "db" } } } })).status).toBe(200);
    // other secrets of the service: a user's password, a service account token
    const password = secret("user-pw");
    expect((await a.post("/api/admin/users", { auth: ADMIN, body: { login: "rest-user", password } })).status).toBe(200);
    expect((await a.get("/api/user", { auth: basic("rest-user", password) })).status).toBe(200);
    const sa = await a.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "rest bot", role: "Admin" } });
    const token = await a.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "t" } });
    expect(token.status).toBe(200);
    // shown once, by design: it is a secret from here on
    secrets.push(token.body.key);
    replies.pop();
    expect((await a.get("/api/datasources", { auth: bearer(token.body.key) })).status).toBe(200);
    for (const r of [await a.get(`/api/datasources/uid/${uid}`, { auth: ADMIN }), await a.get(SV, { auth: ADMIN }), await a.get("/api/datasources/name/legacy", { auth: ADMIN })]) {
      expect(r.status).toBe(200);
    }
  }, 60_000);

  it("no table's text holds a secret", async () => {
    const tables = await server!.db.pg.query<{ name: string }>(
      "select quote_ident(table_schema) || '.' || quote_ident(table_name) as name from information_schema.tables where table_schema not in ('pg_catalog', 'information_schema') and table_type = 'BASE TABLE'",
    );
    expect(tables.rows.map((t) => t.name)).toEqual(expect.arrayContaining(["public.secrets", "public.data_sources", "public.resources", "public.resource_history"]));
    let text = "";
    for (const t of tables.rows) {
      const rows = await server!.db.pg.query<{ row: string }>(`select t::text as row from ${t.name} t`);
      text += rows.rows.map((r) => r.row).join("\n");
    }
    expect(text).toContain("datasource:");
    for (const s of secrets) for (const f of forms(s)) expect(text).not.toContain(f);
  });

  it("a restart opens the sealed secrets with the data dir's key (the unchanged provisioned entry is not rewritten)", async () => {
    await server!.stop();
    server = await start();
    const r = await api().get("/api/datasources/uid/from-file", { auth: ADMIN });
    expect(r.body).toMatchObject({ version: 1, readOnly: true, secureJsonFields: { password: true } });
    await server!.stop();
    server = undefined;
  }, 60_000);

  it("no file of the data dir holds a secret, in any form; secret.key is the owner's alone", () => {
    const files = filesUnder(dataDir);
    expect(files.length).toBeGreaterThan(10);
    expect(files.some((f) => /pg_wal|pg_xlog/.test(f))).toBe(true);
    const needles = secrets.flatMap(forms).map((f) => Buffer.from(f));
    for (const file of files) {
      const bytes = readFileSync(file);
      for (const n of needles) expect({ file, found: bytes.includes(n) }).toEqual({ file, found: false });
    }
    expect(statSync(join(dataDir, "secret.key")).mode & 0o777).toBe(0o600);
  }, 60_000);

  it("no response and no log line holds a secret", () => {
    expect(replies.length).toBeGreaterThan(10);
    const text = JSON.stringify(replies.map((r) => r.body)) + logs.join("\n");
    expect(logs.length).toBeGreaterThan(10);
    for (const s of secrets) for (const f of forms(s)) expect(text).not.toContain(f);
  });
});
