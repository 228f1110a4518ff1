// Three Outpost nodes on one PostgreSQL database (issue 26): what is written
// through one node is what the others answer, including what they held in
// memory before the write (users, service account tokens, sessions,
// dashboards, data sources, folder permissions, the stores' access tokens),
// and a permission or token revoked on one node is refused on the others.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, basic, bearer, client } from "../helpers/api.ts";
import { pollUntil } from "../helpers/eventually.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

let pg: PostgresServer;
const nodes: TestServer[] = [];
const SECRET_KEY = "a-cluster-wide-secret-key-for-the-test";

beforeAll(async () => {
  pg = await startPostgres();
  const url = await pg.createDatabase();
  // one after the other: the first migrates, the others find it done (starting together is the backend test's)
  for (let i = 0; i < 3; i++) {
    nodes.push(await startTestServer({ "storage.database_url": url, "security.secret_key": SECRET_KEY, "metrics.auth.type": "tokens", "server.node_name": `node-${"abc"[i]}` }));
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await pg?.stop();
});

const api = (i: number) => client(nodes[i]!.urls.dashboard);
/** every other node answers `check` true (polled: a change arrives as its commit's notification) */
async function onOthers(check: (i: number) => Promise<boolean>): Promise<void> {
  for (const i of [1, 2]) expect(await pollUntil(() => check(i))).toBe(true);
}
const status = async (p: Promise<{ status: number }>) => (await p).status;

describe("three nodes on one PostgreSQL database", () => {
  it("every node lists the three, their roles and the one running the stores (the first to start); /api/health names them without addresses", async () => {
    for (const i of [0, 1, 2]) {
      const c = await api(i).get("/api/admin/cluster", { auth: ADMIN });
      expect(c.status).toBe(200);
      expect(c.body.backend).toBe("postgres");
      expect(c.body.storeNode).toBe("node-a");
      const names = (c.body.nodes as Array<{ name: string; roles: string[]; up: boolean; storeActive: boolean; self: boolean; urls: Record<string, string> }>);
      expect(names.map((n) => [n.name, n.roles, n.up, n.storeActive]).sort()).toEqual([
        ["node-a", ["dashboard", "stores"], true, true], ["node-b", ["dashboard", "stores"], true, false], ["node-c", ["dashboard", "stores"], true, false],
      ]);
      expect(names.find((n) => n.self)!.name).toBe(`node-${"abc"[i]}`);
      expect(names.find((n) => n.name === "node-a")!.urls.metrics).toBe(nodes[0]!.urls.metrics);
    }
    const health = await api(2).get("/api/health");
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ database: "ok", node: "node-c", storeNode: "node-a" });
    expect(JSON.stringify(health.body)).not.toContain("127.0.0.1");
    // a viewer may not see where the nodes are
    const viewer = await api(0).user("cluster-viewer", "Viewer");
    expect((await api(1).get("/api/admin/cluster", { auth: viewer.auth })).status).toBe(403);
  });

  it("a user made on A signs in on B and C; disabled on A, refused on B and C", async () => {
    // B and C hold their access model before the user exists
    for (const i of [1, 2]) expect(await status(api(i).get("/api/users/search", { auth: ADMIN }))).toBe(200);
    const made = await api(0).post("/api/admin/users", { auth: ADMIN, body: { login: "ana", password: "ana-password-1", email: "ana@example.com" } });
    expect(made.status).toBe(200);
    const ana = basic("ana", "ana-password-1");
    // seen first as the admin: signing in as ana before she is there would count as failed sign-ins (and lock her out)
    await onOthers(async (i) => (await status(api(i).get("/api/users/lookup?loginOrEmail=ana", { auth: ADMIN }))) === 200);
    for (const i of [1, 2]) expect(await status(api(i).get("/api/user", { auth: ana }))).toBe(200);
    expect((await api(0).post(`/api/admin/users/${made.body.id}/disable`, { auth: ADMIN })).status).toBe(200);
    await onOthers(async (i) => (await status(api(i).get("/api/user", { auth: ana }))) === 401);
  });

  it("a service account token made on A works on B and C; deleted on A, refused there", async () => {
    const sa = await api(0).post("/api/serviceaccounts", { auth: ADMIN, body: { name: "robot", role: "Viewer" } });
    expect(sa.status).toBe(201);
    const token = await api(0).post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "robot-key" } });
    const auth = bearer(token.body.key);
    await onOthers(async (i) => (await status(api(i).get("/api/search", { auth }))) === 200);
    expect((await api(0).delete(`/api/serviceaccounts/${sa.body.id}/tokens/${token.body.id}`, { auth: ADMIN })).status).toBe(200);
    await onOthers(async (i) => (await status(api(i).get("/api/search", { auth }))) === 401);
  });

  it("a session made on A is good on B; signed out on A, refused on B and C", async () => {
    const login = await api(0).post("/login", { body: { user: "admin", password: "admin" } });
    const cookie = { Cookie: (login.headers.get("set-cookie") ?? "").split(";")[0]! };
    for (const i of [1, 2]) expect(await status(api(i).get("/api/user", { headers: cookie }))).toBe(200);
    const out = await fetch(`${nodes[0]!.urls.dashboard}/logout`, { headers: cookie, redirect: "manual" });
    expect(out.status).toBe(302);
    await onOthers(async (i) => (await status(api(i).get("/api/user", { headers: cookie }))) === 401);
  });

  it("a dashboard saved on A is read on B and C, then its new version, then its deletion", async () => {
    // B and C hold the bucket (the list) before
    for (const i of [1, 2]) expect(await status(api(i).get("/api/search?type=dash-db", { auth: ADMIN }))).toBe(200);
    const saved = await api(0).post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid: "shared-d", title: "Shared" } } });
    expect(saved.status).toBe(200);
    const titleOn = async (i: number) => (await api(i).get("/api/dashboards/uid/shared-d", { auth: ADMIN })).body?.dashboard?.title;
    await onOthers(async (i) => (await titleOn(i)) === "Shared");
    await onOthers(async (i) => ((await api(i).get("/api/search?query=Shared", { auth: ADMIN })).body as unknown[]).length === 1);
    const v2 = await api(0).post("/api/dashboards/db", { auth: ADMIN, body: { dashboard: { uid: "shared-d", title: "Shared v2", version: saved.body.version } } });
    expect(v2.status).toBe(200);
    await onOthers(async (i) => (await titleOn(i)) === "Shared v2");
    expect(await status(api(0).delete("/api/dashboards/uid/shared-d", { auth: ADMIN }))).toBe(200);
    await onOthers(async (i) => (await status(api(i).get("/api/dashboards/uid/shared-d", { auth: ADMIN }))) === 404);
  });

  it("a data source made on A is listed and used on B and C; renamed and deleted on A, so there", async () => {
    for (const i of [1, 2]) expect(await status(api(i).get("/api/datasources", { auth: ADMIN }))).toBe(200);
    const made = await api(0).post("/api/datasources", { auth: ADMIN, body: { name: "shared-prom", type: "prometheus", access: "proxy", url: "http://127.0.0.1:9" } });
    expect(made.status).toBe(200);
    const uid = made.body.datasource.uid as string;
    await onOthers(async (i) => (await api(i).get(`/api/datasources/uid/${uid}`, { auth: ADMIN })).body?.name === "shared-prom");
    const renamed = await api(0).put(`/api/datasources/uid/${uid}`, { auth: ADMIN, body: { name: "renamed-prom", type: "prometheus", access: "proxy", url: "http://127.0.0.1:9" } });
    expect(renamed.status).toBe(200);
    await onOthers(async (i) => (await api(i).get("/api/datasources/name/renamed-prom", { auth: ADMIN })).status === 200);
    expect(await status(api(0).delete(`/api/datasources/uid/${uid}`, { auth: ADMIN }))).toBe(200);
    await onOthers(async (i) => (await status(api(i).get(`/api/datasources/uid/${uid}`, { auth: ADMIN }))) === 404);
  });

  it("a folder permission given on A lets a user in on B; taken away on A, refused on B and C", async () => {
    const viewer = await api(0).user("fp-viewer", "None");
    expect((await api(0).post("/api/folders", { auth: ADMIN, body: { uid: "shared-f", title: "Shared folder" } })).status).toBe(200);
    await onOthers(async (i) => (await status(api(i).get("/api/folders/shared-f", { auth: viewer.auth }))) === 403);
    const given = await api(0).post("/api/folders/shared-f/permissions", { auth: ADMIN, body: { items: [{ userId: viewer.id, permission: 1 }] } });
    expect(given.status).toBe(200);
    await onOthers(async (i) => (await status(api(i).get("/api/folders/shared-f", { auth: viewer.auth }))) === 200);
    expect((await api(0).post("/api/folders/shared-f/permissions", { auth: ADMIN, body: { items: [] } })).status).toBe(200);
    await onOthers(async (i) => (await status(api(i).get("/api/folders/shared-f", { auth: viewer.auth }))) === 403);
  });

  it("a store token made on A's admin API opens B's and C's metrics store; deleted on A, refused there", async () => {
    const policy = await api(0).post("/api/admin/access-policies", { auth: ADMIN, body: { name: "shared-reader", realms: [{ tenant: "team-a" }], scopes: ["metrics:read"] } });
    expect(policy.status).toBe(200);
    const token = await api(0).post("/api/admin/access-tokens", { auth: ADMIN, body: { name: "shared-reader-1", access_policy: "shared-reader" } });
    expect(token.status).toBe(200);
    const secret = token.body.token as string;
    const query = (i: number) => fetch(`${nodes[i]!.urls.metrics!}/prometheus/api/v1/query?query=vector(1)`, { headers: { Authorization: basic("team-a", secret) } }).then((r) => r.status);
    await onOthers(async (i) => (await query(i)) === 200);
    const current = await api(0).get("/api/admin/access-tokens/shared-reader-1", { auth: ADMIN });
    const gone = await api(0).delete("/api/admin/access-tokens/shared-reader-1", { auth: ADMIN, headers: { "If-Match": current.headers.get("etag") ?? "*" } });
    expect(gone.status).toBe(200);
    await onOthers(async (i) => (await query(i)) === 401);
  });
});
