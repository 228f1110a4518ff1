// Dashboard snapshots (/api/snapshots, /api/dashboard/snapshots) as
// grafana-client's snapshots.py calls them.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("dashboard snapshots", () => {
  const t = useServer();
  const dashboard = { title: "Snap me", panels: [{ id: 1, type: "stat", snapshotData: [{ fields: [{ name: "v", values: [1, 2] }] }] }] };

  it("create -> {deleteKey, deleteUrl, key, url, id}; get by key -> {meta, dashboard}; list; delete by key", async () => {
    const created = await t.api.post("/api/snapshots", { auth: ADMIN, body: { dashboard, name: "first", expires: 3600 } });
    expect(created.status).toBe(200);
    expect(Object.keys(created.body).sort()).toEqual(["deleteKey", "deleteUrl", "id", "key", "url"]);
    expect(created.body.url).toMatch(new RegExp(`/dashboard/snapshot/${created.body.key}$`));
    expect(created.body.deleteUrl).toMatch(new RegExp(`/api/snapshots-delete/${created.body.deleteKey}$`));
    const got = await t.api.get(`/api/snapshots/${created.body.key}`, { auth: ADMIN });
    expect(got.status).toBe(200);
    expect(got.body.meta).toMatchObject({ isSnapshot: true, type: "snapshot", canSave: false, canEdit: false });
    expect(got.body.dashboard).toEqual(dashboard);
    const list = await t.api.get("/api/dashboard/snapshots?query=fir", { auth: ADMIN });
    expect(list.body).toEqual([expect.objectContaining({ id: created.body.id, name: "first", key: created.body.key, external: false })]);
    expect(list.body[0].deleteKey).toBeUndefined();
    const del = await t.api.delete(`/api/snapshots/${created.body.key}`, { auth: ADMIN });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ message: "Snapshot deleted. It might take an hour before it's cleared from any CDN caches.", id: created.body.id });
    expect((await t.api.get(`/api/snapshots/${created.body.key}`, { auth: ADMIN })).status).toBe(404);
  });

  it("delete by the delete key; a given key; an expired snapshot is gone; bad input and external -> 4xx", async () => {
    const s = await t.api.post("/api/snapshots", { auth: ADMIN, body: { dashboard, key: "my-key-1", deleteKey: "my-del-1" } });
    expect(s.body.key).toBe("my-key-1");
    expect((await t.api.post("/api/snapshots", { auth: ADMIN, body: { dashboard, key: "my-key-1" } })).status).toBe(409);
    expect((await t.api.get("/api/snapshots-delete/my-del-1", { auth: ADMIN })).body.id).toBe(s.body.id);
    expect((await t.api.get("/api/snapshots-delete/my-del-1", { auth: ADMIN })).status).toBe(404);
    const expiring = await t.api.post("/api/snapshots", { auth: ADMIN, body: { dashboard, expires: 1 } });
    await new Promise((r) => setTimeout(r, 1100));
    expect((await t.api.get(`/api/snapshots/${expiring.body.key}`, { auth: ADMIN })).status).toBe(404);
    const external = await t.api.post("/api/snapshots", { auth: ADMIN, body: { dashboard, external: true } });
    expect(external.status).toBe(403);
    expect(external.body.message).toBe("External dashboard creation is disabled");
    expect((await t.api.post("/api/snapshots", { auth: ADMIN, body: { name: "no dashboard" } })).body.message).toContain("dashboard");
    expect((await t.api.post("/api/snapshots", { auth: ADMIN, body: { dashboard, key: "a b" } })).body.message).toContain("key");
    expect((await t.api.post("/api/snapshots", { auth: ADMIN, body: { dashboard, expires: -5 } })).body.message).toContain("expires");
  });

  it("a Viewer reads a snapshot by its key but may not create one; an Editor sees and deletes only their own", async () => {
    const viewer = await t.api.user("snap-viewer", "Viewer");
    const editor = await t.api.user("snap-editor", "Editor");
    const other = await t.api.user("snap-editor2", "Editor");
    const mine = await t.api.post("/api/snapshots", { auth: editor.auth, body: { dashboard, name: "editor's" } });
    expect(mine.status).toBe(200);
    expect((await t.api.get(`/api/snapshots/${mine.body.key}`, { auth: viewer.auth })).status).toBe(200);
    expect((await t.api.post("/api/snapshots", { auth: viewer.auth, body: { dashboard } })).status).toBe(403);
    expect((await t.api.get("/api/dashboard/snapshots", { auth: other.auth })).body).toEqual([]);
    expect((await t.api.delete(`/api/snapshots/${mine.body.key}`, { auth: other.auth })).status).toBe(403);
    expect((await t.api.get("/api/dashboard/snapshots", { auth: editor.auth })).body.map((x: { key: string }) => x.key)).toEqual([mine.body.key]);
    expect((await t.api.delete(`/api/snapshots/${mine.body.key}`, { auth: editor.auth })).status).toBe(200);
    expect((await t.api.get(`/api/snapshots/${mine.body.key}`)).status).toBe(401);
  });
});
