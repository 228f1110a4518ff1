// /api/datasources: every route of the spec's "Legacy data sources" table,
// the deprecated name and id forms included (reference §4, conformance
// checks 74-92; the spec's codes win where they differ).
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const prom = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: "prometheus", access: "proxy", url: "http://x:9090", ...extra });

describe("data sources: create, read, update, delete", () => {
  const t = useServer();
  const create = async (body: Record<string, unknown>) => {
    const r = await t.api.post("/api/datasources", { auth: ADMIN, body });
    expect(r.status).toBe(200);
    return r.body.datasource as { id: number; uid: string; name: string; version: number };
  };

  it("POST /api/datasources -> 200 Datasource added, version 1, the full DTO (74)", async () => {
    const r = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("p1") });
    expect(r.status).toBe(200);
    const ds = r.body.datasource;
    expect(r.body).toEqual({ datasource: ds, id: ds.id, message: "Datasource added", name: "p1" });
    expect(ds).toEqual({
      id: expect.any(Number), uid: expect.stringMatching(/^[a-zA-Z0-9]{14}$/), orgId: 1, name: "p1", type: "prometheus", typeLogoUrl: "",
      access: "proxy", url: "http://x:9090", user: "", database: "", password: "", basicAuth: false, basicAuthUser: "",
      basicAuthPassword: "", withCredentials: false, isDefault: false, jsonData: {}, secureJsonFields: {}, version: 1, readOnly: false,
    });
  });

  it("POST a duplicate name or uid -> 409 (75, 76); name or type missing -> 400 (77); bad URL -> 400 (78)", async () => {
    const p = await create(prom("dup"));
    const again = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("dup") });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe("data source with the same name already exists");
    const sameUid = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("dup2", { uid: p.uid }) });
    expect(sameUid.status).toBe(409);
    expect(sameUid.body.message).toBe("data source with the same uid already exists");
    for (const body of [{ type: "prometheus" }, { name: "no-type" }, { name: "", type: "prometheus" }, { name: "x", type: "" }]) {
      const r = await t.api.post("/api/datasources", { auth: ADMIN, body });
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
    const url = await t.api.post("/api/datasources", { auth: ADMIN, body: prom("p3", { url: "http://[::1" }) });
    expect(url.status).toBe(400);
    expect(url.body.message).toBe("Validation error, invalid URL");
  });

  it("GET by uid, name and id -> the DTO; GET /api/datasources/id/:name -> {id} only (86, 87)", async () => {
    const p = await create(prom("by-every-key", { jsonData: { httpMethod: "POST" } }));
    const byUid = await t.api.get(`/api/datasources/uid/${p.uid}`, { auth: ADMIN });
    expect(byUid.status).toBe(200);
    expect(byUid.body).toMatchObject({ id: p.id, uid: p.uid, name: "by-every-key", jsonData: { httpMethod: "POST" }, version: 1 });
    expect(byUid.body).not.toHaveProperty("secureJsonData");
    expect((await t.api.get("/api/datasources/name/by-every-key", { auth: ADMIN })).body).toEqual(byUid.body);
    expect((await t.api.get(`/api/datasources/${p.id}`, { auth: ADMIN })).body).toEqual(byUid.body);
    const id = await t.api.get("/api/datasources/id/by-every-key", { auth: ADMIN });
    expect(id.status).toBe(200);
    expect(id.body).toEqual({ id: p.id });
  });

  it("unknown uid, name or id -> 404 Data source not found (84, 85, 91); a non-numeric id -> 400 id is invalid (88)", async () => {
    const notFound = [
      await t.api.get("/api/datasources/uid/unknown", { auth: ADMIN }),
      await t.api.get("/api/datasources/name/unknown", { auth: ADMIN }),
      await t.api.get("/api/datasources/id/unknown", { auth: ADMIN }),
      await t.api.get("/api/datasources/999999", { auth: ADMIN }),
      await t.api.put("/api/datasources/uid/unknown", { auth: ADMIN, body: prom("x") }),
      await t.api.put("/api/datasources/999999", { auth: ADMIN, body: prom("x") }),
      await t.api.delete("/api/datasources/uid/unknown", { auth: ADMIN }),
      await t.api.delete("/api/datasources/name/unknown", { auth: ADMIN }),
      await t.api.delete("/api/datasources/999999", { auth: ADMIN }),
    ];
    for (const r of notFound) expect({ status: r.status, body: r.body }).toEqual({ status: 404, body: { message: "Data source not found" } });
    for (const r of [
      await t.api.get("/api/datasources/abc", { auth: ADMIN }),
      await t.api.put("/api/datasources/abc", { auth: ADMIN, body: prom("x") }),
      await t.api.delete("/api/datasources/abc", { auth: ADMIN }),
    ]) {
      expect(r.status).toBe(400);
      expect(r.body.message).toBe("id is invalid");
    }
  });

  it("PUT by uid -> 200 Datasource updated, version incremented; a stale version -> 409 (82); the name of another -> 409 (83)", async () => {
    const p = await create(prom("to-update"));
    await create(prom("taken"));
    const r = await t.api.put(`/api/datasources/uid/${p.uid}`, { auth: ADMIN, body: prom("updated", { url: "http://y:9090", version: 1 }) });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ datasource: r.body.datasource, id: p.id, message: "Datasource updated", name: "updated" });
    expect(r.body.datasource).toMatchObject({ uid: p.uid, name: "updated", url: "http://y:9090", version: 2 });
    const stale = await t.api.put(`/api/datasources/uid/${p.uid}`, { auth: ADMIN, body: prom("updated", { version: 1 }) });
    expect(stale.status).toBe(409);
    expect(stale.body.message).toBe("Datasource has already been updated by someone else. Please reload and try again");
    const clash = await t.api.put(`/api/datasources/uid/${p.uid}`, { auth: ADMIN, body: prom("taken") });
    expect(clash.status).toBe(409);
    expect(clash.body.message).toBe("Failed to update datasource: data source with the same name already exists");
    // no version, or a newer one: accepted
    expect((await t.api.put(`/api/datasources/uid/${p.uid}`, { auth: ADMIN, body: prom("updated") })).body.datasource.version).toBe(3);
    expect((await t.api.put(`/api/datasources/uid/${p.uid}`, { auth: ADMIN, body: prom("updated", { version: 9 }) })).body.datasource.version).toBe(4);
    const got = await t.api.get(`/api/datasources/uid/${p.uid}`, { auth: ADMIN });
    expect(got.body).toMatchObject({ name: "updated", version: 4 });
  });

  it("PUT by id (deprecated) -> 200; the uid cannot change -> 400; sending the same uid is fine", async () => {
    const p = await create(prom("by-id"));
    const r = await t.api.put(`/api/datasources/${p.id}`, { auth: ADMIN, body: prom("by-id", { uid: p.uid, database: "db1" }) });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ message: "Datasource updated", id: p.id, datasource: { database: "db1", version: 2 } });
    for (const path of [`/api/datasources/${p.id}`, `/api/datasources/uid/${p.uid}`]) {
      const moved = await t.api.put(path, { auth: ADMIN, body: prom("by-id", { uid: "another-uid" }) });
      expect(moved.status).toBe(400);
      expect(moved.body.message).toMatch(/uid cannot be changed/);
    }
    expect((await t.api.get(`/api/datasources/uid/${p.uid}`, { auth: ADMIN })).body.version).toBe(2);
    expect((await t.api.get("/api/datasources/uid/another-uid", { auth: ADMIN })).status).toBe(404);
  });

  it("concurrent PUTs with the same version -> one 200, one 409; concurrent secret changes leave secureJsonFields true to what is stored", async () => {
    const p = await create(prom("racy", { secureJsonData: { token: "t0" } }));
    const both = await Promise.all(["http://one", "http://two"].map((url) =>
      t.api.put(`/api/datasources/uid/${p.uid}`, { auth: ADMIN, body: prom("racy", { url, version: 1 }) })));
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    expect((await t.api.get(`/api/datasources/uid/${p.uid}`, { auth: ADMIN })).body.version).toBe(2);
    await Promise.all([
      t.api.put(`/api/datasources/uid/${p.uid}`, { auth: ADMIN, body: prom("racy", { secureJsonData: { token: "" } }) }),
      t.api.put(`/api/datasources/uid/${p.uid}`, { auth: ADMIN, body: prom("racy", { secureJsonData: { other: "o1" } }) }),
    ]);
    const stored = await t.server.db.pg.query<{ field: string }>("select field from secrets where owner = $1 order by field", [`datasource:${p.id}`]);
    const got = await t.api.get(`/api/datasources/uid/${p.uid}`, { auth: ADMIN });
    expect(got.body.secureJsonFields).toEqual({ other: true });
    expect(stored.rows.map((r) => r.field)).toEqual(["other"]);
    expect(got.body.version).toBe(4);
  });

  it("isDefault moves: a new default takes it from the old one", async () => {
    const a = await create(prom("default-a", { isDefault: true }));
    const b = await create(prom("default-b", { isDefault: true }));
    const get = async (uid: string) => (await t.api.get(`/api/datasources/uid/${uid}`, { auth: ADMIN })).body;
    expect([(await get(a.uid)).isDefault, (await get(b.uid)).isDefault]).toEqual([false, true]);
    await t.api.put(`/api/datasources/uid/${a.uid}`, { auth: ADMIN, body: prom("default-a", { isDefault: true }) });
    expect([(await get(a.uid)).isDefault, (await get(b.uid)).isDefault]).toEqual([true, false]);
    const list = (await t.api.get("/api/datasources", { auth: ADMIN })).body as Array<{ isDefault: boolean }>;
    expect(list.filter((d) => d.isDefault)).toHaveLength(1);
  });

  it("DELETE by uid -> 200 with id, then 404 (90); by name -> with id; by id (deprecated) -> message only", async () => {
    const a = await create(prom("del-uid"));
    const r = await t.api.delete(`/api/datasources/uid/${a.uid}`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Data source deleted", id: a.id });
    expect((await t.api.get(`/api/datasources/uid/${a.uid}`, { auth: ADMIN })).status).toBe(404);
    const b = await create(prom("del name"));
    expect((await t.api.delete("/api/datasources/name/del%20name", { auth: ADMIN })).body).toEqual({ message: "Data source deleted", id: b.id });
    const c = await create(prom("del-id"));
    expect((await t.api.delete(`/api/datasources/${c.id}`, { auth: ADMIN })).body).toEqual({ message: "Data source deleted" });
    expect((await t.api.get(`/api/datasources/${c.id}`, { auth: ADMIN })).status).toBe(404);
    // the name is free again
    expect((await t.api.post("/api/datasources", { auth: ADMIN, body: prom("del-uid") })).status).toBe(200);
  });

  it("GET /api/datasources -> sorted by name without regard to case, list items without secrets or secureJsonFields (89)", async () => {
    for (const name of ["zeta", "Alpha-list", "beta-list", "Gamma-list"]) await create(prom(name, { secureJsonData: { password: "list-pw" } }));
    const r = await t.api.get("/api/datasources", { auth: ADMIN });
    expect(r.status).toBe(200);
    const names = (r.body as Array<{ name: string }>).map((d) => d.name);
    expect(names).toEqual([...names].sort((x, y) => x.toLowerCase().localeCompare(y.toLowerCase())));
    expect(names.indexOf("Alpha-list")).toBeLessThan(names.indexOf("beta-list"));
    expect(names.indexOf("beta-list")).toBeLessThan(names.indexOf("Gamma-list"));
    const item = (r.body as Array<Record<string, unknown>>).find((d) => d.name === "zeta")!;
    expect(Object.keys(item).sort()).toEqual(
      ["access", "basicAuth", "database", "id", "isDefault", "jsonData", "name", "orgId", "readOnly", "type", "typeLogoUrl", "typeName", "uid", "url", "user"],
    );
    expect(item.typeName).toBe("Prometheus");
    expect(JSON.stringify(r.body)).not.toContain("list-pw");
  });

  it("GET /api/datasources (viewer, editor) -> 403; POST, PUT, DELETE (editor) -> 403", async () => {
    const p = await create(prom("guarded"));
    for (const role of ["Viewer", "Editor"] as const) {
      const u = await t.api.user(`ds-${role.toLowerCase()}`, role);
      const list = await t.api.get("/api/datasources", { auth: u.auth });
      expect(list.status).toBe(403);
      expect(list.body.message).toMatch(/Permissions needed: datasources:read$/);
      expect((await t.api.get(`/api/datasources/uid/${p.uid}`, { auth: u.auth })).status).toBe(403);
      expect((await t.api.post("/api/datasources", { auth: u.auth, body: prom(`by-${role}`) })).status).toBe(403);
      expect((await t.api.put(`/api/datasources/uid/${p.uid}`, { auth: u.auth, body: prom("guarded") })).status).toBe(403);
      expect((await t.api.delete(`/api/datasources/uid/${p.uid}`, { auth: u.auth })).status).toBe(403);
    }
    expect((await t.api.get(`/api/datasources/uid/${p.uid}`, { auth: ADMIN })).body.version).toBe(1);
    expect((await t.api.get("/api/datasources")).status).toBe(401);
  });
});

describe("data sources: lists filtered by read permission (enterprise)", () => {
  const t = useServer({ "server.edition": "enterprise" });
  const create = async (body: Record<string, unknown>) => {
    const r = await t.api.post("/api/datasources", { auth: ADMIN, body });
    expect(r.status).toBe(200);
    return r.body.datasource as { id: number; uid: string };
  };

  it("GET /api/datasources holds only the data sources the caller may read (a role scoped to one uid)", async () => {
    const mine = await create(prom("scoped-mine"));
    await create(prom("scoped-other"));
    // no org role: nothing but the custom role (Viewers and Editors get Query on every new data source)
    const editor = await t.api.user("ds-scoped", "None");
    const role = await t.api.post("/api/access-control/roles", {
      auth: ADMIN, body: { name: "custom:ds-one", permissions: [{ action: "datasources:read", scope: `datasources:uid:${mine.uid}` }] },
    });
    expect(role.status).toBe(200);
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "ds readers" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: editor.id } });
    expect((await t.api.put(`/api/access-control/teams/${team.body.teamId}/roles`, { auth: ADMIN, body: { roleUids: [role.body.uid] } })).status).toBe(200);
    const list = await t.api.get("/api/datasources", { auth: editor.auth });
    expect(list.status).toBe(200);
    expect((list.body as Array<{ uid: string }>).map((d) => d.uid)).toEqual([mine.uid]);
    // the grant on the uid reaches it by name and id too, and nothing else
    expect((await t.api.get("/api/datasources/name/scoped-mine", { auth: editor.auth })).status).toBe(200);
    expect((await t.api.get(`/api/datasources/${mine.id}`, { auth: editor.auth })).status).toBe(200);
    expect((await t.api.get("/api/datasources/name/scoped-other", { auth: editor.auth })).status).toBe(403);
  });
});

describe("data sources: the list is capped by dashboard.datasource_limit", () => {
  const t = useServer({ "dashboard.datasource_limit": 3 });

  it("GET /api/datasources with 5 data sources and a limit of 3 -> the first 3 by name", async () => {
    for (const name of ["e", "C", "a", "D", "b"]) {
      expect((await t.api.post("/api/datasources", { auth: ADMIN, body: prom(name) })).status).toBe(200);
    }
    const r = await t.api.get("/api/datasources", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect((r.body as Array<{ name: string }>).map((d) => d.name)).toEqual(["a", "b", "C"]);
    // the others still exist
    expect((await t.api.get("/api/datasources/name/e", { auth: ADMIN })).status).toBe(200);
  });
});
