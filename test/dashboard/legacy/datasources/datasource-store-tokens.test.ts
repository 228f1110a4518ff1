// Data sources pointing at Outpost's own stores in tokens mode (issue 22):
// basic auth with the tenant as user name and an access policy token as the
// password (secureJsonData.basicAuthPassword, sealed at rest like any
// secret). /api/ds/query and the health check then read that tenant's data;
// a wrong token is the query's own error (the store's 401 in results.A),
// never a 500, and never the token.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";
import { nsAgo } from "../../../logstore/helpers.ts";
import { metricsClient } from "../../../metrics/helpers.ts";

const basicAuth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

describe("data sources with store tokens (tokens mode)", () => {
  const t = useServer({ "metrics.auth.type": "tokens", "logs.auth.type": "tokens" });
  const now = Date.now();
  let secret = "";
  let writer = "";

  const token = async (name: string, policy: string) => {
    const r = await t.api.post("/api/admin/access-tokens", { auth: ADMIN, body: { name, access_policy: policy } });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.body.token as string;
  };
  const policy = async (name: string, tenants: string[], scopes: string[]) => {
    const r = await t.api.post("/api/admin/access-policies", { auth: ADMIN, body: { name, realms: tenants.map((tenant) => ({ tenant })), scopes } });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
  };
  const dataSource = async (name: string, type: "prometheus" | "loki", user: string, password: string, jsonData: Record<string, unknown> = {}) => {
    const url = type === "prometheus" ? `${t.server.urls.metrics!}/prometheus` : t.server.urls.logs!;
    const r = await t.api.post("/api/datasources", {
      auth: ADMIN,
      body: { name, type, access: "proxy", url, basicAuth: true, basicAuthUser: user, jsonData, secureJsonData: { basicAuthPassword: password } },
    });
    if (r.status !== 200) throw new Error(JSON.stringify(r.body));
    return r.body.datasource as { id: number; uid: string };
  };
  const query = (uid: string, expr: string) =>
    t.api.post("/api/ds/query", { auth: ADMIN, body: { from: String(now - 300_000), to: String(now), queries: [{ refId: "A", datasource: { uid }, expr, intervalMs: 15_000 }] } });

  beforeAll(async () => {
    await policy("grafana-team-t", ["team-t"], ["metrics:read", "logs:read"]);
    await policy("ingest-all", ["*"], ["metrics:write", "logs:write"]);
    secret = await token("grafana-team-t", "grafana-team-t");
    writer = await token("ingest-all", "ingest-all");
    const metrics = metricsClient(t.server.urls.metrics!);
    const samples = (v: number) => Array.from({ length: 5 }, (_, i) => [now - 120_000 + i * 15_000, v + i] as [number, number]);
    for (const [tenant, v] of [["team-t", 1], ["team-other", 100]] as const) {
      const wrote = await metrics.push(undefined, [{ labels: { __name__: "tok_requests_total", job: tenant }, samples: samples(v) }], { Authorization: basicAuth(tenant, writer) });
      expect(wrote.status).toBe(200);
      const pushed = await fetch(`${t.server.urls.logs!}/svc/api/v1/push`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Authorization: basicAuth(tenant, writer) },
        body: JSON.stringify({ streams: [{ stream: { app: "web" }, values: [[nsAgo(30, now), `line of ${tenant}`]] }] }),
      });
      expect(pushed.status).toBe(204);
    }
  });

  it("prometheus: basic auth tenant/token -> /api/ds/query answers that tenant's series only; the health check is OK", async () => {
    const ds = await dataSource("metrics (token)", "prometheus", "team-t", secret);
    const r = await query(ds.uid, "tok_requests_total");
    expect(r.status).toBe(200);
    const frames = r.body.results.A.frames as Array<{ schema: { fields: Array<{ labels?: Record<string, string> }> }; data: { values: number[][] } }>;
    expect(frames).toHaveLength(1);
    expect(frames[0]!.schema.fields[1]!.labels).toEqual({ __name__: "tok_requests_total", job: "team-t" });
    expect(frames[0]!.data.values[1]!.at(-1)).toBe(5);
    const health = await t.api.get(`/api/datasources/uid/${ds.uid}/health`, { auth: ADMIN });
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: "OK" });
    // the token's queries are counted against it
    const listed = await t.api.get("/api/admin/access-tokens/grafana-team-t", { auth: ADMIN });
    expect(listed.body.usage.metrics_queries).toBeGreaterThanOrEqual(2);
  });

  it("prometheus with jsonData.tenantId naming the same tenant works too; a tenant the policy does not reach -> the store's 403 as the query's error", async () => {
    const same = await dataSource("metrics (token, tenant id)", "prometheus", "team-t", secret, { tenantId: "team-t" });
    expect((await query(same.uid, "tok_requests_total")).status).toBe(200);
    const other = await dataSource("metrics (other tenant)", "prometheus", "team-other", secret);
    const r = await query(other.uid, "tok_requests_total");
    expect(r.status).toBe(400);
    expect(r.body.results.A).toMatchObject({ status: 403, errorSource: "downstream", frames: [] });
    expect(r.body.results.A.error).toContain('does not reach tenant team-other');
  });

  it("loki: basic auth tenant/token -> that tenant's lines; the health check is OK", async () => {
    const ds = await dataSource("logs (token)", "loki", "team-t", secret);
    const r = await query(ds.uid, '{app="web"}');
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body.results.A.frames)).toContain("line of team-t");
    expect(JSON.stringify(r.body.results.A.frames)).not.toContain("line of team-other");
    const health = await t.api.get(`/api/datasources/uid/${ds.uid}/health`, { auth: ADMIN });
    expect(health.body).toMatchObject({ status: "OK" });
  });

  it("a wrong token -> the query's error (the store's 401), not a 500; the health check says ERROR; the token never echoed", async () => {
    const wrong = "bm90LWEtcmVhbC10b2tlbi0xMjM0NTY3ODkwYWJjZGVm";
    const prom = await dataSource("metrics (wrong token)", "prometheus", "team-t", wrong);
    const r = await query(prom.uid, "tok_requests_total");
    expect(r.status).toBe(400);
    expect(r.body.results.A).toMatchObject({ status: 401, error: expect.stringContaining("invalid token"), errorSource: "downstream", frames: [] });
    const health = await t.api.get(`/api/datasources/uid/${prom.uid}/health`, { auth: ADMIN });
    expect(health.body.status).toBe("ERROR");
    expect(health.body.message).toContain("invalid token");
    const logs = await dataSource("logs (wrong token)", "loki", "team-t", wrong);
    const lr = await query(logs.uid, '{app="web"}');
    expect(lr.status).toBe(400);
    expect(lr.body.results.A).toMatchObject({ status: 401, error: expect.stringContaining("invalid token") });
    const lh = await t.api.get(`/api/datasources/uid/${logs.uid}/health`, { auth: ADMIN });
    expect(lh.body.status).toBe("ERROR");
    for (const answer of [r.body, health.body, lr.body, lh.body]) expect(JSON.stringify(answer)).not.toContain(wrong);
    // a revoked token is refused at once, through the data source as anywhere
    const revokable = await token("revoked-soon", "grafana-team-t");
    const ds = await dataSource("metrics (revoked)", "prometheus", "team-t", revokable);
    expect((await query(ds.uid, "tok_requests_total")).status).toBe(200);
    expect((await t.api.delete("/api/admin/access-tokens/revoked-soon", { auth: ADMIN })).status).toBe(200);
    expect((await query(ds.uid, "tok_requests_total")).body.results.A.status).toBe(401);
  });

  it("the token is a sealed secret: never in the data source's answers, its row or its sealed value", async () => {
    const ds = await dataSource("metrics (sealed)", "prometheus", "team-t", secret);
    const got = await t.api.get(`/api/datasources/uid/${ds.uid}`, { auth: ADMIN });
    expect(got.body).toMatchObject({ basicAuth: true, basicAuthUser: "team-t", basicAuthPassword: "", secureJsonFields: { basicAuthPassword: true } });
    const row = JSON.stringify((await t.server.db.pg.query("select * from data_sources where id = $1", [ds.id])).rows);
    const sealed = (await t.server.db.pg.query<{ field: string; sealed: string }>("select field, sealed from secrets where owner = $1", [`datasource:${ds.id}`])).rows;
    expect(sealed.map((s) => s.field)).toEqual(["basicAuthPassword"]);
    for (const text of [JSON.stringify(got.body), JSON.stringify((await t.api.get("/api/datasources", { auth: ADMIN })).body), row, JSON.stringify(sealed)]) {
      expect(text).not.toContain(secret);
    }
    expect(JSON.stringify(t.server.logs)).not.toContain(secret);
  });
});
