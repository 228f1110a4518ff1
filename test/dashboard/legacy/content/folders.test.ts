// The legacy folder API (/api/folders) over the same objects as /apis.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const FOLDERS = "/apis/folder.svc.app/v1/namespaces/default/folders";
const RULES = "/api/v1/provisioning/alert-rules";

describe("legacy folders", () => {
  const t = useServer();

  it("create, get by uid and id, list: the same folder /apis serves", async () => {
    const created = await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "lf-ops", title: "Ops" } });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      uid: "lf-ops", title: "Ops", url: "/dashboards/f/lf-ops/ops", version: 1, orgId: 1,
      hasAcl: false, canSave: true, canEdit: true, canAdmin: true, canDelete: true, createdBy: "admin", updatedBy: "admin",
    });
    expect(created.body.id).toBeGreaterThan(0);
    const viaApis = await t.api.get(`${FOLDERS}/lf-ops`, { auth: ADMIN });
    expect(viaApis.status).toBe(200);
    expect(viaApis.body.spec.title).toBe("Ops");
    const byUid = await t.api.get("/api/folders/lf-ops", { auth: ADMIN });
    expect(byUid.body).toMatchObject({ uid: "lf-ops", id: created.body.id, parents: [] });
    const byId = await t.api.get(`/api/folders/id/${created.body.id}`, { auth: ADMIN });
    expect(byId.status).toBe(200);
    expect(byId.body.uid).toBe("lf-ops");
    const list = await t.api.get("/api/folders", { auth: ADMIN });
    expect(list.status).toBe(200);
    expect(list.body).toContainEqual({ id: created.body.id, uid: "lf-ops", title: "Ops" });
  });

  it("a folder made through /apis is served by the legacy API, and the other way round", async () => {
    await t.api.post(FOLDERS, { auth: ADMIN, body: { metadata: { name: "lf-apis" }, spec: { title: "From apis" } } });
    expect((await t.api.get("/api/folders/lf-apis", { auth: ADMIN })).body.title).toBe("From apis");
    const gen = await t.api.post("/api/folders", { auth: ADMIN, body: { title: "Generated uid" } });
    expect(gen.body.uid).toMatch(/^[a-zA-Z0-9]{14}$/);
    expect((await t.api.get(`${FOLDERS}/${gen.body.uid}`, { auth: ADMIN })).status).toBe(200);
  });

  it("nesting: parentUid on create, list by parentUid, parents, move, counts", async () => {
    await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "lf-top", title: "Top" } });
    const child = await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "lf-child", title: "Child", parentUid: "lf-top" } });
    expect(child.status).toBe(200);
    expect(child.body.parentUid).toBe("lf-top");
    expect(child.body.parents.map((p: { uid: string }) => p.uid)).toEqual(["lf-top"]);
    const under = await t.api.get("/api/folders?parentUid=lf-top", { auth: ADMIN });
    expect(under.body).toEqual([{ id: child.body.id, uid: "lf-child", title: "Child", parentUid: "lf-top" }]);
    const root = await t.api.get("/api/folders", { auth: ADMIN });
    expect(root.body.map((f: { uid: string }) => f.uid)).not.toContain("lf-child");
    expect((await t.api.get("/api/folders?parentUid=nope", { auth: ADMIN })).status).toBe(404);

    await t.api.post("/apis/dashboard.svc.app/v1/namespaces/default/dashboards", {
      auth: ADMIN, body: { metadata: { name: "lf-dash", annotations: { "svc.app/folder": "lf-child" } }, spec: { title: "In child" } },
    });
    const counts = await t.api.get("/api/folders/lf-top/counts", { auth: ADMIN });
    expect(counts.status).toBe(200);
    expect(counts.body).toEqual({ folder: 1, dashboard: 1, librarypanel: 0, alertrule: 0 });
    const k8sCounts = await t.api.get(`${FOLDERS}/lf-top/counts`, { auth: ADMIN });
    expect(k8sCounts.body.kind).toBe("DescendantCounts");
    expect(k8sCounts.body.counts).toContainEqual({ group: "dashboard.svc.app", resource: "dashboards", count: 1 });
    const parents = await t.api.get(`${FOLDERS}/lf-child/parents`, { auth: ADMIN });
    expect(parents.body.kind).toBe("FolderInfoList");
    expect(parents.body.items.map((i: { name: string }) => i.name)).toEqual(["lf-top", "lf-child"]);

    const circular = await t.api.post("/api/folders/lf-top/move", { auth: ADMIN, body: { parentUid: "lf-child" } });
    expect(circular.status).toBe(400);
    expect(circular.body.message).toContain("circular reference");
    const moved = await t.api.post("/api/folders/lf-child/move", { auth: ADMIN, body: { parentUid: "" } });
    expect(moved.status).toBe(200);
    expect(moved.body.parentUid).toBeUndefined();
    expect((await t.api.get(`${FOLDERS}/lf-child`, { auth: ADMIN })).body.metadata.annotations["svc.app/folder"]).toBeUndefined();
  });

  it("update: version must match unless overwrite; 412 version-mismatch in the real product's body", async () => {
    await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "lf-upd", title: "Before" } });
    const stale = await t.api.put("/api/folders/lf-upd", { auth: ADMIN, body: { title: "After", version: 7 } });
    expect(stale.status).toBe(412);
    expect(stale.body).toEqual({ status: "version-mismatch", message: "the folder has been changed by someone else" });
    const noVersion = await t.api.put("/api/folders/lf-upd", { auth: ADMIN, body: { title: "After" } });
    expect(noVersion.status).toBe(412);
    const ok = await t.api.put("/api/folders/lf-upd", { auth: ADMIN, body: { title: "After", version: 1 } });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ title: "After", version: 2 });
    const forced = await t.api.put("/api/folders/lf-upd", { auth: ADMIN, body: { title: "Forced", overwrite: true } });
    expect(forced.status).toBe(200);
    expect(forced.body.version).toBe(3);
    expect((await t.api.get(`${FOLDERS}/lf-upd`, { auth: ADMIN })).body.spec.title).toBe("Forced");
  });

  it("errors: unknown 404 not-found, bad uid, empty title, same title, duplicate uid, no auth", async () => {
    const missing = await t.api.get("/api/folders/nope", { auth: ADMIN });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ status: "not-found", message: "folder not found" });
    expect((await t.api.get("/api/folders/id/999999", { auth: ADMIN })).status).toBe(404);
    const bad = await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "a b", title: "x" } });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ message: "uid contains illegal characters", messageId: "folder.invalid-uid-chars" });
    const long = await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "x".repeat(41), title: "x" } });
    expect(long.body.message).toBe("uid too long, max 40 characters");
    const empty = await t.api.post("/api/folders", { auth: ADMIN, body: { title: "  " } });
    expect(empty.status).toBe(400);
    expect(empty.body.message).toBe("folder title cannot be empty");
    const noTitle = await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "lf-nt" } });
    expect(noTitle.status).toBe(400);
    expect(noTitle.body.message).toContain("title");
    await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "lf-same", title: "Same" } });
    const sameTitle = await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "lf-same2", title: "Same" } });
    expect(sameTitle.status).toBe(400);
    expect(sameTitle.body.message).toBe("a folder with that name already exists");
    expect((await t.api.post("/api/folders", { auth: ADMIN, body: { title: "general" } })).status).toBe(400);
    const dup = await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "lf-same", title: "Other" } });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe("a folder/dashboard with the same uid already exists");
    const anon = await t.api.get("/api/folders");
    expect(anon.status).toBe(401);
    expect(anon.body.messageId).toBe("auth.unauthorized");
  });

  it("viewers read but may not create, update or delete; a viewer in another org's header gets 403", async () => {
    const viewer = await t.api.user("lf-viewer", "Viewer");
    await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "lf-ro", title: "Read only" } });
    expect((await t.api.get("/api/folders/lf-ro", { auth: viewer.auth })).body).toMatchObject({ canSave: false, canEdit: false, canDelete: false });
    expect((await t.api.post("/api/folders", { auth: viewer.auth, body: { title: "Nope" } })).status).toBe(403);
    expect((await t.api.put("/api/folders/lf-ro", { auth: viewer.auth, body: { title: "Nope", overwrite: true } })).status).toBe(403);
    expect((await t.api.delete("/api/folders/lf-ro", { auth: viewer.auth })).status).toBe(403);
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "lf-other-org" } });
    const other = await t.api.get("/api/folders", { auth: viewer.auth, headers: { "X-Svc-Org-Id": String(org.body.orgId) } });
    expect(other.status).toBe(403);
  });

  it("delete: refused while the folder holds alert rules, unless forceDeleteRules=true; the answer names the folder", async () => {
    const f = await t.api.post("/api/folders", { auth: ADMIN, body: { uid: "lf-rules", title: "With rules" } });
    const rule = await t.api.post(RULES, {
      auth: ADMIN,
      body: { title: "r", ruleGroup: "g", folderUID: "lf-rules", condition: "A", data: [{ refId: "A" }] },
    });
    expect(rule.status).toBe(201);
    const refused = await t.api.delete("/api/folders/lf-rules", { auth: ADMIN });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe("folder cannot be deleted: folder contains alert rules");
    expect((await t.api.get("/api/folders/lf-rules/counts", { auth: ADMIN })).body.alertrule).toBe(1);
    const gone = await t.api.delete("/api/folders/lf-rules?forceDeleteRules=true", { auth: ADMIN });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ title: "With rules", message: "Folder With rules deleted", id: f.body.id, uid: "lf-rules" });
    expect((await t.api.get(`${RULES}/${rule.body.uid}`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.get(`${FOLDERS}/lf-rules`, { auth: ADMIN })).status).toBe(404);
  });

  it("paging: limit and page over the folders the caller may read, by title", async () => {
    for (const n of [3, 1, 2]) await t.api.post("/api/folders", { auth: ADMIN, body: { uid: `lf-page-${n}`, title: `zz page ${n}` } });
    const all = (await t.api.get("/api/folders?limit=1000", { auth: ADMIN })).body as Array<{ uid: string; title: string }>;
    const paged = all.filter((f) => f.uid.startsWith("lf-page-")).map((f) => f.uid);
    expect(paged).toEqual(["lf-page-1", "lf-page-2", "lf-page-3"]);
    const titles = all.map((f) => f.title);
    const p1 = (await t.api.get("/api/folders?limit=2&page=1", { auth: ADMIN })).body.map((f: { title: string }) => f.title);
    const p2 = (await t.api.get("/api/folders?limit=2&page=2", { auth: ADMIN })).body.map((f: { title: string }) => f.title);
    expect([...p1, ...p2]).toEqual(titles.slice(0, 4));
  });
});
