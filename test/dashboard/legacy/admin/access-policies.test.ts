// The stores' access policies and tokens from the dashboard (issue 22):
// /api/admin/access-policies and /api/admin/access-tokens for server
// administrators, over the same StoreAccess as the stores, so a token made
// here works against the metrics store in tokens mode and a token deleted
// here is refused there at once. The secret is in the creation answer only:
// never in a GET, the server's log or the database (a hash only).
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN, bearer } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const POLICIES = "/api/admin/access-policies";
const TOKENS = "/api/admin/access-tokens";

const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("/api/admin/access-policies and /api/admin/access-tokens", () => {
  const t = useServer({ "metrics.auth.type": "tokens" });
  /** the metrics store's query API as a data source or Grafana would call it */
  const query = (tenant: string, secret: string) =>
    fetch(`${t.server.urls.metrics!}/prometheus/api/v1/query?query=vector(1)`, { headers: { Authorization: basicAuth(tenant, secret) } });
  let orgAdmin = "";

  beforeAll(async () => {
    orgAdmin = (await t.api.user("access-org-admin", "Admin")).auth;
  });

  it("a server admin creates, reads, lists, updates and deletes a policy (GEM bodies, ETags)", async () => {
    const created = await t.api.post(POLICIES, {
      auth: ADMIN,
      body: { name: "team-a-rw", display_name: "Team A", realms: [{ tenant: "team-a" }], scopes: ["metrics:read", "metrics:write"] },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      name: "team-a-rw", display_name: "Team A", realms: [{ tenant: "team-a", cluster: "", label_policies: [] }],
      scopes: ["metrics:read", "metrics:write"], status: "active", created_at: expect.any(String), updated_at: expect.any(String),
    });
    const etag = created.headers.get("ETag");
    expect(etag).toBe('"policy-team-a-rw-1"');

    const one = await t.api.get(`${POLICIES}/team-a-rw`, { auth: ADMIN });
    expect(one.status).toBe(200);
    expect(one.headers.get("ETag")).toBe(etag);
    expect(one.body).toEqual(created.body);
    const list = await t.api.get(POLICIES, { auth: ADMIN });
    expect(list.body.type).toBe("accesspolicy");
    expect(list.body.items.map((p: { name: string }) => p.name)).toContain("team-a-rw");

    // a PUT replaces the mutable fields; no If-Match needed from the dashboard
    const put = await t.api.put(`${POLICIES}/team-a-rw`, {
      auth: ADMIN,
      body: { display_name: "Team A (all)", realms: [{ tenant: "team-a" }, { tenant: "team-b" }], scopes: ["metrics:read"], status: "inactive" },
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ display_name: "Team A (all)", scopes: ["metrics:read"], status: "inactive" });
    expect(put.headers.get("ETag")).toBe('"policy-team-a-rw-2"');
    // an If-Match sent is honoured: the first version's ETag is stale now
    const stale = await t.api.put(`${POLICIES}/team-a-rw`, { auth: ADMIN, headers: { "If-Match": etag! }, body: { realms: [{ tenant: "x" }], scopes: ["metrics:read"] } });
    expect(stale.status).toBe(412);
    expect(stale.body.message).toMatch(/has changed/);
    const current = await t.api.put(`${POLICIES}/team-a-rw`, {
      auth: ADMIN, headers: { "If-Match": '"policy-team-a-rw-2"' }, body: { realms: [{ tenant: "team-a" }], scopes: ["metrics:read"] },
    });
    expect(current.status).toBe(200);

    const gone = await t.api.delete(`${POLICIES}/team-a-rw`, { auth: ADMIN });
    expect(gone.status).toBe(200);
    expect(gone.body.message).toMatch(/deleted/);
    const missing = await t.api.get(`${POLICIES}/team-a-rw`, { auth: ADMIN });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ message: 'access policy "team-a-rw" not found' });
  });

  it("bad bodies -> 400 in the legacy shape naming the field; a second policy of a name -> 409", async () => {
    const bad = async (body: unknown) => {
      const r = await t.api.post(POLICIES, { auth: ADMIN, body });
      expect(r.status).toBe(400);
      expect(typeof r.body.message).toBe("string");
      return r.body.message as string;
    };
    expect(await bad({ name: "p1", realms: [{ tenant: "a" }], scopes: ["metrics:fly"] })).toMatch(/metrics:fly.*is not a scope/);
    expect(await bad({ name: "p1", realms: [], scopes: ["metrics:read"] })).toMatch(/realms/);
    expect(await bad({ name: "Bad Name", realms: [{ tenant: "a" }], scopes: ["metrics:read"] })).toMatch(/name must be/);
    expect(await bad({ name: "p1", realms: [{ tenant: "a" }], scopes: ["metrics:read"], colour: "red" })).toMatch(/unknown field "colour"/);
    expect(await bad({ name: "p1", realms: "a", scopes: ["metrics:read"] })).toMatch(/realms/);
    const body = { name: "dup", realms: [{ tenant: "a" }], scopes: ["logs:read"] };
    expect((await t.api.post(POLICIES, { auth: ADMIN, body })).status).toBe(200);
    const again = await t.api.post(POLICIES, { auth: ADMIN, body });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already exists/);
    expect((await t.api.post(TOKENS, { auth: ADMIN, body: { name: "orphan", access_policy: "nope" } })).status).toBe(404);
  });

  it("GET ?tenant= lists the policies that reach a tenant: by name or through every tenant (*)", async () => {
    const policy = (name: string, tenants: string[]) =>
      t.api.post(POLICIES, { auth: ADMIN, body: { name, realms: tenants.map((tenant) => ({ tenant })), scopes: ["logs:read"] } });
    expect((await policy("reach-one", ["reach-t1"])).status).toBe(200);
    expect((await policy("reach-two", ["reach-t1", "reach-t2"])).status).toBe(200);
    expect((await policy("reach-all", ["*"])).status).toBe(200);
    const names = async (tenant: string) =>
      ((await t.api.get(`${POLICIES}?tenant=${tenant}`, { auth: ADMIN })).body.items as Array<{ name: string }>).map((p) => p.name).filter((n) => n.startsWith("reach-"));
    expect(await names("reach-t1")).toEqual(["reach-all", "reach-one", "reach-two"]);
    expect(await names("reach-t2")).toEqual(["reach-all", "reach-two"]);
    expect(await names("elsewhere")).toEqual(["reach-all"]);
  });

  it("a token made here works against the metrics store in tokens mode, counts its use, and is refused at once when deleted here", async () => {
    expect((await t.api.post(POLICIES, { auth: ADMIN, body: { name: "reader", realms: [{ tenant: "team-q" }], scopes: ["metrics:read"] } })).status).toBe(200);
    const created = await t.api.post(TOKENS, { auth: ADMIN, body: { name: "grafana-q", display_name: "Grafana", access_policy: "reader" } });
    expect(created.status).toBe(200);
    const secret = created.body.token as string;
    expect(secret).toMatch(/^[A-Za-z0-9+/=]{40,}$/);
    expect(Buffer.from(secret, "base64").toString()).toMatch(/^reader-[0-9a-f]{16}:/);
    expect(created.body).toMatchObject({ name: "grafana-q", display_name: "Grafana", access_policy: "reader", expiration: null, status: "active" });
    expect(created.headers.get("ETag")).toBe('"token-grafana-q-1"');

    expect((await query("team-q", "not-a-token")).status).toBe(401);
    const ok = await query("team-q", secret);
    expect(ok.status).toBe(200);
    expect((await ok.json()).status).toBe("success");
    // the policy reaches team-q only
    expect((await query("team-other", secret)).status).toBe(403);

    const listed = await t.api.get(`${TOKENS}?access_policy=reader`, { auth: ADMIN });
    expect(listed.status).toBe(200);
    expect(listed.body.type).toBe("token");
    expect(listed.body.items).toHaveLength(1);
    expect(listed.body.items[0]).toMatchObject({ name: "grafana-q", access_policy: "reader", usage: { metrics_queries: 1, logs_lines: 0, metrics_samples: 0 } });
    expect(Date.parse(listed.body.items[0].usage.last_used_at)).toBeGreaterThan(Date.now() - 60_000);
    expect((await t.api.get(`${TOKENS}?access_policy=nobody`, { auth: ADMIN })).body.items).toEqual([]);

    // display name and expiry change; the policy cannot
    const expiration = new Date(Date.now() + 86_400_000).toISOString();
    const put = await t.api.put(`${TOKENS}/grafana-q`, { auth: ADMIN, body: { display_name: "Grafana (prod)", expiration } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ display_name: "Grafana (prod)", expiration, usage: { metrics_queries: 1 } });
    expect((await t.api.put(`${TOKENS}/grafana-q`, { auth: ADMIN, body: { access_policy: "dup" } })).status).toBe(400);
    expect((await query("team-q", secret)).status).toBe(200);

    const gone = await t.api.delete(`${TOKENS}/grafana-q`, { auth: ADMIN });
    expect(gone.status).toBe(200);
    expect((await query("team-q", secret)).status).toBe(401);
    expect((await t.api.get(`${TOKENS}/grafana-q`, { auth: ADMIN })).status).toBe(404);
  });

  it("the secret is in the creation answer only: never in a GET, the log or the database (a hash)", async () => {
    expect((await t.api.post(POLICIES, { auth: ADMIN, body: { name: "quiet", realms: [{ tenant: "*" }], scopes: ["metrics:read"] } })).status).toBe(200);
    const secret = (await t.api.post(TOKENS, { auth: ADMIN, body: { name: "quiet-token", access_policy: "quiet" } })).body.token as string;
    expect((await query("any-tenant", secret)).status).toBe(200);
    const answers = [
      await t.api.get(TOKENS, { auth: ADMIN }),
      await t.api.get(`${TOKENS}/quiet-token`, { auth: ADMIN }),
      await t.api.get(`${TOKENS}?access_policy=quiet`, { auth: ADMIN }),
      await t.api.put(`${TOKENS}/quiet-token`, { auth: ADMIN, body: { display_name: "renamed" } }),
      await t.api.get(POLICIES, { auth: ADMIN }),
    ];
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(JSON.stringify(a.body)).not.toContain(secret);
      expect(JSON.stringify(a.body)).not.toContain('"token":');
    }
    expect(JSON.stringify(t.server.logs)).not.toContain(secret);
    const rows = (await t.server.db.pg.query<Record<string, unknown>>("select * from store_access_tokens where name = 'quiet-token'")).rows;
    expect(rows).toHaveLength(1);
    const stored = JSON.stringify(rows);
    expect(stored).not.toContain(secret);
    expect(rows[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("deleting a policy deletes its tokens: refused by the store at once", async () => {
    expect((await t.api.post(POLICIES, { auth: ADMIN, body: { name: "short-lived", realms: [{ tenant: "team-s" }], scopes: ["metrics:read"] } })).status).toBe(200);
    const secret = (await t.api.post(TOKENS, { auth: ADMIN, body: { name: "short-token", access_policy: "short-lived" } })).body.token as string;
    expect((await query("team-s", secret)).status).toBe(200);
    expect((await t.api.delete(`${POLICIES}/short-lived`, { auth: ADMIN })).status).toBe(200);
    expect((await query("team-s", secret)).status).toBe(401);
    expect((await t.api.get(`${TOKENS}/short-token`, { auth: ADMIN })).status).toBe(404);
  });

  it("an org Admin who is not a server admin, or a service account token -> 403; no credentials -> 401", async () => {
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "access robot", role: "Admin" } });
    const key = (await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "k" } })).body.key as string;
    const body = { name: "never", realms: [{ tenant: "*" }], scopes: ["admin"] };
    for (const auth of [orgAdmin, bearer(key)]) {
      const list = await t.api.get(POLICIES, { auth });
      expect(list.status).toBe(403);
      expect(list.body.message).toMatch(/Permissions needed: accesspolicies:read$/);
      expect((await t.api.post(POLICIES, { auth, body })).status).toBe(403);
      expect((await t.api.get(TOKENS, { auth })).status).toBe(403);
      const token = await t.api.post(TOKENS, { auth, body: { name: "never", access_policy: "dup" } });
      expect(token.status).toBe(403);
      expect(token.body.message).toMatch(/Permissions needed: accesspolicies:write$/);
      expect((await t.api.delete(`${POLICIES}/dup`, { auth })).body.message).toMatch(/Permissions needed: accesspolicies:delete$/);
    }
    expect((await t.api.get(POLICIES)).status).toBe(401);
    expect((await t.api.post(TOKENS, { body: { name: "never", access_policy: "dup" } })).status).toBe(401);
    expect((await t.api.get(`${POLICIES}/dup`, { auth: ADMIN })).status).toBe(200);
  });

  it("GET /openapi/v3 documents the JSON bodies (GEM's shapes) and the statuses", async () => {
    const doc = (await t.api.get("/openapi/v3", { auth: ADMIN })).body;
    const op = (path: string, method: string) => doc.paths[path][method];
    const schema = (path: string, method: string) => op(path, method).requestBody.content["application/json"].schema;
    expect(schema(POLICIES, "post").required).toEqual(expect.arrayContaining(["realms", "scopes"]));
    expect(Object.keys(schema(POLICIES, "post").properties)).toEqual(expect.arrayContaining(["name", "display_name", "realms", "scopes", "status"]));
    expect(Object.keys(schema(`${POLICIES}/{name}`, "put").properties)).toContain("realms");
    expect(Object.keys(schema(TOKENS, "post").properties)).toEqual(expect.arrayContaining(["name", "access_policy", "expiration"]));
    expect(Object.keys(schema(`${TOKENS}/{name}`, "put").properties)).toContain("expiration");
    expect(Object.keys(op(POLICIES, "post").responses)).toEqual(expect.arrayContaining(["200", "400", "401", "403", "409"]));
    expect(Object.keys(op(`${TOKENS}/{name}`, "delete").responses)).toEqual(expect.arrayContaining(["404", "412"]));
    expect(op(`${TOKENS}/{name}`, "delete").requestBody).toBeUndefined();
  });
});
