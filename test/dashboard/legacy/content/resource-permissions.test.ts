// Managed folder and dashboard permissions: the defaults, the legacy
// permission lists, and access that really follows them (a Viewer removed
// from a folder loses it; a user or team given View gains it).
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const DASHBOARDS = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";

describe("folder and dashboard permissions", () => {
  const t = useServer();
  let viewer = { id: 0, login: "", password: "", auth: "" };
  let editor = { id: 0, login: "", password: "", auth: "" };
  let none = { id: 0, login: "", password: "", auth: "" };

  beforeAll(async () => {
    viewer = await t.api.user("rp-viewer", "Viewer");
    editor = await t.api.user("rp-editor", "Editor");
    none = await t.api.user("rp-none", "None");
  });

  const folder = async (uid: string, parentUid?: string) =>
    (await t.api.post("/api/folders", { auth: ADMIN, body: { uid, title: uid, ...(parentUid ? { parentUid } : {}) } })).body;
  const dashboard = async (uid: string, folderUid = "") =>
    (await t.api.post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid, title: uid }, folderUid } })).body;
  const setFolder = (uid: string, items: unknown[]) => t.api.post(`/api/folders/${uid}/permissions`, { auth: ADMIN, body: { items } });

  it("a new root folder gets the defaults: its creator Admin, Editor Edit, Viewer View; a subfolder only its creator", async () => {
    const f = await folder("rp-defaults");
    const list = await t.api.get("/api/folders/rp-defaults/permissions", { auth: ADMIN });
    expect(list.status).toBe(200);
    const brief = list.body.map((i: { userLogin: string; role?: string; permission: number; permissionName: string }) => [i.userLogin || i.role, i.permission, i.permissionName]);
    expect(brief).toEqual([["admin", 4, "Admin"], ["Editor", 2, "Edit"], ["Viewer", 1, "View"]]);
    expect(list.body[1]).toMatchObject({ folderId: f.id, folderUid: "rp-defaults", uid: "rp-defaults", isFolder: true, inherited: false, url: "/dashboards/f/rp-defaults/rp-defaults" });
    await folder("rp-defaults-sub", "rp-defaults");
    const sub = await t.api.get("/api/folders/rp-defaults-sub/permissions", { auth: ADMIN });
    expect(sub.body.filter((i: { inherited: boolean }) => !i.inherited).map((i: { userLogin: string }) => i.userLogin)).toEqual(["admin"]);
    expect(sub.body.filter((i: { inherited: boolean }) => i.inherited)).toHaveLength(3);
  });

  it("a Viewer removed from a folder no longer sees it or its dashboards, through either API or search", async () => {
    await folder("rp-secret");
    await dashboard("rp-secret-d", "rp-secret");
    expect((await t.api.get("/api/dashboards/uid/rp-secret-d", { auth: viewer.auth })).status).toBe(200);
    const set = await setFolder("rp-secret", [{ role: "Editor", permission: 2 }]);
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ message: "Folder permissions updated" });
    expect((await t.api.get("/api/folders/rp-secret", { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.get("/api/dashboards/uid/rp-secret-d", { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.get(`${DASHBOARDS}/rp-secret-d`, { auth: viewer.auth })).status).toBe(403);
    const hits = (await t.api.get("/api/search?query=rp-secret", { auth: viewer.auth })).body as Array<{ uid: string }>;
    expect(hits.map((h) => h.uid)).toEqual([]);
    expect(((await t.api.get("/api/folders", { auth: viewer.auth })).body as Array<{ uid: string }>).map((f) => f.uid)).not.toContain("rp-secret");
    // editors keep theirs
    expect((await t.api.get("/api/dashboards/uid/rp-secret-d", { auth: editor.auth })).status).toBe(200);
  });

  it("an Editor given only View may read but not save; a user with no role gains View through a user entry, a team's member through a team entry", async () => {
    await folder("rp-view");
    const d = await dashboard("rp-view-d", "rp-view");
    await setFolder("rp-view", [{ role: "Viewer", permission: 1 }, { userId: none.id, permission: 1 }]);
    expect((await t.api.get("/api/dashboards/uid/rp-view-d", { auth: editor.auth })).status).toBe(200);
    const save = await t.api.post("/api/dashboards/db", { auth: editor.auth, body: { dashboard: { uid: "rp-view-d", title: "x", version: d.version }, folderUid: "rp-view" } });
    expect(save.status).toBe(403);
    expect((await t.api.get("/api/dashboards/uid/rp-view-d", { auth: none.auth })).status).toBe(200);
    expect(((await t.api.get("/api/folders", { auth: none.auth })).body as Array<{ uid: string }>).map((f) => f.uid)).toEqual(["rp-view"]);

    const member = await t.api.user("rp-member", "None");
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "rp-team" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: member.id } });
    expect((await t.api.get("/api/dashboards/uid/rp-view-d", { auth: member.auth })).status).toBe(403);
    const byDashboard = await t.api.post("/api/dashboards/uid/rp-view-d/permissions", { auth: ADMIN, body: { items: [{ teamId: team.body.teamId, permission: 2 }] } });
    expect(byDashboard.body).toEqual({ message: "Dashboard permissions updated" });
    expect((await t.api.get("/api/dashboards/uid/rp-view-d", { auth: member.auth })).status).toBe(200);
    const saved = await t.api.post("/api/dashboards/db", { auth: member.auth, body: { dashboard: { uid: "rp-view-d", title: "by team", version: d.version }, folderUid: "rp-view" } });
    expect(saved.status).toBe(200);
    const list = await t.api.get(`/api/dashboards/id/${d.id}/permissions`, { auth: ADMIN });
    const own = list.body.filter((i: { inherited: boolean }) => !i.inherited);
    expect(own).toEqual([expect.objectContaining({ teamId: team.body.teamId, team: "rp-team", permission: 2, permissionName: "Edit", dashboardId: d.id, isFolder: false })]);
    expect(list.body.filter((i: { inherited: boolean }) => i.inherited).length).toBe(2);
  });

  it("a root dashboard gets Editor and Viewer defaults; one in a folder inherits; deleting drops its entries", async () => {
    await dashboard("rp-root-d");
    const root = await t.api.get("/api/dashboards/uid/rp-root-d/permissions", { auth: ADMIN });
    expect(root.body.map((i: { role?: string; userLogin: string }) => i.role ?? i.userLogin)).toEqual(["admin", "Editor", "Viewer"]);
    expect((await t.api.delete("/api/dashboards/uid/rp-root-d", { auth: ADMIN })).status).toBe(200);
    await dashboard("rp-root-d");
    expect((await t.api.get("/api/dashboards/uid/rp-root-d/permissions", { auth: ADMIN })).body).toHaveLength(3);
  });

  it("who may read and change permissions, and bad items -> 400 naming the item", async () => {
    await folder("rp-guard");
    expect((await t.api.get("/api/folders/rp-guard/permissions", { auth: viewer.auth })).status).toBe(403);
    expect((await setFolder("rp-nope", [])).status).toBe(404);
    const bad = [
      [{ permission: 3, role: "Viewer" }, "items[0].permission"],
      [{ permission: 1 }, "items[0] must name exactly one"],
      [{ permission: 1, userId: viewer.id, role: "Viewer" }, "items[0] must name exactly one"],
      [{ permission: 4, role: "Admin" }, "items[0].role"],
      [{ permission: 1, userId: 999999 }, "items[0].userId"],
      [{ permission: 1, teamId: 999999 }, "items[0].teamId"],
    ] as const;
    for (const [item, message] of bad) {
      const r = await setFolder("rp-guard", [item]);
      expect(r.status, JSON.stringify(item)).toBe(400);
      expect(r.body.message).toContain(message);
    }
    expect((await t.api.post("/api/folders/rp-guard/permissions", { auth: ADMIN, body: { items: "x" } })).status).toBe(400);
    // a folder Admin entry lets a Viewer manage that folder's permissions, nothing more
    await setFolder("rp-guard", [{ userId: viewer.id, permission: 4 }]);
    expect((await t.api.get("/api/folders/rp-guard/permissions", { auth: viewer.auth })).status).toBe(200);
    expect((await t.api.post("/api/folders/rp-guard/permissions", { auth: viewer.auth, body: { items: [{ userId: viewer.id, permission: 4 }] } })).status).toBe(200);
    expect((await t.api.get("/api/folders/rp-defaults/permissions", { auth: viewer.auth })).status).toBe(403);
  });
});
