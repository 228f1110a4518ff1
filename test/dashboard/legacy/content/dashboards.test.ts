// The legacy dashboard API (/api/dashboards) over the same objects as /apis.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const DASHBOARDS = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";

describe("legacy dashboards", () => {
  const t = useServer();
  const save = (body: Record<string, unknown>, auth = ADMIN) => t.api.post("/api/dashboards/db", { auth, body });

  it("POST /db creates; GET /uid/:uid answers {dashboard, meta}; /apis serves the same object", async () => {
    await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "ld-folder", title: "Team" } });
    const created = await save({ dashboard: { id: null, uid: "ld-one", title: "Production Overview", tags: ["prod"], panels: [] }, folderUid: "ld-folder", message: "first", overwrite: false });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      uid: "ld-one", status: "success", version: 1, slug: "production-overview", url: "/d/ld-one/production-overview", folderUid: "ld-folder",
    });
    expect(created.body.id).toBeGreaterThan(0);
    const got = await t.api.get("/api/dashboards/uid/ld-one", { auth: ADMIN });
    expect(got.status).toBe(200);
    expect(got.body.dashboard).toMatchObject({ id: created.body.id, uid: "ld-one", title: "Production Overview", version: 1, tags: ["prod"] });
    expect(got.body.meta).toMatchObject({
      type: "db", canSave: true, canEdit: true, canAdmin: true, canStar: true, canDelete: true, slug: "production-overview",
      url: "/d/ld-one/production-overview", folderUid: "ld-folder", folderTitle: "Team", folderUrl: "/dashboards/f/ld-folder/team",
      createdBy: "admin", updatedBy: "admin", version: 1, isFolder: false, provisioned: false,
    });
    const apis = await t.api.get(`${DASHBOARDS}/ld-one`, { auth: ADMIN });
    expect(apis.body.spec.title).toBe("Production Overview");
    expect(apis.body.spec.id).toBeUndefined();
    expect(apis.body.metadata.annotations).toMatchObject({ "svc.app/folder": "ld-folder", "svc.app/message": "first" });
    const hits = await t.api.get("/api/search?query=Production%20Overview", { auth: ADMIN });
    expect(hits.body).toContainEqual(expect.objectContaining({ uid: "ld-one", url: "/d/ld-one/production-overview", folderUid: "ld-folder" }));
  });

  it("update: the version read must be the current one unless overwrite; each save is the next version", async () => {
    const first = await save({ dashboard: { uid: "ld-upd", title: "Upd" } });
    const second = await save({ dashboard: { uid: "ld-upd", title: "Upd", version: 1 } });
    expect(second.status).toBe(200);
    expect(second.body.version).toBe(2);
    expect(second.body.id).toBe(first.body.id);
    const stale = await save({ dashboard: { uid: "ld-upd", title: "Upd v3", version: 1 } });
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({ status: "version-mismatch", message: "The dashboard has been changed by someone else" });
    const forced = await save({ dashboard: { uid: "ld-upd", title: "Upd v3", version: 1 }, overwrite: true });
    expect(forced.status).toBe(200);
    expect(forced.body.version).toBe(3);
    // by the deprecated numeric id, as old scripts do
    const byId = await save({ dashboard: { id: first.body.id, title: "Upd v4", version: 3 } });
    expect(byId.body).toMatchObject({ uid: "ld-upd", version: 4 });
    expect((await save({ dashboard: { id: 987654, title: "x" } })).status).toBe(404);
  });

  it("name-exists: the same title in the same folder is refused, or taken over with overwrite", async () => {
    await save({ dashboard: { uid: "ld-name-a", title: "Clash" } });
    const clash = await save({ dashboard: { uid: "ld-name-b", title: "Clash" } });
    expect(clash.status).toBe(412);
    expect(clash.body).toEqual({ status: "name-exists", message: "A dashboard with the same name in the folder already exists" });
    await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "ld-elsewhere", title: "Elsewhere" } });
    expect((await save({ dashboard: { uid: "ld-name-b", title: "Clash" }, folderUid: "ld-elsewhere" })).status).toBe(200);
    const taken = await save({ dashboard: { title: "Clash", panels: [{ id: 1 }] }, overwrite: true });
    expect(taken.status).toBe(200);
    expect(taken.body.uid).toBe("ld-name-a");
  });

  it("bad input: empty title, bad uid, unknown folder, missing dashboard, wrong types -> 4xx naming it", async () => {
    const empty = await save({ dashboard: { title: " " } });
    expect(empty.status).toBe(400);
    expect(empty.body).toEqual({ status: "empty-name", message: "Dashboard title cannot be empty" });
    expect((await save({ dashboard: { uid: "a/b", title: "x" } })).body.message).toBe("uid contains illegal characters");
    expect((await save({ dashboard: { uid: "x".repeat(41), title: "x" } })).body.message).toBe("uid too long, max 40 characters");
    const folder = await save({ dashboard: { title: "x" }, folderUid: "ld-nope" });
    expect(folder.status).toBe(400);
    expect(folder.body.message).toBe("folder not found");
    const none = await save({ folderUid: "" });
    expect(none.status).toBe(400);
    expect(none.body.message).toContain("dashboard");
    const wrong = await save({ dashboard: { title: "x" }, overwrite: "yes" });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toContain("overwrite");
  });

  it("permissions: a viewer reads but may not save or delete; unknown uid 404", async () => {
    const viewer = await t.api.user("ld-viewer", "Viewer");
    await save({ dashboard: { uid: "ld-perm", title: "Perm" } });
    const read = await t.api.get("/api/dashboards/uid/ld-perm", { auth: viewer.auth });
    expect(read.status).toBe(200);
    expect(read.body.meta).toMatchObject({ canSave: false, canEdit: false, canDelete: false });
    const denied = await save({ dashboard: { uid: "ld-perm", title: "Perm", version: 1 } }, viewer.auth);
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe("Access denied to save dashboard");
    const del = await t.api.delete("/api/dashboards/uid/ld-perm", { auth: viewer.auth });
    expect(del.status).toBe(403);
    expect(del.body.message).toBe("Access denied to this dashboard");
    const missing = await t.api.get("/api/dashboards/uid/ld-missing", { auth: ADMIN });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("Dashboard not found");
  });

  it("DELETE /uid/:uid answers with the title and removes it from /apis", async () => {
    const d = await save({ dashboard: { uid: "ld-del", title: "Doomed" } });
    const gone = await t.api.delete("/api/dashboards/uid/ld-del", { auth: ADMIN });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ title: "Doomed", message: "Dashboard Doomed deleted", uid: "ld-del", id: d.body.id });
    expect((await t.api.get(`${DASHBOARDS}/ld-del`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.delete("/api/dashboards/uid/ld-del", { auth: ADMIN })).status).toBe(404);
  });

  it("tags: each tag with the number of readable dashboards carrying it, by term", async () => {
    await save({ dashboard: { uid: "ld-tag-1", title: "T1", tags: ["zz-b", "zz-a"] } });
    await save({ dashboard: { uid: "ld-tag-2", title: "T2", tags: ["zz-a"] } });
    const tags = (await t.api.get("/api/dashboards/tags", { auth: ADMIN })).body as Array<{ term: string; count: number }>;
    expect(tags.filter((x) => x.term.startsWith("zz-"))).toEqual([{ term: "zz-a", count: 2 }, { term: "zz-b", count: 1 }]);
  });

  it("home: the built-in home dashboard, or a redirect to the one preferences name", async () => {
    const u = await t.api.user("ld-home", "Viewer");
    const builtIn = await t.api.get("/api/dashboards/home", { auth: u.auth });
    expect(builtIn.status).toBe(200);
    expect(builtIn.body.meta.isHome).toBe(true);
    expect(builtIn.body.dashboard.title).toBe("Home");
    await save({ dashboard: { uid: "ld-home-d", title: "My Home" } });
    await t.api.put("/api/user/preferences", { auth: u.auth, body: { homeDashboardUID: "ld-home-d" } });
    const redirect = await t.api.get("/api/dashboards/home", { auth: u.auth });
    expect(redirect.body).toEqual({ redirectUri: "/d/ld-home-d/my-home" });
  });

  it("versions: list ({continueToken, versions}), one version with its data, restore as the next version", async () => {
    await save({ dashboard: { uid: "ld-ver", title: "V1" }, message: "one" });
    await save({ dashboard: { uid: "ld-ver", title: "V2", version: 1 }, message: "two" });
    const third = await save({ dashboard: { uid: "ld-ver", title: "V3", version: 2 } });
    const list = await t.api.get("/api/dashboards/uid/ld-ver/versions", { auth: ADMIN });
    expect(list.status).toBe(200);
    expect(list.body.continueToken).toBe("");
    expect(list.body.versions.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    expect(list.body.versions[1]).toMatchObject({ uid: "ld-ver", dashboardId: third.body.id, parentVersion: 1, message: "two", createdBy: "admin", restoredFrom: 0 });
    const paged = await t.api.get("/api/dashboards/uid/ld-ver/versions?limit=2", { auth: ADMIN });
    expect(paged.body.versions).toHaveLength(2);
    expect(paged.body.continueToken).not.toBe("");
    const rest = await t.api.get(`/api/dashboards/uid/ld-ver/versions?limit=2&continueToken=${paged.body.continueToken}`, { auth: ADMIN });
    expect(rest.body.versions.map((v: { version: number }) => v.version)).toEqual([1]);
    const byId = await t.api.get(`/api/dashboards/id/${third.body.id}/versions`, { auth: ADMIN });
    expect(byId.body.versions).toHaveLength(3);
    const v1 = await t.api.get("/api/dashboards/uid/ld-ver/versions/1", { auth: ADMIN });
    expect(v1.status).toBe(200);
    expect(v1.body.data).toMatchObject({ title: "V1", uid: "ld-ver", version: 1 });
    expect((await t.api.get("/api/dashboards/uid/ld-ver/versions/99", { auth: ADMIN })).status).toBe(404);
    const restored = await t.api.post("/api/dashboards/uid/ld-ver/restore", { auth: ADMIN, body: { version: 1 } });
    expect(restored.status).toBe(200);
    expect(restored.body.version).toBe(4);
    const now = await t.api.get("/api/dashboards/uid/ld-ver", { auth: ADMIN });
    expect(now.body.dashboard.title).toBe("V1");
    const v4 = await t.api.get("/api/dashboards/uid/ld-ver/versions/4", { auth: ADMIN });
    expect(v4.body).toMatchObject({ restoredFrom: 1, message: "Restored from version 1" });
    expect((await t.api.post("/api/dashboards/uid/ld-ver/restore", { auth: ADMIN, body: { version: 42 } })).status).toBe(404);
    expect((await t.api.post("/api/dashboards/uid/ld-ver/restore", { auth: ADMIN, body: { version: "1" } })).status).toBe(400);
    const viewer = await t.api.user("ld-ver-viewer", "Viewer");
    expect((await t.api.get("/api/dashboards/uid/ld-ver/versions", { auth: viewer.auth })).status).toBe(403);
  });
});
