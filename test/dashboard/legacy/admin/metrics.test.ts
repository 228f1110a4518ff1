// GET /metrics on the dashboard listener (issue 25, the real product's
// [metrics] section): requests by route pattern, method and status, sign-in
// sessions, database latency, read-model loads, the totals, the process;
// open unless basic auth is configured; OpenMetrics when asked.
import { describe, expect, it } from "vitest";
import { ADMIN, basic } from "../../../helpers/api.ts";
import { eventually } from "../../../helpers/eventually.ts";
import { useServer } from "../../../helpers/server.ts";

/** the value of one sample (`labels`: the exact label text inside the braces), or undefined */
function sample(text: string, name: string, labels?: string): number | undefined {
  const escaped = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const m = new RegExp(`^${escaped(name)}${labels === undefined ? "" : `\\{${escaped(labels)}\\}`} (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
}

describe("GET /metrics on the dashboard listener (defaults: open)", () => {
  const ctx = useServer();
  const scrape = async (headers: Record<string, string> = {}) => {
    const res = await fetch(`${ctx.server.urls.dashboard}/metrics`, { headers });
    expect(res.status).toBe(200);
    return { type: res.headers.get("content-type"), text: await res.text() };
  };

  it("GET /metrics (no session, no credentials) -> 200 Prometheus text with the process metrics and build info", async () => {
    const { type, text } = await scrape();
    expect(type).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(text).toMatch(/^# TYPE process_cpu_seconds_total counter$/m);
    expect(sample(text, "process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(sample(text, "process_start_time_seconds")).toBeGreaterThan(0);
    expect(text).toMatch(/^svc_build_info\{version="[^"]+",revision="[^"]*",branch="main",goversion="[^"]+",edition="oss"\} 1$/m);
    // nothing of the configuration, let alone a secret
    expect(text).not.toContain("admin_password");
  });

  it("API calls -> svc_http_request_duration_seconds by route pattern (never the raw path), method and status; no route -> notfound", async () => {
    const created = await ctx.api.user("metrics-viewer", "Viewer");
    for (let i = 0; i < 2; i++) expect((await ctx.api.get(`/api/users/${created.id}`, { auth: ADMIN })).status).toBe(200);
    expect((await ctx.api.get("/api/users/999999", { auth: ADMIN })).status).toBe(404);
    expect((await ctx.api.get("/api/users/1", { auth: created.auth })).status).toBe(403);
    expect((await ctx.api.get("/api/no-such-route")).status).toBe(404);
    expect((await ctx.api.get("/api/health")).status).toBe(200);

    const { text } = await scrape();
    expect(text).toContain("# TYPE svc_http_request_duration_seconds histogram");
    const count = (labels: string) => sample(text, "svc_http_request_duration_seconds_count", labels);
    expect(count('method="GET",handler="/api/users/:id",status_code="200"')).toBe(2);
    expect(count('method="GET",handler="/api/users/:id",status_code="404"')).toBe(1);
    expect(count('method="GET",handler="/api/users/:id",status_code="403"')).toBe(1);
    expect(count('method="POST",handler="/api/admin/users",status_code="200"')).toBe(1);
    expect(count('method="GET",handler="notfound",status_code="404"')).toBeGreaterThanOrEqual(1);
    expect(count('method="GET",handler="/api/health",status_code="200"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, "svc_http_request_duration_seconds_bucket", 'le="+Inf",method="GET",handler="/api/users/:id",status_code="200"')).toBe(2);
    // the paths as sent are no label; /metrics itself is not counted (as the real product)
    expect(text).not.toMatch(/handler="\/api\/users\/\d+"|handler="\/api\/no-such-route"|handler="\/metrics"/);
    // the real product's response counters by kind of path, each code from zero
    expect(sample(text, "svc_api_response_status_total", 'code="200"')).toBeGreaterThanOrEqual(3);
    expect(sample(text, "svc_api_response_status_total", 'code="404"')).toBeGreaterThanOrEqual(2);
    expect(sample(text, "svc_proxy_response_status_total", 'code="500"')).toBe(0);
  });

  it("a page sign-in -> svc_stat_active_sessions counts it; sign-out -> one fewer", async () => {
    const before = sample((await scrape()).text, "svc_stat_active_sessions")!;
    expect(before).toBeGreaterThanOrEqual(0);
    const login = await ctx.api.post("/login", { body: { user: "admin", password: "admin" } });
    expect(login.status).toBe(200);
    const during = sample((await scrape()).text, "svc_stat_active_sessions")!;
    expect(during).toBe(before + 1);
    const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
    expect((await fetch(`${ctx.server.urls.dashboard}/logout`, { headers: { Cookie: cookie }, redirect: "manual" })).status).toBe(302);
    expect(sample((await scrape()).text, "svc_stat_active_sessions")).toBe(before);
  });

  it("database latency: svc_database_queries_duration_seconds{status} counts the queries", async () => {
    const { text } = await scrape();
    expect(text).toContain("# TYPE svc_database_queries_duration_seconds histogram");
    expect(sample(text, "svc_database_queries_duration_seconds_count", 'status="success"')).toBeGreaterThan(0);
    expect(sample(text, "svc_database_queries_duration_seconds_bucket", 'le="0.00001",status="success"')).toBeGreaterThanOrEqual(0);
    // a failed statement counts as an error (PGlite refuses it; the API answers 4xx/5xx, whichever)
    await ctx.server.db.pg.query("select * from no_such_table").catch(() => undefined);
    expect(sample((await scrape()).text, "svc_database_queries_duration_seconds_count", 'status="error"')).toBeGreaterThanOrEqual(1);
  });

  it("creating a user -> the access model is loaded again: svc_read_model_reloads_total{model=\"access\"} grows", async () => {
    const reloads = async () => sample((await scrape()).text, "svc_read_model_reloads_total", 'model="access"')!;
    const before = await reloads();
    expect(before).toBeGreaterThanOrEqual(1);
    const u = await ctx.api.user("metrics-reload", "Viewer");
    expect((await ctx.api.get("/api/user", { auth: u.auth })).status).toBe(200);
    expect(await reloads()).toBeGreaterThan(before);
    const { text } = await scrape();
    for (const model of ["datasources", "preferences", "resource_permissions"]) {
      expect(sample(text, "svc_read_model_reloads_total", `model="${model}"`)).toBeGreaterThanOrEqual(0);
      expect(sample(text, "svc_read_model_updates_total", `model="${model}"`)).toBeGreaterThanOrEqual(0);
    }
    // no LBAC in the oss edition
    expect(text).not.toContain('model="lbac"');
  });

  it("the totals appear once counted in the background (users, orgs, dashboards, data sources)", async () => {
    await eventually(scrape, ({ text }) => {
      expect(sample(text, "svc_stat_total_users")).toBeGreaterThanOrEqual(1);
      expect(sample(text, "svc_stat_total_orgs")).toBeGreaterThanOrEqual(1);
      expect(sample(text, "svc_stat_totals_dashboard")).toBeGreaterThanOrEqual(0);
      expect(text).toContain("# TYPE svc_stat_totals_datasource gauge");
    });
  });

  it("Accept: application/openmetrics-text (as Prometheus sends it) -> OpenMetrics: counter families without _total, # EOF", async () => {
    const accept = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
    const { type, text } = await scrape({ Accept: accept });
    expect(type).toBe("application/openmetrics-text; version=1.0.0; charset=utf-8");
    expect(text.endsWith("\n# EOF\n")).toBe(true);
    expect(text).not.toContain("\n\n");
    expect(text).toMatch(/^# TYPE svc_api_response_status counter$/m);
    expect(sample(text, "svc_api_response_status_total", 'code="500"')).toBeGreaterThanOrEqual(0);
    expect(text).toMatch(/^# TYPE process_cpu_seconds counter$/m);
    // and Prometheus's text again for a plain scrape: the counters keep their names
    expect((await scrape()).text).toMatch(/^# TYPE svc_api_response_status_total counter$/m);
  });
});

describe("GET /metrics with dashboard.metrics.basic_auth_* set", () => {
  const ctx = useServer({
    "dashboard.metrics.basic_auth_username": "scraper",
    "dashboard.metrics.basic_auth_password": "scrape-secret",
    "dashboard.metrics.disable_total_stats": true,
  });
  const get = (auth?: string) => fetch(`${ctx.server.urls.dashboard}/metrics`, auth ? { headers: { Authorization: auth } } : {});

  it("no credentials, wrong ones, a user's own -> 401 (no body); the configured ones -> 200", async () => {
    for (const auth of [undefined, basic("scraper", "wrong"), basic("other", "scrape-secret"), ADMIN, "Bearer scrape-secret"]) {
      const res = await get(auth);
      expect(res.status).toBe(401);
      expect(await res.text()).toBe("");
    }
    const res = await get(basic("scraper", "scrape-secret"));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("# TYPE svc_http_request_duration_seconds histogram");
    // disable_total_stats: no totals (the active sessions stay)
    expect(text).not.toContain("svc_stat_total_users");
    expect(text).toContain("# TYPE svc_stat_active_sessions gauge");
  });

  it("the password is a secret: GET /api/admin/settings masks it", async () => {
    const r = await ctx.api.get("/api/admin/settings", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body.dashboard["metrics.basic_auth_username"]).toBe("scraper");
    expect(JSON.stringify(r.body)).not.toContain("scrape-secret");
  });
});

describe("GET /metrics with dashboard.metrics.enabled false", () => {
  const ctx = useServer({ "dashboard.metrics.enabled": false });

  it("GET /metrics -> 404", async () => {
    expect((await fetch(`${ctx.server.urls.dashboard}/metrics`)).status).toBe(404);
  });
});
