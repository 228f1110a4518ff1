// Issue 16 #7: a user with Edit on one data source points it at their own
// server; the stored secrets (basic auth password, header values, a
// referenced secure value) must not follow to the new URL origin or basic
// auth user unless the update sends them again or keeps them explicitly
// (secureJsonFields: {key: true}), which needs the data source's Admin
// permission (datasources.permissions:write) and, for a secure value,
// secret.securevalues:read. docs/security.md says when secrets follow.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";
import { startUpstream, type Upstream } from "../upstream-echo.ts";

const PW = `relay-pw-${crypto.randomUUID()}`;
const KEY = `relay-key-${crypto.randomUUID()}`;
const SV_VALUE = `relay-sv-${crypto.randomUUID()}`;
const SV = "/apis/secret.svc.app/v1beta1/namespaces/default/securevalues";

describe("issue 16 #7: secrets do not follow a data source to a new destination", () => {
  const t = useServer({ "server.edition": "enterprise" });
  let home: Upstream;
  let attacker: Upstream;
  let editor = { id: 0, auth: "" };
  let n = 0;

  beforeAll(async () => {
    [home, attacker] = [await startUpstream(), await startUpstream()];
    const sv = await t.api.post(SV, { auth: ADMIN, body: { metadata: { name: "relay-token" }, spec: { description: "token", value: SV_VALUE } } });
    expect(sv.status).toBe(201);
    editor = await t.api.user("relay-editor", "Editor");
  });
  afterAll(async () => {
    await home?.close();
    await attacker?.close();
  });

  /** a data source on the home server with every kind of secret, the editor holding Edit on it */
  async function dataSource(): Promise<string> {
    const r = await t.api.post("/api/datasources", {
      auth: ADMIN,
      body: {
        name: `relay-${++n}`, type: "loki", access: "proxy", url: `${home.url}/base`, basicAuth: true, basicAuthUser: "bob",
        jsonData: { tenantId: "t", httpHeaderName1: "X-Api-Key", httpHeaderName2: "X-Token" },
        secureJsonData: { basicAuthPassword: PW, httpHeaderValue1: KEY, httpHeaderValue2: { name: "relay-token" } },
      },
    });
    expect(r.status).toBe(200);
    const uid = r.body.datasource.uid as string;
    expect((await t.api.post(`/api/access-control/datasources/${uid}/users/${editor.id}`, { auth: ADMIN, body: { permission: "Edit" } })).status).toBe(200);
    return uid;
  }

  /** the data source as GET shows it, ready to send back (as a UI does) with changes */
  async function roundTrip(uid: string, auth: string, changes: Record<string, unknown>) {
    const { id: _id, orgId: _org, ...body } = (await t.api.get(`/api/datasources/uid/${uid}`, { auth })).body;
    return t.api.put(`/api/datasources/uid/${uid}`, { auth, body: { ...body, ...changes } });
  }

  /** what the server got with the health check, a proxied request and a query */
  async function received(server: Upstream, uid: string, auth: string): Promise<string> {
    server.received.length = 0;
    await t.api.get(`/api/datasources/uid/${uid}/health`, { auth });
    await t.api.get(`/api/datasources/proxy/uid/${uid}/svc/api/v1/labels`, { auth });
    await t.api.post("/api/ds/query", { auth, body: { from: "now-5m", to: "now", queries: [{ refId: "A", datasource: { uid }, expr: '{app="x"}' }] } });
    expect(server.received.length).toBeGreaterThanOrEqual(3);
    return JSON.stringify(server.received.map((r) => r.headers));
  }
  const secretsIn = (text: string) => [PW, KEY, SV_VALUE, btoa(`bob:${PW}`), btoa(`eve:${PW}`)].filter((s) => text.includes(s));

  it("an Editor moves the URL to their own server (secureJsonFields dropped) -> no stored secret reaches it, by health check, proxy or query", async () => {
    const uid = await dataSource();
    expect(secretsIn(await received(home, uid, editor.auth))).toEqual([KEY, SV_VALUE, btoa(`bob:${PW}`)]);
    const moved = await roundTrip(uid, editor.auth, { url: `${attacker.url}/x`, secureJsonFields: {} });
    expect(moved.status).toBe(200);
    expect(moved.body.datasource.secureJsonFields).toEqual({});
    expect(secretsIn(await received(attacker, uid, editor.auth))).toEqual([]);
    // and moving it back does not bring them back
    expect((await roundTrip(uid, ADMIN, { url: `${home.url}/base` })).status).toBe(200);
    expect(secretsIn(await received(home, uid, ADMIN))).toEqual([]);
  });

  it("an Editor keeping the secrets explicitly (the round-tripped secureJsonFields) -> 403 naming them; nothing changed", async () => {
    const uid = await dataSource();
    const moved = await roundTrip(uid, editor.auth, { url: attacker.url });
    expect(moved.status).toBe(403);
    expect(moved.body.message).toContain("keeping basicAuthPassword, httpHeaderValue1, httpHeaderValue2 for a new URL origin or basic auth user needs datasources.permissions:write");
    expect((await t.api.get(`/api/datasources/uid/${uid}`, { auth: ADMIN })).body.url).toBe(`${home.url}/base`);
    attacker.received.length = 0;
    await received(home, uid, editor.auth);
    expect(attacker.received).toEqual([]);
  });

  it("a changed basic auth user on the same URL -> the stored secrets are dropped", async () => {
    const uid = await dataSource();
    const r = await roundTrip(uid, editor.auth, { basicAuthUser: "eve", secureJsonFields: {} });
    expect(r.status).toBe(200);
    expect(secretsIn(await received(home, uid, editor.auth))).toEqual([]);
  });

  it("secrets sent again with the move, or a path change on the same origin -> they follow", async () => {
    const uid = await dataSource();
    const path = await roundTrip(uid, editor.auth, { url: `${home.url}/other-path` });
    expect(path.status).toBe(200);
    expect(path.body.datasource.secureJsonFields).toEqual({ basicAuthPassword: true, httpHeaderValue1: true, httpHeaderValue2: true });
    const own = `editor-own-${crypto.randomUUID()}`;
    const moved = await roundTrip(uid, editor.auth, { url: attacker.url, secureJsonFields: {}, secureJsonData: { basicAuthPassword: own } });
    expect(moved.status).toBe(200);
    expect(moved.body.datasource.secureJsonFields).toEqual({ basicAuthPassword: true });
    const got = await received(attacker, uid, editor.auth);
    expect(got).toContain(btoa(`bob:${own}`));
    expect(secretsIn(got)).toEqual([]);
  });

  it("the org Admin keeps them explicitly (secureJsonFields) -> they follow to the new URL", async () => {
    const uid = await dataSource();
    const moved = await roundTrip(uid, ADMIN, { url: attacker.url });
    expect(moved.status).toBe(200);
    expect(moved.body.datasource.secureJsonFields).toEqual({ basicAuthPassword: true, httpHeaderValue1: true, httpHeaderValue2: true });
    expect(secretsIn(await received(attacker, uid, ADMIN))).toEqual([KEY, SV_VALUE, btoa(`bob:${PW}`)]);
  });
});
