import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const DASHBOARDS = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";
const FOLDERS = "/apis/folder.svc.app/v1/namespaces/default/folders";
const LIB = "/api/library-elements";

describe("library elements", () => {
  const t = useServer();
  const folder = async (name: string) => {
    const r = await t.api.post(FOLDERS, { auth: ADMIN, body: { metadata: { name }, spec: { title: `Folder ${name}` } } });
    if (r.status !== 201) throw new Error(`folder ${name}: ${r.status}`);
  };
  const element = async (body: Record<string, unknown>) => {
    const r = await t.api.post(LIB, { auth: ADMIN, body: { kind: 1, model: { type: "text" }, ...body } });
    if (r.status !== 200) throw new Error(`element: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.result;
  };
  const dashboard = (name: string, panels: unknown[], method: "post" | "put" = "post", rv?: string) =>
    t.api[method](method === "post" ? DASHBOARDS : `${DASHBOARDS}/${name}`, {
      auth: ADMIN,
      body: { metadata: { name, ...(rv ? { resourceVersion: rv } : {}) }, spec: { title: name, panels } },
    });

  it("POST -> 200 {result} with version 1, meta filled; GET by uid; duplicate name in the folder -> 400", async () => {
    await folder("lib-f");
    const r = await t.api.post(LIB, { auth: ADMIN, body: { name: "lp", kind: 1, model: { type: "text", description: "about" }, folderUid: "lib-f" } });
    expect(r.status).toBe(200);
    const e = r.body.result;
    expect(e.uid).toMatch(/^\w{14}$/);
    expect(e).toMatchObject({ name: "lp", kind: 1, type: "text", description: "about", version: 1, folderUid: "lib-f", orgId: 1 });
    expect(e.folderId).toBeGreaterThan(0);
    expect(e.meta).toMatchObject({ folderName: "Folder lib-f", folderUid: "lib-f", connectedDashboards: 0 });
    expect(e.meta.createdBy).toMatchObject({ id: 1, name: "admin" });
    expect(e.meta.updatedBy.avatarUrl).toMatch(/^\/avatar\//);
    expect(Date.parse(e.meta.created)).toBeGreaterThan(0);
    const got = await t.api.get(`${LIB}/${e.uid}`, { auth: ADMIN });
    expect(got.body.result).toMatchObject({ uid: e.uid, meta: { folderUid: "lib-f" } });
    const dup = await t.api.post(LIB, { auth: ADMIN, body: { name: "lp", kind: 1, model: {}, folderUid: "lib-f" } });
    expect(dup.status).toBe(400);
    expect(dup.body.message).toBe("library element with that name or UID already exists");
    // the same name at the root is another element
    expect((await t.api.post(LIB, { auth: ADMIN, body: { name: "lp", kind: 1, model: {} } })).body.result.meta.folderName).toBe("General");
  });

  it("uid: at most 40 characters, allowed characters only, unique", async () => {
    const long = await t.api.post(LIB, { auth: ADMIN, body: { uid: "a".repeat(41), name: "n", kind: 1, model: {} } });
    expect(long.status).toBe(400);
    expect(long.body.message).toBe("uid too long, max 40 characters");
    expect((await t.api.post(LIB, { auth: ADMIN, body: { uid: "b".repeat(40), name: "n40", kind: 1, model: {} } })).status).toBe(200);
    const bad = await t.api.post(LIB, { auth: ADMIN, body: { uid: "bad uid!", name: "n2", kind: 1, model: {} } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("uid contains illegal characters");
    await element({ uid: "fixed-uid", name: "first" });
    const again = await t.api.post(LIB, { auth: ADMIN, body: { uid: "fixed-uid", name: "second", kind: 1, model: {} } });
    expect(again.status).toBe(400);
    expect(again.body.message).toBe("library element with that name or UID already exists");
  });

  it("model must be a JSON object; kind must be supported; unknown folder -> 400; GET unknown -> 404", async () => {
    for (const model of [[1], "text", null, 3]) {
      const r = await t.api.post(LIB, { auth: ADMIN, body: { name: "m", kind: 1, model } });
      expect(r.status).toBe(400);
      expect(r.body.message).toContain("model");
    }
    const kind = await t.api.post(LIB, { auth: ADMIN, body: { name: "k", kind: 7, model: {} } });
    expect(kind.status).toBe(400);
    expect(kind.body.message).toBe("the element kind is not supported");
    expect((await t.api.post(LIB, { auth: ADMIN, body: { name: "f", kind: 1, model: {}, folderUid: "nope" } })).status).toBe(400);
    const missing = await t.api.get(`${LIB}/unknown`, { auth: ADMIN });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("library element could not be found");
  });

  it("PATCH increments version; a stale version -> 412; moves between folders", async () => {
    await folder("patch-f");
    const e = await element({ name: "to-patch" });
    const p = await t.api.patch(`${LIB}/${e.uid}`, { auth: ADMIN, body: { kind: 1, version: 1, name: "lp2", model: { type: "graph" } } });
    expect(p.status).toBe(200);
    expect(p.body.result).toMatchObject({ version: 2, name: "lp2", type: "graph" });
    const stale = await t.api.patch(`${LIB}/${e.uid}`, { auth: ADMIN, body: { kind: 1, version: 1, name: "x" } });
    expect(stale.status).toBe(412);
    expect(stale.body.message).toBe("the library element has been changed by someone else");
    const moved = await t.api.patch(`${LIB}/${e.uid}`, { auth: ADMIN, body: { version: 2, folderUid: "patch-f" } });
    expect(moved.body.result).toMatchObject({ version: 3, folderUid: "patch-f", name: "lp2", meta: { folderName: "Folder patch-f" } });
    expect((await t.api.patch(`${LIB}/unknown`, { auth: ADMIN, body: { version: 1 } })).status).toBe(404);
    expect((await t.api.patch(`${LIB}/${e.uid}`, { auth: ADMIN, body: { name: "no version" } })).status).toBe(400);
  });

  it("GET list: searchString, sortDirection, perPage/page, typeFilter, excludeUid, folder filters", async () => {
    await folder("list-f");
    const a = await element({ name: "alpha search", model: { type: "stat" }, folderUid: "list-f" });
    const b = await element({ name: "beta", model: { type: "graph", description: "search me" } });
    const c = await element({ name: "gamma search", model: { type: "graph" } });
    const list = (q: string) => t.api.get(`${LIB}?${q}`, { auth: ADMIN });
    const names = (r: { body: { result: { elements: Array<{ name: string }> } } }) => r.body.result.elements.map((x) => x.name);
    const found = await list("searchString=search");
    expect(found.body.result).toMatchObject({ totalCount: 3, page: 1, perPage: 100 });
    expect(names(found)).toEqual(["alpha search", "beta", "gamma search"]);
    expect(names(await list("searchString=search&sortDirection=alpha-desc"))).toEqual(["gamma search", "beta", "alpha search"]);
    const paged = await list("searchString=search&perPage=1&page=2");
    expect(paged.body.result).toMatchObject({ totalCount: 3, page: 2, perPage: 1 });
    expect(names(paged)).toEqual(["beta"]);
    expect(names(await list("searchString=search&typeFilter=graph"))).toEqual(["beta", "gamma search"]);
    expect(names(await list(`searchString=search&excludeUid=${b.uid}`))).toEqual(["alpha search", "gamma search"]);
    expect(names(await list("folderFilterUIDs=list-f"))).toEqual(["alpha search"]);
    expect(names(await list(`folderFilter=${a.folderId}`))).toEqual(["alpha search"]);
    expect(names(await list("searchString=search&folderFilterUIDs=general"))).toEqual(["beta", "gamma search"]);
    expect(names(await list("searchString=search&kind=2"))).toEqual([]);
    const both = await list("folderFilter=1&folderFilterUIDs=x");
    expect(both.status).toBe(400);
    expect(both.body.message).toBe("cannot pass both folderFilter and folderFilterUIDs");
    void c;
  });

  it("GET /name/:name -> {result: [...]}; none -> 404", async () => {
    await element({ name: "named-twice" });
    await folder("name-f");
    await element({ name: "named-twice", folderUid: "name-f" });
    const r = await t.api.get(`${LIB}/name/named-twice`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body.result).toHaveLength(2);
    expect((await t.api.get(`${LIB}/name/never`, { auth: ADMIN })).status).toBe(404);
  });

  it("connections follow dashboard saves; a connected element cannot be deleted until unconnected", async () => {
    const e = await element({ name: "shared panel" });
    const made = await dashboard("lib-dash", [{ id: 1, type: "row", panels: [{ id: 2, libraryPanel: { uid: e.uid, name: "shared panel" } }] }]);
    expect(made.status).toBe(201);
    const conns = await t.api.get(`${LIB}/${e.uid}/connections/`, { auth: ADMIN });
    expect(conns.status).toBe(200);
    expect(conns.body.result).toHaveLength(1);
    expect(conns.body.result[0]).toMatchObject({ kind: 1, elementId: e.id, connectionUid: "lib-dash", connectionId: Number(made.body.metadata.labels["svc.app/deprecatedInternalID"]) });
    expect(conns.body.result[0].createdBy.name).toBe("admin");
    expect((await t.api.get(`${LIB}/${e.uid}`, { auth: ADMIN })).body.result.meta.connectedDashboards).toBe(1);
    const refused = await t.api.delete(`${LIB}/${e.uid}`, { auth: ADMIN });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe("the library element has connections");
    // the panel removed from the dashboard: disconnected
    const updated = await dashboard("lib-dash", [{ id: 3, type: "text" }], "put");
    expect(updated.status).toBe(200);
    expect((await t.api.get(`${LIB}/${e.uid}/connections`, { auth: ADMIN })).body.result).toEqual([]);
    const del = await t.api.delete(`${LIB}/${e.uid}`, { auth: ADMIN });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ message: "Library element deleted", id: e.id });
    expect((await t.api.get(`${LIB}/${e.uid}`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.delete(`${LIB}/${e.uid}`, { auth: ADMIN })).status).toBe(404);
  });

  it("deleting the dashboard disconnects it", async () => {
    const e = await element({ name: "panel of a dashboard to delete" });
    await dashboard("lib-dash-2", [{ id: 1, libraryPanel: { uid: e.uid } }, { id: 2, libraryPanel: { uid: "no-such-element" } }]);
    expect((await t.api.get(`${LIB}/${e.uid}/connections`, { auth: ADMIN })).body.result).toHaveLength(1);
    await t.api.delete(`${DASHBOARDS}/lib-dash-2`, { auth: ADMIN });
    expect((await t.api.get(`${LIB}/${e.uid}/connections`, { auth: ADMIN })).body.result).toEqual([]);
    expect((await t.api.delete(`${LIB}/${e.uid}`, { auth: ADMIN })).status).toBe(200);
  });

  it("folder delete: refused while a dashboard elsewhere uses one of its elements; otherwise the elements go with it", async () => {
    await folder("lib-del-f");
    const e = await element({ name: "in folder", folderUid: "lib-del-f" });
    await dashboard("outside-user", [{ id: 1, libraryPanel: { uid: e.uid } }]);
    const refused = await t.api.delete(`${FOLDERS}/lib-del-f`, { auth: ADMIN });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe("folder contains library elements that are linked in use");
    await t.api.delete(`${DASHBOARDS}/outside-user`, { auth: ADMIN });
    // a dashboard inside the folder goes with it, so its connection does not hold the folder back
    await t.api.post(DASHBOARDS, {
      auth: ADMIN,
      body: { metadata: { name: "inside-user", annotations: { "svc.app/folder": "lib-del-f" } }, spec: { title: "in", panels: [{ id: 1, libraryPanel: { uid: e.uid } }] } },
    });
    expect((await t.api.delete(`${FOLDERS}/lib-del-f`, { auth: ADMIN })).status).toBe(200);
    expect((await t.api.get(`${LIB}/${e.uid}`, { auth: ADMIN })).status).toBe(404);
  });

  it("permissions: a Viewer reads, cannot create, patch or delete", async () => {
    const viewer = await t.api.user("lib-viewer", "Viewer");
    const e = await element({ name: "viewer sees" });
    expect((await t.api.get(`${LIB}/${e.uid}`, { auth: viewer.auth })).status).toBe(200);
    expect((await t.api.get(LIB, { auth: viewer.auth })).body.result.totalCount).toBeGreaterThan(0);
    expect((await t.api.post(LIB, { auth: viewer.auth, body: { name: "v", kind: 1, model: {} } })).status).toBe(403);
    expect((await t.api.patch(`${LIB}/${e.uid}`, { auth: viewer.auth, body: { version: 1, name: "v" } })).status).toBe(403);
    expect((await t.api.delete(`${LIB}/${e.uid}`, { auth: viewer.auth })).status).toBe(403);
    const none = await t.api.user("lib-none", "None");
    expect((await t.api.get(LIB, { auth: none.auth })).status).toBe(403);
  });
});
