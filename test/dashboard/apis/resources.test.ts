// The generic /apis machinery, through folders, dashboards and playlists.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../helpers/api.ts";
import { useServer } from "../../helpers/server.ts";

const DASH = "/apis/dashboard.svc.app/v1/namespaces/default/dashboards";
const FOLD = "/apis/folder.svc.app/v1/namespaces/default/folders";
const PLAY = "/apis/playlist.svc.app/v1/namespaces/default/playlists";

const dashboard = (name: string, title = name, extra: Record<string, unknown> = {}) => ({
  apiVersion: "dashboard.svc.app/v1", kind: "Dashboard", metadata: { name, ...extra }, spec: { title, panels: [], schemaVersion: 41 },
});
const folder = (name: string, parent?: string) => ({
  metadata: { name, ...(parent ? { annotations: { "svc.app/folder": parent } } : {}) }, spec: { title: `Folder ${name}` },
});

describe("/apis resources", () => {
  const t = useServer({ "server.edition": "enterprise" });
  const post = (path: string, body: unknown, auth = ADMIN) => t.api.post(path, { auth, body });
  const put = (path: string, body: unknown, auth = ADMIN) => t.api.put(path, { auth, body });
  const get = (path: string, auth = ADMIN) => t.api.get(path, { auth });

  it("create -> 201 with the whole envelope", async () => {
    const r = await post(DASH, dashboard("env-a", "Envelope"));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ kind: "Dashboard", apiVersion: "dashboard.svc.app/v1", spec: { title: "Envelope", version: 1 }, status: {} });
    const m = r.body.metadata;
    expect(m).toMatchObject({ name: "env-a", namespace: "default", generation: 1 });
    expect(m.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(m.uid).not.toBe("env-a");
    expect(m.resourceVersion).toMatch(/^\d+$/);
    expect(m.creationTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(m.annotations["svc.app/createdBy"]).toMatch(/^user:\w{14}$/);
    expect(m.annotations["svc.app/updatedBy"]).toBe(m.annotations["svc.app/createdBy"]);
    expect(m.annotations["svc.app/updatedTimestamp"]).toBe(m.creationTimestamp);
    expect(m.labels["svc.app/deprecatedInternalID"]).toMatch(/^\d+$/);
    expect((await get(`${DASH}/env-a`)).body).toEqual(r.body);
  });

  it("update: resourceVersion always changes, generation only with the spec; same content changes nothing", async () => {
    const created = (await post(DASH, dashboard("gen-a"))).body;
    const labelled = (await put(`${DASH}/gen-a`, { ...created, metadata: { ...created.metadata, labels: { ...created.metadata.labels, team: "a" } } })).body;
    expect(labelled.metadata.generation).toBe(1);
    expect(Number(labelled.metadata.resourceVersion)).toBeGreaterThan(Number(created.metadata.resourceVersion));
    const respec = (await put(`${DASH}/gen-a`, { ...labelled, spec: { ...labelled.spec, title: "Changed" } })).body;
    expect(respec.metadata.generation).toBe(2);
    expect(respec.spec.version).toBe(2);
    const same = (await put(`${DASH}/gen-a`, respec)).body;
    expect(same.metadata.resourceVersion).toBe(respec.metadata.resourceVersion);
  });

  it("generateName adds a random suffix; a duplicate name -> 409 AlreadyExists", async () => {
    const r = await post(DASH, { metadata: { generateName: "auto-" }, spec: { title: "Auto" } });
    expect(r.status).toBe(201);
    expect(r.body.metadata.name).toMatch(/^auto-[a-z0-9]{5}$/);
    const dup = await post(DASH, dashboard(r.body.metadata.name));
    expect(dup.status).toBe(409);
    expect(dup.body).toMatchObject({
      kind: "Status", status: "Failure", reason: "AlreadyExists", code: 409,
      message: `dashboards.dashboard.svc.app "${r.body.metadata.name}" already exists`,
      details: { name: r.body.metadata.name, group: "dashboard.svc.app", kind: "dashboards" },
    });
    expect((await post(DASH, { metadata: {}, spec: { title: "x" } })).status).toBe(400);
  });

  it("a stale resourceVersion -> 409 Conflict (dashboards), 412 (folders); none -> last write wins", async () => {
    const v1 = (await post(DASH, dashboard("stale-a"))).body;
    await put(`${DASH}/stale-a`, { ...v1, spec: { ...v1.spec, title: "second" } });
    const stale = await put(`${DASH}/stale-a`, { ...v1, spec: { ...v1.spec, title: "third" } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe("Conflict");
    const { resourceVersion: _rv, ...noRv } = v1.metadata;
    expect((await put(`${DASH}/stale-a`, { ...v1, metadata: noRv, spec: { ...v1.spec, title: "forced" } })).status).toBe(200);
    const f1 = (await post(FOLD, folder("stale-f"))).body;
    await put(`${FOLD}/stale-f`, { ...f1, spec: { title: "renamed" } });
    expect((await put(`${FOLD}/stale-f`, { ...f1, spec: { title: "again" } })).status).toBe(412);
  });

  it("concurrent updates from the same resourceVersion: one wins, the others -> 409", async () => {
    const v1 = (await post(DASH, dashboard("race-a"))).body;
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) => put(`${DASH}/race-a`, { ...v1, spec: { ...v1.spec, title: `from ${i}` } })),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
    expect((await get(`${DASH}/race-a`)).body.metadata.generation).toBe(2);
  });

  it("validation names the field; unknown name -> 404 Status", async () => {
    const bad = await post(DASH, { metadata: { name: "bad-a" }, spec: { title: "x", tags: "not-a-list" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^Dashboard.dashboard.svc.app "bad-a" is invalid: spec.tags: /);
    expect(bad.body.details.causes[0].field).toBe("spec.tags");
    const long = await post(DASH, dashboard("x".repeat(41)));
    expect(long.status).toBe(400);
    const missing = await get(`${DASH}/nope`);
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('dashboards.dashboard.svc.app "nope" not found');
    expect((await post(DASH, "not json")).status).toBe(400);
  });

  it("delete -> Status Success; then 404", async () => {
    await post(PLAY, { metadata: { name: "pl-del" }, spec: { title: "P", interval: "5m", items: [{ type: "dashboard_by_tag", value: "ops" }] } });
    const r = await t.api.delete(`${PLAY}/pl-del`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 200 });
    expect((await get(`${PLAY}/pl-del`)).status).toBe(404);
    expect((await post(PLAY, { metadata: { name: "pl-bad" }, spec: { title: "P", interval: "soon" } })).body.details.causes[0].field).toBe("spec.interval");
  });

  it("lists page with limit/continue; objects added and removed between pages cause no duplicates or skips", async () => {
    for (const n of ["pg-b", "pg-d", "pg-f", "pg-h", "pg-j"]) await post(DASH, dashboard(n, n, { labels: { paging: "yes" } }));
    const seen: string[] = [];
    let token: string | undefined;
    let round = 0;
    do {
      const q = `?labelSelector=paging%3Dyes&limit=2${token ? `&continue=${encodeURIComponent(token)}` : ""}`;
      const page = (await get(DASH + q)).body;
      expect(page.kind).toBe("DashboardList");
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.map((i: { metadata: { name: string } }) => i.metadata.name));
      token = page.metadata.continue;
      if (round++ === 0) {
        await post(DASH, dashboard("pg-a", "pg-a", { labels: { paging: "yes" } })); // before the cursor: not seen
        await post(DASH, dashboard("pg-i", "pg-i", { labels: { paging: "yes" } })); // after: seen
        await t.api.delete(`${DASH}/pg-h`, { auth: ADMIN });
      }
    } while (token);
    expect(seen).toEqual(["pg-b", "pg-d", "pg-f", "pg-i", "pg-j"]);
  });

  it("label selectors (=, !=, in, notin, exists) and the name field selector", async () => {
    await post(DASH, dashboard("sel-1", "s1", { labels: { env: "prod", tier: "web" } }));
    await post(DASH, dashboard("sel-2", "s2", { labels: { env: "dev" } }));
    await post(DASH, dashboard("sel-3", "s3", { labels: { env: "test", tier: "db" } }));
    const names = async (q: string) => (await get(`${DASH}?${q}`)).body.items.map((i: { metadata: { name: string } }) => i.metadata.name).filter((n: string) => n.startsWith("sel-"));
    expect(await names("labelSelector=env%3Dprod")).toEqual(["sel-1"]);
    expect(await names("labelSelector=env!%3Dprod,env")).toEqual(["sel-2", "sel-3"]);
    expect(await names("labelSelector=env%20in%20(dev,test)")).toEqual(["sel-2", "sel-3"]);
    expect(await names("labelSelector=env%20notin%20(dev),env")).toEqual(["sel-1", "sel-3"]);
    expect(await names("labelSelector=tier")).toEqual(["sel-1", "sel-3"]);
    expect(await names("labelSelector=!tier,env")).toEqual(["sel-2"]);
    expect(await names("fieldSelector=metadata.name%3Dsel-2")).toEqual(["sel-2"]);
    expect((await get(`${DASH}?labelSelector=${encodeURIComponent("env in (")}`)).status).toBe(400);
  });

  it("history: newest first with messages, paging, and GET ?resourceVersion", async () => {
    const v1 = (await post(DASH, dashboard("hist-a", "one"))).body;
    const v2 = (await put(`${DASH}/hist-a`, { ...v1, metadata: { ...v1.metadata, annotations: { "svc.app/message": "second" } }, spec: { ...v1.spec, title: "two" } })).body;
    const v3 = (await put(`${DASH}/hist-a`, { ...v2, spec: { ...v2.spec, title: "three" } })).body;
    const q = `?labelSelector=${encodeURIComponent("svc.app/get-history=true")}&fieldSelector=${encodeURIComponent("metadata.name=hist-a")}`;
    const all = (await get(DASH + q)).body;
    expect(all.items.map((i: { spec: { title: string } }) => i.spec.title)).toEqual(["three", "two", "one"]);
    expect(all.items[1].metadata.annotations["svc.app/message"]).toBe("second");
    expect(all.items.map((i: { metadata: { generation: number } }) => i.metadata.generation)).toEqual([3, 2, 1]);
    const p1 = (await get(`${DASH + q}&limit=2`)).body;
    expect(p1.items.length).toBe(2);
    const p2 = (await get(`${DASH + q}&limit=2&continue=${encodeURIComponent(p1.metadata.continue)}`)).body;
    expect(p2.items.map((i: { spec: { title: string } }) => i.spec.title)).toEqual(["one"]);
    expect(p2.metadata.continue).toBeUndefined();
    const old = await get(`${DASH}/hist-a?resourceVersion=${v1.metadata.resourceVersion}`);
    expect(old.body.spec.title).toBe("one");
    expect(v3.metadata.generation).toBe(3);
    expect((await get(`${DASH}?labelSelector=${encodeURIComponent("svc.app/get-history=true")}`)).status).toBe(400);
    expect((await get(`${DASH + q},foo%3Dbar`)).status).toBe(400);
  });

  it("nested folders: move by annotation, cycle refused, depth limit", async () => {
    await post(FOLD, folder("nf-a"));
    await post(FOLD, folder("nf-b", "nf-a"));
    await post(FOLD, folder("nf-c", "nf-b"));
    await post(FOLD, folder("nf-d", "nf-c"));
    const tooDeep = await post(FOLD, folder("nf-e", "nf-d"));
    expect(tooDeep.status).toBe(400);
    expect(tooDeep.body.message).toBe("folder max depth exceeded, max depth is 4");
    const a = (await get(`${FOLD}/nf-a`)).body;
    const cycle = await put(`${FOLD}/nf-a`, { ...a, metadata: { ...a.metadata, annotations: { ...a.metadata.annotations, "svc.app/folder": "nf-c" } } });
    expect(cycle.status).toBe(400);
    expect(cycle.body.message).toBe("cannot move folder under its own descendant, this would create a circular reference");
    await post(FOLD, folder("nf-x"));
    const c = (await get(`${FOLD}/nf-c`)).body;
    const moved = await put(`${FOLD}/nf-c`, { ...c, metadata: { ...c.metadata, annotations: { ...c.metadata.annotations, "svc.app/folder": "nf-x" } } });
    expect(moved.status).toBe(200);
    expect(moved.body.metadata.annotations["svc.app/folder"]).toBe("nf-x");
  });

  it("deleting a folder removes its subfolders and their dashboards", async () => {
    await post(FOLD, folder("del-top"));
    await post(FOLD, folder("del-sub", "del-top"));
    await post(DASH, dashboard("del-dash", "in sub", { annotations: { "svc.app/folder": "del-sub" } }));
    expect((await t.api.delete(`${FOLD}/del-top`, { auth: ADMIN })).status).toBe(200);
    expect((await get(`${FOLD}/del-sub`)).status).toBe(404);
    expect((await get(`${DASH}/del-dash`)).status).toBe(404);
  });

  it("permissions: a Viewer reads but cannot create; another org's namespace -> 403", async () => {
    const viewer = await t.api.user("apis-viewer", "Viewer");
    await post(DASH, dashboard("perm-a"));
    expect((await get(`${DASH}/perm-a`, viewer.auth)).status).toBe(200);
    const r = await post(DASH, dashboard("perm-b"), viewer.auth);
    expect(r.status).toBe(403);
    expect(r.body.kind).toBe("Status");
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Apis Org" } });
    expect((await get(`/apis/dashboard.svc.app/v1/namespaces/org-${org.body.orgId}/dashboards`, viewer.auth)).status).toBe(403);
    expect((await get("/apis/dashboard.svc.app/v1/namespaces/org-1/dashboards/perm-a")).status).toBe(200);
    expect((await get("/apis/dashboard.svc.app/v1/namespaces/bogus/dashboards")).status).toBe(400);
  });

  it("version levels: v1 served; v1beta1 not unless toggled; discovery lists what is served", async () => {
    expect((await get("/apis/dashboard.svc.app/v1beta1/namespaces/default/dashboards")).status).toBe(404);
    const groups = (await get("/apis")).body;
    expect(groups.kind).toBe("APIGroupList");
    const dash = groups.groups.find((g: { name: string }) => g.name === "dashboard.svc.app");
    expect(dash.versions).toEqual([{ groupVersion: "dashboard.svc.app/v1", version: "v1" }]);
  });
});

describe("/apis version toggles", () => {
  const t = useServer({ "dashboard.feature_toggles": ["dashboard.svc.app/v1beta1", "-playlist.svc.app/v1"] });

  it("a toggled beta version is served; a default one can be turned off; history only on stable", async () => {
    const beta = "/apis/dashboard.svc.app/v1beta1/namespaces/default/dashboards";
    const r = await t.api.post(beta, { auth: ADMIN, body: { metadata: { name: "beta-a" }, spec: { title: "b" } } });
    expect(r.status).toBe(201);
    expect(r.body.apiVersion).toBe("dashboard.svc.app/v1beta1");
    const q = `?labelSelector=${encodeURIComponent("svc.app/get-history=true")}&fieldSelector=${encodeURIComponent("metadata.name=beta-a")}`;
    expect((await t.api.get(beta + q, { auth: ADMIN })).status).toBe(400);
    expect((await t.api.get(`/apis/dashboard.svc.app/v1/namespaces/default/dashboards${q}`, { auth: ADMIN })).status).toBe(200);
    expect((await t.api.get(PLAY, { auth: ADMIN })).status).toBe(404);
  });
});
