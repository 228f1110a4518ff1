// Holes a review of issue 21 found, each reproduced as an attack and shut:
// a folder moved under one the caller administers (escalation), rules and
// library panels of a folder a Viewer was removed from, the versions of a
// deleted dashboard shown to whoever re-creates its uid, a Viewer probing a
// folder's children, two saves of the same version, grants kept by a user
// who left the organization, and rule groups rewritten without provenance.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const P = "/api/v1/provisioning";

describe("access hardening (issue 21 review)", () => {
  const t = useServer();
  let viewer = { id: 0, login: "", password: "", auth: "" };
  let editor = { id: 0, login: "", password: "", auth: "" };
  beforeAll(async () => {
    viewer = await t.api.user("ah-viewer", "Viewer");
    editor = await t.api.user("ah-editor", "Editor");
  });
  const folder = (uid: string, auth = ADMIN, parentUid?: string) =>
    t.api.post("/api/folders", { auth, body: { uid, title: uid, ...(parentUid ? { parentUid } : {}) } });

  it("an Editor cannot move a folder under one they administer to take its permissions over", async () => {
    await folder("ah-shared");
    expect((await folder("ah-mine", editor.auth)).status).toBe(200);
    const move = await t.api.post("/api/folders/ah-shared/move", { auth: editor.auth, body: { parentUid: "ah-mine" } });
    expect(move.status).toBe(403);
    expect(move.body.messageId).toBe("folder.accessEscalation");
    // nor through /apis
    const apis = await t.api.get("/apis/folder.svc.app/v1/namespaces/default/folders/ah-shared", { auth: ADMIN });
    const put = await t.api.put("/apis/folder.svc.app/v1/namespaces/default/folders/ah-shared", {
      auth: editor.auth, body: { ...apis.body, metadata: { ...apis.body.metadata, annotations: { "svc.app/folder": "ah-mine" } } },
    });
    expect(put.status).toBe(403);
    expect((await t.api.post("/api/folders/ah-shared/permissions", { auth: editor.auth, body: { items: [] } })).status).toBe(403);
    // an Admin moves it
    expect((await t.api.post("/api/folders/ah-shared/move", { auth: ADMIN, body: { parentUid: "ah-mine" } })).status).toBe(200);
  });

  it("a Viewer taken off a folder no longer reads its alert rules or library panels", async () => {
    await folder("ah-private");
    const rule = await t.api.post(`${P}/alert-rules`, {
      auth: ADMIN, body: { title: "r", ruleGroup: "g", folderUID: "ah-private", condition: "A", data: [{ refId: "A", model: {} }] },
    });
    const panel = await t.api.post("/api/library-elements", { auth: ADMIN, body: { folderUid: "ah-private", name: "ah-panel", kind: 1, model: { type: "text" } } });
    expect(panel.status).toBe(200);
    expect((await t.api.get(`${P}/alert-rules/${rule.body.uid}`, { auth: viewer.auth })).status).toBe(200);
    await t.api.post("/api/folders/ah-private/permissions", { auth: ADMIN, body: { items: [{ role: "Editor", permission: 2 }] } });
    expect((await t.api.get(`${P}/alert-rules/${rule.body.uid}`, { auth: viewer.auth })).status).toBe(403);
    expect(((await t.api.get(`${P}/alert-rules`, { auth: viewer.auth })).body as Array<{ uid: string }>).map((r) => r.uid)).not.toContain(rule.body.uid);
    expect((await t.api.get(`${P}/folder/ah-private/rule-groups/g`, { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.get(`/api/library-elements/${panel.body.result.uid}`, { auth: viewer.auth })).status).toBe(404);
    // the Editor keeps both, and may edit the panel
    expect((await t.api.get(`${P}/alert-rules/${rule.body.uid}`, { auth: editor.auth })).status).toBe(200);
    const patch = await t.api.patch(`/api/library-elements/${panel.body.result.uid}`, {
      auth: editor.auth, body: { name: "ah-panel", kind: 1, model: { type: "text", title: "x" }, version: panel.body.result.version, folderUid: "ah-private" },
    });
    expect(patch.status).toBe(200);
  });

  it("a dashboard deleted and made again under its uid shows only its own versions", async () => {
    const save = (body: Record<string, unknown>, auth = ADMIN) => t.api.post("/api/dashboards/db", { auth, body });
    await save({ dashboard: { uid: "ah-payroll", title: "secret v1", panels: [{ id: 1, targets: [{ expr: "salary" }] }] } });
    await save({ dashboard: { uid: "ah-payroll", title: "secret v2", version: 1 } });
    await t.api.delete("/api/dashboards/uid/ah-payroll", { auth: ADMIN });
    expect((await save({ dashboard: { uid: "ah-payroll", title: "mine" } }, editor.auth)).status).toBe(200);
    const versions = await t.api.get("/api/dashboards/uid/ah-payroll/versions", { auth: editor.auth });
    expect(versions.body.versions.map((v: { version: number }) => v.version)).toEqual([1]);
    expect((await t.api.get("/api/dashboards/uid/ah-payroll/versions/2", { auth: editor.auth })).status).toBe(404);
    const v1 = await t.api.get("/api/dashboards/uid/ah-payroll/versions/1", { auth: editor.auth });
    expect(v1.body.data.title).toBe("mine");
    expect((await t.api.post("/api/dashboards/uid/ah-payroll/restore", { auth: editor.auth, body: { version: 2 } })).status).toBe(404);
    const history = await t.api.get("/apis/dashboard.svc.app/v1/namespaces/default/dashboards?labelSelector=svc.app/get-history=true&fieldSelector=metadata.name=ah-payroll", { auth: editor.auth });
    expect(history.body.items.map((o: { spec: { title: string } }) => o.spec.title)).toEqual(["mine"]);
  });

  it("a Viewer asking to create in a folder learns nothing of it: 403 before any check of its children", async () => {
    await folder("ah-hr");
    await folder("ah-layoffs", ADMIN, "ah-hr");
    for (const parentUid of ["ah-hr", "ah-none"]) {
      const r = await t.api.post("/api/folders", { auth: viewer.auth, body: { title: "ah-layoffs", parentUid } });
      expect(r.status, parentUid).toBe(403);
    }
    expect((await t.api.get("/api/dashboards/home", { auth: viewer.auth })).body.meta.canEdit).toBe(false);
  });

  it("two saves of the same version: one is stored, the other is a 412, none is lost silently", async () => {
    await t.api.post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid: "ah-race", title: "race" } } });
    const results = await Promise.all(
      ["a", "b", "c", "d"].map((who) => t.api.post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid: "ah-race", title: "race", version: 1, who } } })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 412, 412, 412]);
    const winner = results.find((r) => r.status === 200)!;
    expect(winner.body.version).toBe(2);
  });

  it("a user removed from the organization and added again starts from their role: their folder grants went with them", async () => {
    const u = await t.api.user("ah-leaver", "Viewer");
    await folder("ah-granted");
    await t.api.post("/api/folders/ah-granted/permissions", { auth: ADMIN, body: { items: [{ userId: u.id, permission: 4 }] } });
    expect((await t.api.get("/api/folders/ah-granted/permissions", { auth: u.auth })).status).toBe(200);
    expect((await t.api.delete(`/api/org/users/${u.id}`, { auth: ADMIN })).status).toBe(200);
    expect((await t.api.post("/api/org/users", { auth: ADMIN, body: { loginOrEmail: u.login, role: "Viewer" } })).status).toBe(200);
    expect((await t.api.get("/api/folders/ah-granted/permissions", { auth: u.auth })).status).toBe(403);
    const list = await t.api.get("/api/folders/ah-granted/permissions", { auth: ADMIN });
    expect(list.body.some((i: { userId: number }) => i.userId === u.id)).toBe(false);
  });

  it("a provisioned rule group is not rewritten or deleted as editable (X-Disable-Provenance)", async () => {
    await folder("ah-rules");
    const group = { interval: 60, rules: [{ uid: "ah-r1", title: "r1", condition: "A", data: [{ refId: "A", model: {} }] }] };
    expect((await t.api.put(`${P}/folder/ah-rules/rule-groups/g1`, { auth: ADMIN, body: group })).status).toBe(200);
    const asEditable = await t.api.put(`${P}/folder/ah-rules/rule-groups/g1`, { auth: ADMIN, headers: { "X-Disable-Provenance": "true" }, body: group });
    expect(asEditable.status).toBe(403);
    expect(asEditable.body.message).toBe("cannot change provenance from 'api' to ''");
    expect((await t.api.delete(`${P}/folder/ah-rules/rule-groups/g1`, { auth: ADMIN, headers: { "X-Disable-Provenance": "true" } })).status).toBe(403);
    expect((await t.api.delete(`${P}/folder/ah-rules/rule-groups/g1`, { auth: ADMIN })).status).toBe(204);
  });

  it("a Viewer's annotation list follows the folder permissions as they change (its per-caller cache is refreshed)", async () => {
    await folder("ah-ann");
    const save = (uid: string, folderUid = "") => t.api.post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid, title: uid }, folderUid } });
    await save("ah-ann-in", "ah-ann");
    await save("ah-ann-root");
    for (const dashboardUID of ["ah-ann-in", "ah-ann-root"]) {
      expect((await t.api.post("/api/annotations", { auth: ADMIN, body: { dashboardUID, text: `on ${dashboardUID}`, tags: ["ah-ann"] } })).status).toBe(200);
    }
    const seen = async () =>
      ((await t.api.get("/api/annotations?limit=1000", { auth: viewer.auth })).body as Array<{ text: string }>).map((a) => a.text).filter((x) => x.startsWith("on ah-ann")).sort();
    expect(await seen()).toEqual(["on ah-ann-in", "on ah-ann-root"]);
    await t.api.post("/api/folders/ah-ann/permissions", { auth: ADMIN, body: { items: [{ role: "Editor", permission: 2 }] } });
    expect(await seen()).toEqual(["on ah-ann-root"]);
    expect((await t.api.get("/api/annotations?dashboardUID=ah-ann-in", { auth: viewer.auth })).body).toEqual([]);
    await t.api.post("/api/folders/ah-ann/permissions", { auth: ADMIN, body: { items: [{ role: "Viewer", permission: 1 }] } });
    expect(await seen()).toEqual(["on ah-ann-in", "on ah-ann-root"]);
    // a dashboard moved out of reach is gone from the list at once
    await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "ah-ann-closed", title: "ah-ann-closed" } });
    await t.api.post("/api/folders/ah-ann-closed/permissions", { auth: ADMIN, body: { items: [] } });
    await t.api.post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid: "ah-ann-root", title: "ah-ann-root", version: 1 }, folderUid: "ah-ann-closed", overwrite: true } });
    await t.api.post("/api/dashboards/uid/ah-ann-root/permissions", { auth: ADMIN, body: { items: [] } });
    expect(await seen()).toEqual(["on ah-ann-in"]);
  });
});
