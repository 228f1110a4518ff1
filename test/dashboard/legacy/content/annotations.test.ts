import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const DASHBOARDS = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";
const FOLDERS = "/apis/folder.svc.app/v1/namespaces/default/folders";
const ids = (body: Array<{ id: number }>) => body.map((a) => a.id);

describe("annotations", () => {
  const t = useServer();
  const add = async (body: Record<string, unknown>, auth = ADMIN) => {
    const r = await t.api.post("/api/annotations", { auth, body });
    if (r.status !== 200) throw new Error(`adding annotation: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.id as number;
  };

  it("POST /api/annotations -> 200 {message, id}; GET /api/annotations/:id shows it", async () => {
    const r = await t.api.post("/api/annotations", { auth: ADMIN, body: { text: "a", tags: ["t1"], time: 1000, data: { k: 1 } } });
    expect(r.status).toBe(200);
    expect(r.body.message).toBe("Annotation added");
    expect(r.body.id).toBeGreaterThan(0);
    const one = await t.api.get(`/api/annotations/${r.body.id}`, { auth: ADMIN });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: r.body.id, text: "a", tags: ["t1"], time: 1000, timeEnd: 1000, alertId: 0, dashboardId: 0, panelId: 0, login: "admin", data: { k: 1 } });
    expect(one.body.dashboardUID).toBeUndefined();
  });

  it("text is required; not JSON -> bad request data; an end before the start is swapped; time defaults to now", async () => {
    const none = await t.api.post("/api/annotations", { auth: ADMIN, body: { tags: ["x"] } });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe("Failed to save annotation");
    const junk = await t.api.post("/api/annotations", { auth: ADMIN, body: "not json" });
    expect(junk.status).toBe(400);
    expect(junk.body.message).toBe("bad request data");
    const wrongType = await t.api.post("/api/annotations", { auth: ADMIN, body: { text: "x", time: "soon" } });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.message).toContain("time");
    const swapped = await add({ text: "s", time: 5000, timeEnd: 2000 });
    expect((await t.api.get(`/api/annotations/${swapped}`, { auth: ADMIN })).body).toMatchObject({ time: 2000, timeEnd: 5000 });
    const before = Date.now();
    const now = await add({ text: "now" });
    const got = (await t.api.get(`/api/annotations/${now}`, { auth: ADMIN })).body;
    expect(got.time).toBeGreaterThanOrEqual(before - 1000);
    expect(got.time).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("GET /api/annotations?from&to selects by overlap: an enclosing region, the inclusive end; without both ends no time filter", async () => {
    const region = await add({ text: "region", time: 1_000_000, timeEnd: 5_000_000, tags: ["overlap"] });
    const outside = await add({ text: "later", time: 9_000_000, tags: ["overlap"] });
    const q = (s: string) => t.api.get(`/api/annotations?tags=overlap&${s}`, { auth: ADMIN });
    expect(ids((await q("from=2000000&to=3000000")).body)).toEqual([region]);
    expect(ids((await q("from=6000000&to=7000000")).body)).toEqual([]);
    expect(ids((await q("from=5000000&to=9000000")).body)).toEqual([outside, region]);
    expect(ids((await q("from=2000000")).body)).toEqual([outside, region]);
  });

  it("tags are ANDed; matchAny=true ORs them; newest first; limit", async () => {
    const a = await add({ text: "A", tags: ["t-and-1", "t-and-2"], time: 10_000 });
    const b = await add({ text: "B", tags: ["t-and-1"], time: 20_000 });
    expect(ids((await t.api.get("/api/annotations?tags=t-and-1&tags=t-and-2", { auth: ADMIN })).body)).toEqual([a]);
    expect(ids((await t.api.get("/api/annotations?tags=t-and-1&tags=t-and-2&matchAny=true", { auth: ADMIN })).body)).toEqual([b, a]);
    expect(ids((await t.api.get("/api/annotations?tags=t-and-1&limit=1", { auth: ADMIN })).body)).toEqual([b]);
  });

  it("limit defaults to 100; type=alert and type=annotation; bad numbers -> 400", async () => {
    for (let i = 0; i < 105; i++) await add({ text: `bulk ${i}`, tags: ["bulk"], time: 100 + i });
    const all = await t.api.get("/api/annotations?tags=bulk", { auth: ADMIN });
    expect(all.body).toHaveLength(100);
    expect(all.body[0].time).toBe(204);
    expect((await t.api.get("/api/annotations?type=alert", { auth: ADMIN })).body).toEqual([]);
    const plain = await t.api.get("/api/annotations?type=annotation&limit=5", { auth: ADMIN });
    expect(plain.body).toHaveLength(5);
    for (const x of plain.body) expect(x.alertId).toBe(0);
    const bad = await t.api.get("/api/annotations?from=yesterday&to=1", { auth: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("from");
  });

  it("dashboard annotations: dashboardUID filter (wins over dashboardId), panelId, userId; unknown uid -> 400", async () => {
    const d = await t.api.post(DASHBOARDS, { auth: ADMIN, body: { metadata: { name: "ann-dash" }, spec: { title: "Ann" } } });
    const dashId = Number(d.body.metadata.labels["svc.app/deprecatedInternalID"]);
    const onPanel = await add({ text: "on panel", dashboardUID: "ann-dash", panelId: 3 });
    const onDash = await add({ text: "on dash", dashboardId: dashId });
    const got = await t.api.get("/api/annotations?dashboardUID=ann-dash", { auth: ADMIN });
    expect(ids(got.body).sort()).toEqual([onPanel, onDash].sort());
    for (const x of got.body) expect(x).toMatchObject({ dashboardUID: "ann-dash", dashboardId: dashId });
    expect(ids((await t.api.get("/api/annotations?dashboardUID=ann-dash&panelId=3", { auth: ADMIN })).body)).toEqual([onPanel]);
    expect(ids((await t.api.get(`/api/annotations?dashboardId=${dashId}&panelId=3`, { auth: ADMIN })).body)).toEqual([onPanel]);
    expect(ids((await t.api.get("/api/annotations?dashboardUID=ann-dash&dashboardId=999999&panelId=3", { auth: ADMIN })).body)).toEqual([onPanel]);
    const bad = await t.api.get("/api/annotations?dashboardUID=!!bad!!", { auth: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("Invalid dashboard UID in annotation request");
    const me = (await t.api.get("/api/user", { auth: ADMIN })).body.id;
    expect((await t.api.get(`/api/annotations?userId=${me}&dashboardUID=ann-dash`, { auth: ADMIN })).body).toHaveLength(2);
    expect((await t.api.get("/api/annotations?userId=999999&dashboardUID=ann-dash", { auth: ADMIN })).body).toEqual([]);
  });

  it("PUT replaces text and tags, keeps time; PATCH changes only what is given; unknown or bad id", async () => {
    const id = await add({ text: "old", tags: ["a"], time: 7000, timeEnd: 8000, data: { keep: true } });
    const put = await t.api.put(`/api/annotations/${id}`, { auth: ADMIN, body: { text: "new", tags: ["z"] } });
    expect(put.status).toBe(200);
    expect(put.body.message).toBe("Annotation updated");
    expect((await t.api.get(`/api/annotations/${id}`, { auth: ADMIN })).body).toMatchObject({ text: "new", tags: ["z"], time: 7000, timeEnd: 8000, data: { keep: true } });
    await t.api.put(`/api/annotations/${id}`, { auth: ADMIN, body: { text: "no tags" } });
    expect((await t.api.get(`/api/annotations/${id}`, { auth: ADMIN })).body.tags).toEqual([]);
    const patch = await t.api.patch(`/api/annotations/${id}`, { auth: ADMIN, body: { tags: ["only"] } });
    expect(patch.body.message).toBe("Annotation patched");
    expect((await t.api.get(`/api/annotations/${id}`, { auth: ADMIN })).body).toMatchObject({ text: "no tags", tags: ["only"] });
    await t.api.patch(`/api/annotations/${id}`, { auth: ADMIN, body: { text: "", timeEnd: 9000 } });
    expect((await t.api.get(`/api/annotations/${id}`, { auth: ADMIN })).body).toMatchObject({ text: "no tags", time: 7000, timeEnd: 9000 });
    const bad = await t.api.put("/api/annotations/abc", { auth: ADMIN, body: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("annotationId is invalid");
    const missing = await t.api.put("/api/annotations/999999", { auth: ADMIN, body: { text: "x" } });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("Annotation not found");
    expect((await t.api.patch("/api/annotations/999999", { auth: ADMIN, body: { text: "x" } })).status).toBe(404);
  });

  it("DELETE -> Annotation deleted, then 404; unknown -> 404", async () => {
    const id = await add({ text: "doomed" });
    const del = await t.api.delete(`/api/annotations/${id}`, { auth: ADMIN });
    expect(del.body).toEqual({ message: "Annotation deleted" });
    expect((await t.api.get(`/api/annotations/${id}`, { auth: ADMIN })).status).toBe(404);
    const again = await t.api.delete("/api/annotations/999999", { auth: ADMIN });
    expect(again.status).toBe(404);
    expect(again.body.message).toBe("Annotation not found");
  });

  it("POST /api/annotations/graphite: string tags, when in seconds, text what+data; errors", async () => {
    const r = await t.api.post("/api/annotations/graphite", { auth: ADMIN, body: { what: "deploy", tags: "ga gb", when: 1700000000, data: "v2" } });
    expect(r.status).toBe(200);
    expect(r.body.message).toBe("Graphite annotation added");
    expect((await t.api.get(`/api/annotations/${r.body.id}`, { auth: ADMIN })).body).toMatchObject({ time: 1700000000000, tags: ["ga", "gb"], text: "deploy\nv2" });
    const arr = await t.api.post("/api/annotations/graphite", { auth: ADMIN, body: { what: "x", tags: ["gc"], when: 1700000000123 } });
    expect((await t.api.get(`/api/annotations/${arr.body.id}`, { auth: ADMIN })).body).toMatchObject({ time: 1700000000123, tags: ["gc"], text: "x" });
    for (const body of [{ tags: ["a"] }, { what: "x", tags: [1] }, { what: "x", tags: { a: 1 } }]) {
      const bad = await t.api.post("/api/annotations/graphite", { auth: ADMIN, body });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toBe("Failed to save Graphite annotation");
    }
  });

  it("GET /api/annotations/tags -> {result:{tags:[{tag,count}]}} with a prefix filter and limit", async () => {
    await add({ text: "x", tags: ["env:prod", "team:web"] });
    await add({ text: "y", tags: ["env:prod", "env:dev"] });
    const r = await t.api.get("/api/annotations/tags?tag=env", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ result: { tags: [{ tag: "env:dev", count: 1 }, { tag: "env:prod", count: 2 }] } });
    expect((await t.api.get("/api/annotations/tags?tag=env&limit=1", { auth: ADMIN })).body.result.tags).toHaveLength(1);
    const id = await add({ text: "z", tags: ["env:prod"] });
    await t.api.delete(`/api/annotations/${id}`, { auth: ADMIN });
    expect((await t.api.get("/api/annotations/tags?tag=env:prod", { auth: ADMIN })).body.result.tags).toEqual([{ tag: "env:prod", count: 2 }]);
  });

  it("mass-delete: a dashboard id needs its panel", async () => {
    const bad = await t.api.post("/api/annotations/mass-delete", { auth: ADMIN, body: { dashboardId: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("bad request data");
    await t.api.post(DASHBOARDS, { auth: ADMIN, body: { metadata: { name: "mass-dash" }, spec: { title: "Mass" } } });
    await add({ text: "m1", dashboardUID: "mass-dash", panelId: 1 });
    const ok = await t.api.post("/api/annotations/mass-delete", { auth: ADMIN, body: { dashboardUID: "mass-dash" } });
    expect(ok.body).toEqual({ message: "Annotations deleted" });
    expect((await t.api.get("/api/annotations?dashboardUID=mass-dash", { auth: ADMIN })).body).toEqual([]);
  });

  it("deleting a dashboard removes its annotations", async () => {
    await t.api.post(DASHBOARDS, { auth: ADMIN, body: { metadata: { name: "gone-dash" }, spec: { title: "Gone" } } });
    const id = await add({ text: "goes", dashboardUID: "gone-dash" });
    await t.api.delete(`${DASHBOARDS}/gone-dash`, { auth: ADMIN });
    expect((await t.api.get(`/api/annotations/${id}`, { auth: ADMIN })).status).toBe(404);
  });

  it("permissions: Viewer reads but cannot create; dashboard annotations follow the dashboard's folder access", async () => {
    const viewer = await t.api.user("ann-viewer", "Viewer");
    const editor = await t.api.user("ann-editor", "Editor");
    const denied = await t.api.post("/api/annotations", { auth: viewer.auth, body: { text: "no" } });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain("Permissions needed: annotations:create");
    expect((await t.api.get("/api/annotations?limit=1", { auth: viewer.auth })).status).toBe(200);
    const orgNote = await add({ text: "editor note", tags: ["perm"] }, editor.auth);
    expect((await t.api.patch(`/api/annotations/${orgNote}`, { auth: viewer.auth, body: { text: "x" } })).status).toBe(403);

    const none = await t.api.user("ann-none", "None");
    expect((await t.api.get("/api/annotations", { auth: none.auth })).status).toBe(403);
    expect((await t.api.get(`/api/annotations/${orgNote}`, { auth: none.auth })).status).toBe(403);
  });
});

describe("annotations: a dashboard the caller cannot see (enterprise RBAC)", () => {
  const t = useServer({ "server.edition": "enterprise" });

  it("dashboard annotations are filtered by dashboard access; writes on them -> Access denied to this dashboard", async () => {
    for (const f of ["rbac-open", "rbac-closed"]) {
      await t.api.post(FOLDERS, { auth: ADMIN, body: { metadata: { name: f }, spec: { title: f } } });
      await t.api.post(DASHBOARDS, { auth: ADMIN, body: { metadata: { name: `${f}-d`, annotations: { "svc.app/folder": f } }, spec: { title: f } } });
    }
    const open = (await t.api.post("/api/annotations", { auth: ADMIN, body: { text: "o", dashboardUID: "rbac-open-d", tags: ["rb"] } })).body.id;
    const closed = (await t.api.post("/api/annotations", { auth: ADMIN, body: { text: "c", dashboardUID: "rbac-closed-d", tags: ["rb"] } })).body.id;
    const org = (await t.api.post("/api/annotations", { auth: ADMIN, body: { text: "org", tags: ["rb"] } })).body.id;
    const u = await t.api.user("rbac-ann", "None");
    const role = await t.api.post("/api/access-control/roles", {
      auth: ADMIN,
      body: {
        name: "custom:ann-open",
        permissions: [
          { action: "annotations:read", scope: "annotations:type:organization" },
          { action: "annotations:read", scope: "folders:uid:rbac-open" },
          { action: "annotations:create", scope: "folders:uid:rbac-open" },
          { action: "annotations:create", scope: "folders:uid:rbac-closed" },
          { action: "dashboards:read", scope: "folders:uid:rbac-open" },
        ],
      },
    });
    expect(role.status).toBe(200);
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "ann-team" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: u.id } });
    const assigned = await t.api.post(`/api/access-control/teams/${team.body.teamId}/roles`, { auth: ADMIN, body: { roleUid: role.body.uid } });
    expect(assigned.status).toBe(200);
    const seen = ids((await t.api.get("/api/annotations?tags=rb", { auth: u.auth })).body);
    expect(seen.sort()).toEqual([open, org].sort());
    expect((await t.api.get(`/api/annotations/${closed}`, { auth: u.auth })).status).toBe(404);
    const onClosed = await t.api.post("/api/annotations", { auth: u.auth, body: { text: "x", dashboardUID: "rbac-closed-d" } });
    expect(onClosed.status).toBe(403);
    expect(onClosed.body.message).toBe("Access denied to this dashboard");
    expect((await t.api.post("/api/annotations", { auth: u.auth, body: { text: "x", dashboardUID: "rbac-open-d" } })).status).toBe(200);
    const orgCreate = await t.api.post("/api/annotations", { auth: u.auth, body: { text: "x" } });
    expect(orgCreate.status).toBe(403);
  });
});
