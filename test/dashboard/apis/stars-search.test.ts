// Stars (collections API and legacy), legacy search, and the dashboard DTO.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../helpers/api.ts";
import { useServer } from "../../helpers/server.ts";

const DASH = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";
const FOLD = "/apis/folder.svc.app/v1/namespaces/default/folders";
const STARS = "/apis/collections.svc.app/v1alpha1/namespaces/default/stars";

describe("stars, search and DTO", () => {
  const t = useServer();
  const dash = (name: string, title: string, tags: string[] = [], folder?: string) =>
    t.api.post(DASH, {
      auth: ADMIN,
      body: { metadata: { name, ...(folder ? { annotations: { "svc.app/folder": folder } } : {}) }, spec: { title, tags } },
    });
  const folder = (name: string, title: string) => t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name }, spec: { title } } });

  it("stars: PUT twice keeps one; GET lists; DELETE 200 then 204; legacy endpoints share the data", async () => {
    const u = await t.api.user("starrer", "Viewer");
    const me = (await t.api.get("/api/user", { auth: u.auth })).body;
    await dash("star-d", "Starred");
    const path = `${STARS}/user-${me.uid}/update/dashboard.svc.app/Dashboard/star-d`;
    expect((await t.api.put(path, { auth: u.auth })).status).toBe(200);
    expect((await t.api.put(path, { auth: u.auth })).status).toBe(200);
    const stars = await t.api.get(`${STARS}/user-${me.uid}`, { auth: u.auth });
    expect(stars.body.spec.resource).toEqual([{ group: "dashboard.svc.app", kind: "Dashboard", names: ["star-d"] }]);
    expect((await t.api.get("/api/user/stars", { auth: u.auth })).body).toEqual(["star-d"]);
    expect((await t.api.delete(path, { auth: u.auth })).status).toBe(200);
    expect((await t.api.delete(path, { auth: u.auth })).status).toBe(204);
    expect((await t.api.post("/api/user/stars/dashboard/uid/star-d", { auth: u.auth })).body).toEqual({ message: "Dashboard starred!" });
    expect((await t.api.get(`${STARS}/user-${me.uid}`, { auth: u.auth })).body.spec.resource[0].names).toEqual(["star-d"]);
    expect((await t.api.delete("/api/user/stars/dashboard/uid/star-d", { auth: u.auth })).body).toEqual({ message: "Dashboard unstarred" });
    expect((await t.api.post("/api/user/stars/dashboard/uid/missing", { auth: u.auth })).status).toBe(404);
  });

  it("legacy stars by the dashboard's numeric id (issue 21: grafana-client's star_actual_dashboard_by_id) -> the same data; unknown -> 404; not a number -> 400", async () => {
    const u = await t.api.user("id-starrer", "Viewer");
    const created = await dash("star-by-id", "By id");
    const id = created.body.metadata.labels["svc.app/deprecatedInternalID"];
    expect(id).toMatch(/^\d+$/);
    expect((await t.api.post(`/api/user/stars/dashboard/${id}`, { auth: u.auth })).body).toEqual({ message: "Dashboard starred!" });
    expect((await t.api.get("/api/user/stars", { auth: u.auth })).body).toEqual(["star-by-id"]);
    expect((await t.api.delete(`/api/user/stars/dashboard/${id}`, { auth: u.auth })).body).toEqual({ message: "Dashboard unstarred" });
    expect((await t.api.get("/api/user/stars", { auth: u.auth })).body).toEqual([]);
    const missing = await t.api.post("/api/user/stars/dashboard/999999", { auth: u.auth });
    expect({ status: missing.status, message: missing.body.message }).toEqual({ status: 404, message: "Dashboard not found" });
    expect((await t.api.post("/api/user/stars/dashboard/abc", { auth: u.auth })).status).toBe(400);
  });

  it("stars of a deleted dashboard, or of a deleted folder and the dashboards in it, go with them", async () => {
    const u = await t.api.user("star-forgetter", "Viewer");
    await folder("star-gone-f", "Gone Folder");
    await dash("star-gone-d", "Gone", [], "star-gone-f");
    await dash("star-alone-d", "Alone");
    for (const uid of ["star-gone-d", "star-alone-d"]) await t.api.post(`/api/user/stars/dashboard/uid/${uid}`, { auth: u.auth });
    const me = (await t.api.get("/api/user", { auth: u.auth })).body;
    await t.api.put(`${STARS}/user-${me.uid}/update/folder.svc.app/Folder/star-gone-f`, { auth: u.auth });
    await t.api.delete(`${DASH}/star-alone-d`, { auth: ADMIN });
    expect((await t.api.get("/api/user/stars", { auth: u.auth })).body).toEqual(["star-gone-d"]);
    await t.api.delete(`${FOLD}/star-gone-f`, { auth: ADMIN });
    expect((await t.api.get("/api/user/stars", { auth: u.auth })).body).toEqual([]);
    expect((await t.api.get(`${STARS}/user-${me.uid}`, { auth: u.auth })).body.spec.resource).toEqual([]);
  });

  it("stars: a user cannot touch another user's stars", async () => {
    const a = await t.api.user("star-a", "Viewer");
    const b = await t.api.user("star-b", "Viewer");
    const bUid = (await t.api.get("/api/user", { auth: b.auth })).body.uid;
    await dash("star-x", "X");
    expect((await t.api.put(`${STARS}/user-${bUid}/update/dashboard.svc.app/Dashboard/star-x`, { auth: a.auth })).status).toBe(403);
    expect((await t.api.get(`${STARS}/user-${bUid}`, { auth: a.auth })).status).toBe(403);
  });

  it("search: folders first, then dashboards by title; filters; limit and page; tags sorted", async () => {
    await folder("s-fold", "Search Folder");
    await dash("s-b", "search Bravo", ["z", "a"], "s-fold");
    await dash("s-a", "Search alpha", ["a"]);
    await dash("s-c", "search charlie", ["a", "b"]);
    const all = (await t.api.get("/api/search?query=search", { auth: ADMIN })).body;
    expect(all.map((h: { uid: string }) => h.uid)).toEqual(["s-fold", "s-a", "s-b", "s-c"]);
    expect(all[0]).toMatchObject({ type: "dash-folder", url: "/dashboards/f/s-fold/search-folder" });
    expect(all[2]).toMatchObject({
      type: "dash-db", tags: ["a", "z"], url: "/d/s-b/search-bravo", folderUid: "s-fold", folderTitle: "Search Folder",
      folderUrl: "/dashboards/f/s-fold/search-folder", isStarred: false, orgId: 1,
    });
    expect(typeof all[2].id).toBe("number");
    const tagged = (await t.api.get("/api/search?tag=a&tag=b", { auth: ADMIN })).body;
    expect(tagged.map((h: { uid: string }) => h.uid)).toEqual(["s-c"]);
    expect((await t.api.get("/api/search?type=dash-folder&query=search", { auth: ADMIN })).body.map((h: { uid: string }) => h.uid)).toEqual(["s-fold"]);
    expect((await t.api.get("/api/search/?folderUIDs=s-fold", { auth: ADMIN })).body.map((h: { uid: string }) => h.uid)).toEqual(["s-b"]);
    expect((await t.api.get("/api/search?dashboardUIDs=s-a,s-c", { auth: ADMIN })).body.map((h: { uid: string }) => h.uid)).toEqual(["s-a", "s-c"]);
    const page2 = (await t.api.get("/api/search?query=search&limit=2&page=2", { auth: ADMIN })).body;
    expect(page2.map((h: { uid: string }) => h.uid)).toEqual(["s-b", "s-c"]);
    // invalid limits fall back to 1000
    expect((await t.api.get("/api/search?query=search&limit=5001", { auth: ADMIN })).body.length).toBe(4);
    expect((await t.api.get("/api/search?query=search&limit=abc", { auth: ADMIN })).body.length).toBe(4);
    expect((await t.api.get("/api/search?dashboardIds=1&dashboardUIDs=x", { auth: ADMIN })).status).toBe(400);
    const id = all[1].id;
    expect((await t.api.get(`/api/search?dashboardIds=${id}`, { auth: ADMIN })).body.map((h: { uid: string }) => h.uid)).toEqual(["s-a"]);
  });

  it("search: starred=true and isStarred follow the caller's stars", async () => {
    await dash("s-star", "search starred one");
    await t.api.post("/api/user/stars/dashboard/uid/s-star", { auth: ADMIN });
    const starred = (await t.api.get("/api/search?starred=true", { auth: ADMIN })).body;
    expect(starred.map((h: { uid: string }) => h.uid)).toEqual(["s-star"]);
    expect(starred[0].isStarred).toBe(true);
  });

  it("dashboard DTO: access flags by role", async () => {
    await dash("dto-a", "DTO Dashboard");
    const admin = (await t.api.get(`${DASH}/dto-a/dto`, { auth: ADMIN })).body;
    expect(admin.kind).toBe("DashboardWithAccessInfo");
    expect(admin.spec.title).toBe("DTO Dashboard");
    expect(admin.access).toMatchObject({ canSave: true, canEdit: true, canAdmin: true, canDelete: true, canStar: true, slug: "dto-dashboard", url: "/d/dto-a/dto-dashboard", version: 1 });
    const viewer = await t.api.user("dto-viewer", "Viewer");
    const v = (await t.api.get(`${DASH}/dto-a/dto`, { auth: viewer.auth })).body;
    expect(v.access).toMatchObject({ canSave: false, canEdit: false, canAdmin: false, canDelete: false, canStar: true });
    expect(v.access.annotationsPermissions.dashboard.canAdd).toBe(false);
    expect((await t.api.get(`${DASH}/dto-a/nope`, { auth: ADMIN })).status).toBe(404);
  });
});
