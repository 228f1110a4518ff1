// The legacy playlist API (/api/playlists) over the playlist.svc.app objects.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const PLAYLISTS = "/apis/playlist.svc.app/v1/namespaces/default/playlists";

describe("legacy playlists", () => {
  const t = useServer();

  it("create, list, get, items, update, delete: the same objects /apis serves", async () => {
    const created = await t.api.post("/api/playlists", {
      auth: ADMIN,
      body: { name: "Wall", interval: "5m", items: [{ type: "dashboard_by_tag", value: "ops", order: 2 }, { type: "dashboard_by_uid", value: "abc", order: 1 }] },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ name: "Wall", interval: "5m", items: [{ type: "dashboard_by_uid", value: "abc" }, { type: "dashboard_by_tag", value: "ops" }] });
    const uid = created.body.uid;
    expect((await t.api.get(`${PLAYLISTS}/${uid}`, { auth: ADMIN })).body.spec.title).toBe("Wall");
    expect((await t.api.get("/api/playlists?query=wal", { auth: ADMIN })).body).toEqual([{ id: created.body.id, uid, name: "Wall", interval: "5m" }]);
    expect((await t.api.get(`/api/playlists/${uid}/items`, { auth: ADMIN })).body).toHaveLength(2);
    const updated = await t.api.put(`/api/playlists/${uid}`, { auth: ADMIN, body: { name: "Wall 2", interval: "1m", items: [] } });
    expect(updated.body).toMatchObject({ uid, name: "Wall 2", interval: "1m", items: [] });
    expect((await t.api.delete(`/api/playlists/${uid}`, { auth: ADMIN })).status).toBe(200);
    const gone = await t.api.get(`/api/playlists/${uid}`, { auth: ADMIN });
    expect(gone.status).toBe(404);
    expect(gone.body.message).toBe("Playlist not found");
  });

  it("bad input 400 naming the field; a Viewer reads but may not create", async () => {
    const bad = await t.api.post("/api/playlists", { auth: ADMIN, body: { name: "x", interval: "soon" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("interval");
    const noName = await t.api.post("/api/playlists", { auth: ADMIN, body: { interval: "5m" } });
    expect(noName.status).toBe(400);
    expect(noName.body.message).toContain("name");
    const item = await t.api.post("/api/playlists", { auth: ADMIN, body: { name: "x", interval: "5m", items: [{ type: "nope", value: "a" }] } });
    expect(item.status).toBe(400);
    expect(item.body.message).toContain("type");
    const viewer = await t.api.user("pl-viewer", "Viewer");
    expect((await t.api.get("/api/playlists", { auth: viewer.auth })).status).toBe(200);
    expect((await t.api.post("/api/playlists", { auth: viewer.auth, body: { name: "v", interval: "5m" } })).status).toBe(403);
  });
});
