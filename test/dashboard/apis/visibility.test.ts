// Lists and search show only what the caller may read: a user with no basic
// role and a custom role on one folder sees that folder's content only.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../helpers/api.ts";
import { useServer } from "../../helpers/server.ts";

const DASH = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";
const FOLD = "/apis/folder.svc.app/v1/namespaces/default/folders";

describe("visibility by folder permission", () => {
  const t = useServer({ "server.edition": "enterprise" });

  it("a folder-scoped reader lists and searches only that folder's dashboards; others are 403", async () => {
    for (const f of ["vis-open", "vis-closed"]) await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: f }, spec: { title: f } } });
    await t.api.post(FOLD, { auth: ADMIN, body: { metadata: { name: "vis-inner", annotations: { "svc.app/folder": "vis-open" } }, spec: { title: "vis-inner" } } });
    const mk = (name: string, folder: string) =>
      t.api.post(DASH, { auth: ADMIN, body: { metadata: { name, annotations: { "svc.app/folder": folder } }, spec: { title: `vis ${name}` } } });
    await mk("vis-a", "vis-open");
    await mk("vis-b", "vis-closed");
    await mk("vis-c", "vis-inner"); // inherits the permission of its parent folder
    const user = await t.api.user("vis-user", "None");
    const role = await t.api.post("/api/access-control/roles", {
      auth: ADMIN,
      body: { name: "custom:vis-open-reader", permissions: [{ action: "dashboards:read", scope: "folders:uid:vis-open" }, { action: "folders:read", scope: "folders:uid:vis-open" }] },
    });
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "vis readers" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: user.id } });
    await t.api.post(`/api/access-control/teams/${team.body.teamId}/roles`, { auth: ADMIN, body: { roleUid: role.body.uid } });

    const listed = (await t.api.get(`${DASH}?limit=1`, { auth: user.auth })).body;
    // a page of one readable item, then the next readable one: unreadable items are skipped, not counted
    expect(listed.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["vis-a"]);
    const next = (await t.api.get(`${DASH}?limit=1&continue=${encodeURIComponent(listed.metadata.continue)}`, { auth: user.auth })).body;
    expect(next.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(["vis-c"]);
    expect(next.metadata.continue).toBeUndefined();
    expect((await t.api.get(`${DASH}/vis-b`, { auth: user.auth })).status).toBe(403);
    expect((await t.api.get(`${DASH}/vis-missing`, { auth: user.auth })).status).toBe(404);
    const found = (await t.api.get("/api/search?query=vis", { auth: user.auth })).body.map((h: { uid: string }) => h.uid);
    // folders first (a subfolder is readable through its parent), then dashboards
    expect(found).toEqual(["vis-inner", "vis-open", "vis-a", "vis-c"]);
    expect((await t.api.get("/api/search?type=dash-db&query=vis", { auth: ADMIN })).body.map((h: { uid: string }) => h.uid)).toEqual(["vis-a", "vis-b", "vis-c"]);
    expect((await t.api.get("/api/search?dashboardUID=vis-b", { auth: ADMIN })).body.map((h: { uid: string }) => h.uid)).toEqual(["vis-b"]);
    // "general" is the root: the folders at the top level, and no dashboard (all are in folders)
    expect((await t.api.get("/api/search?folderUIDs=general&query=vis", { auth: ADMIN })).body.map((h: { uid: string }) => h.uid)).toEqual(["vis-closed", "vis-open"]);
  });
});
