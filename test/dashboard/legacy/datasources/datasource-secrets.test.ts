// Data source secrets (spec "Data source", reference §4, conformance checks
// 79-81): secureJsonData is write-only and sealed at rest; password and
// basicAuthPassword are always ""; an update keeps a secret it leaves out and
// clears one sent as ""; a key may name a secure value instead.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const secret = (label: string) => `s3cr3t-${label}-${crypto.randomUUID()}`;
const prom = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: "prometheus", access: "proxy", url: "http://x:9090", ...extra });

describe("data source secrets", () => {
  const t = useServer({ "server.edition": "enterprise" });
  const seen: string[] = [];
  const pw = (label: string) => {
    const s = secret(label);
    seen.push(s);
    return s;
  };
  const rows = async (id: number) =>
    (await t.server.db.pg.query<{ field: string; sealed: string }>("select field, sealed from secrets where owner = $1 order by field", [`datasource:${id}`])).rows;
  const rawRow = async (id: number) =>
    JSON.stringify((await t.server.db.pg.query("select * from data_sources where id = $1", [id])).rows[0]);
  const everything = async (d: { id: number; uid: string; name: string }) =>
    JSON.stringify([
      (await t.api.get(`/api/datasources/uid/${d.uid}`, { auth: ADMIN })).body,
      (await t.api.get(`/api/datasources/name/${encodeURIComponent(d.name)}`, { auth: ADMIN })).body,
      (await t.api.get(`/api/datasources/${d.id}`, { auth: ADMIN })).body,
      (await t.api.get("/api/datasources", { auth: ADMIN })).body,
      await rawRow(d.id),
      await rows(d.id),
    ]);

  it("POST with secureJsonData -> secureJsonFields lists the keys, password and basicAuthPassword are \"\", no value anywhere (79, 80)", async () => {
    const values = { password: pw("pw"), basicAuthPassword: pw("basic"), httpHeaderValue1: pw("header") };
    const r = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("with secrets", { basicAuth: true, basicAuthUser: "u", secureJsonData: values }) });
    expect(r.status).toBe(200);
    const ds = r.body.datasource;
    expect(ds.secureJsonFields).toEqual({ basicAuthPassword: true, httpHeaderValue1: true, password: true });
    expect([ds.password, ds.basicAuthPassword]).toEqual(["", ""]);
    expect(ds).not.toHaveProperty("secureJsonData");
    const got = await t.api.get(`/api/datasources/uid/${ds.uid}`, { auth: ADMIN });
    expect(got.body.secureJsonFields).toEqual({ basicAuthPassword: true, httpHeaderValue1: true, password: true });
    expect(got.body).not.toHaveProperty("secureJsonData");
    expect((await rows(ds.id)).map((x) => x.field)).toEqual(["basicAuthPassword", "httpHeaderValue1", "password"]);
    const all = JSON.stringify(r.body) + (await everything(ds));
    for (const v of Object.values(values)) expect(all).not.toContain(v);
  });

  it("PUT without secureJsonData keeps the secrets (81); a key with \"\" clears it; a new value replaces it", async () => {
    const d = (await t.api.post("/api/datasources", { auth: ADMIN, body: prom("keep", { secureJsonData: { password: pw("keep"), token: pw("token") } }) })).body.datasource;
    const before = await rows(d.id);
    const kept = await t.api.put(`/api/datasources/uid/${d.uid}`, { auth: ADMIN, body: prom("keep", { url: "http://x:9090/other-path" }) });
    expect(kept.status).toBe(200);
    expect(kept.body.datasource.secureJsonFields).toEqual({ password: true, token: true });
    expect((await t.api.get(`/api/datasources/uid/${d.uid}`, { auth: ADMIN })).body.secureJsonFields).toEqual({ password: true, token: true });
    expect(await rows(d.id)).toEqual(before);

    const cleared = await t.api.put(`/api/datasources/uid/${d.uid}`, { auth: ADMIN, body: prom("keep", { secureJsonData: { token: "" } }) });
    expect(cleared.body.datasource.secureJsonFields).toEqual({ password: true });
    expect(await rows(d.id)).toEqual(before.filter((x) => x.field === "password"));

    const replaced = await t.api.put(`/api/datasources/uid/${d.uid}`, { auth: ADMIN, body: prom("keep", { secureJsonData: { password: pw("replaced") } }) });
    expect(replaced.body.datasource.secureJsonFields).toEqual({ password: true });
    const after = await rows(d.id);
    expect(after).toHaveLength(1);
    expect(after[0]!.sealed).not.toBe(before.find((x) => x.field === "password")!.sealed);
    // clearing a key that holds nothing is no error
    expect((await t.api.put(`/api/datasources/uid/${d.uid}`, { auth: ADMIN, body: prom("keep", { secureJsonData: { nothing: "" } }) })).status).toBe(200);
    expect(await everything(d)).not.toMatch(/s3cr3t-/);
  });

  it("the DTO sent back as it was read (password \"\", secureJsonFields, readOnly, id, orgId) keeps the secrets and changes only what differs", async () => {
    const d = (await t.api.post("/api/datasources", { auth: ADMIN, body: prom("round trip", { secureJsonData: { password: pw("rt"), basicAuthPassword: pw("rt-basic") } }) })).body.datasource;
    const dto = (await t.api.get(`/api/datasources/uid/${d.uid}`, { auth: ADMIN })).body;
    const r = await t.api.put(`/api/datasources/uid/${d.uid}`, {
      auth: ADMIN, body: { ...dto, url: "http://round-trip:9090", id: 424242, orgId: 7, readOnly: true, typeName: "x", accessControl: {}, apiVersion: "" },
    });
    expect(r.status).toBe(200);
    expect(r.body.datasource).toEqual({ ...dto, url: "http://round-trip:9090", version: 2 });
    expect(await everything(d)).not.toMatch(/s3cr3t-/);
  });

  it("the deprecated top-level password and basicAuthPassword are sealed as secureJsonData, never stored in the clear", async () => {
    const password = pw("legacy");
    const basicAuthPassword = pw("legacy-basic");
    const r = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("legacy pw", { password, basicAuth: true, basicAuthUser: "u", basicAuthPassword }) });
    expect(r.status).toBe(200);
    expect(r.body.datasource).toMatchObject({ password: "", basicAuthPassword: "", secureJsonFields: { password: true, basicAuthPassword: true } });
    const d = r.body.datasource;
    // secureJsonData wins over the deprecated field
    const both = await t.api.put(`/api/datasources/uid/${d.uid}`, { auth: ADMIN, body: prom("legacy pw", { password: pw("ignored"), secureJsonData: { password: "" } }) });
    expect(both.body.datasource.secureJsonFields).toEqual({ basicAuthPassword: true });
    const all = JSON.stringify([r.body, both.body]) + (await everything(d));
    for (const v of seen) expect(all).not.toContain(v);
  });

  it("secureJsonData naming a secure value -> 200, listed in secureJsonFields; a missing secure value -> 400", async () => {
    const value = pw("sv");
    const sv = await t.api.post("/apis/secret.svc.app/v1beta1/namespaces/default/securevalues", {
      auth: ADMIN, body: { metadata: { name: "ds-token" }, spec: { description: "a token", value } },
    });
    expect(sv.status).toBe(201);
    const r = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("by ref", { secureJsonData: { token: { name: "ds-token" }, password: pw("beside") } }) });
    expect(r.status).toBe(200);
    const d = r.body.datasource;
    expect(d.secureJsonFields).toEqual({ password: true, token: true });
    expect((await rows(d.id)).map((x) => x.field)).toEqual(["password"]);
    expect((await t.server.db.pg.query<{ secure_refs: unknown }>("select secure_refs from data_sources where id = $1", [d.id])).rows[0]!.secure_refs).toEqual({ token: "ds-token" });
    // a plain value replaces the reference, "" clears it
    const plain = await t.api.put(`/api/datasources/uid/${d.uid}`, { auth: ADMIN, body: prom("by ref", { secureJsonData: { token: pw("plain") } }) });
    expect(plain.body.datasource.secureJsonFields).toEqual({ password: true, token: true });
    expect((await rows(d.id)).map((x) => x.field)).toEqual(["password", "token"]);
    const back = await t.api.put(`/api/datasources/uid/${d.uid}`, { auth: ADMIN, body: prom("by ref", { secureJsonData: { token: { name: "ds-token" } } }) });
    expect(back.status).toBe(200);
    expect((await rows(d.id)).map((x) => x.field)).toEqual(["password"]);
    const gone = await t.api.put(`/api/datasources/uid/${d.uid}`, { auth: ADMIN, body: prom("by ref", { secureJsonData: { token: "" } }) });
    expect(gone.body.datasource.secureJsonFields).toEqual({ password: true });
    expect((await t.server.db.pg.query<{ secure_refs: unknown }>("select secure_refs from data_sources where id = $1", [d.id])).rows[0]!.secure_refs).toEqual({});

    const missing = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("missing ref", { secureJsonData: { token: { name: "no-such-value" } } }) });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/secureJsonData\.token: secure value "no-such-value" not found/);
    expect((await t.api.get("/api/datasources/name/missing%20ref", { auth: ADMIN })).status).toBe(404);
    expect(JSON.stringify([r.body, plain.body, back.body]) + (await everything(d))).not.toContain(value);
  });

  it("naming a secure value without secret.securevalues:read -> 403, and nothing is written", async () => {
    await t.api.post("/apis/secret.svc.app/v1beta1/namespaces/default/securevalues", {
      auth: ADMIN, body: { metadata: { name: "not-yours" }, spec: { description: "admin only", value: pw("not-yours") } },
    });
    const user = await t.api.user("ds-maker", "None");
    const role = await t.api.post("/api/access-control/roles", {
      auth: ADMIN,
      body: { name: "custom:ds-maker", permissions: [{ action: "datasources:create" }, { action: "datasources:read", scope: "datasources:*" }, { action: "datasources:write", scope: "datasources:*" }] },
    });
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "ds makers" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: user.id } });
    expect((await t.api.put(`/api/access-control/teams/${team.body.teamId}/roles`, { auth: ADMIN, body: { roleUids: [role.body.uid] } })).status).toBe(200);

    const denied = await t.api.post("/api/datasources", { auth: user.auth, body: prom("stolen", { secureJsonData: { token: { name: "not-yours" } } }) });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toMatch(/secret\.securevalues:read/);
    expect((await t.api.get("/api/datasources/name/stolen", { auth: ADMIN })).status).toBe(404);
    // the same caller may create data sources with plain secrets, but not point one at the secure value later
    const own = await t.api.post("/api/datasources", { auth: user.auth, body: prom("own", { secureJsonData: { token: pw("own") } }) });
    expect(own.status).toBe(200);
    const later = await t.api.put(`/api/datasources/uid/${own.body.datasource.uid}`, { auth: user.auth, body: prom("own", { secureJsonData: { token: { name: "not-yours" } } }) });
    expect(later.status).toBe(403);
    expect((await t.api.get(`/api/datasources/uid/${own.body.datasource.uid}`, { auth: ADMIN })).body.version).toBe(1);
  });

  it("no captured log line holds a secret", () => {
    const logs = JSON.stringify(t.server.logs);
    expect(seen.length).toBeGreaterThan(10);
    for (const v of seen) expect(logs).not.toContain(v);
  });
});
