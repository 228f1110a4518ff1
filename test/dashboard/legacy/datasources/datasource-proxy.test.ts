// The query side of data sources through HTTP: the health check (reference
// §4, conformance 93-95), the data source proxy (96, 97) and plugin resource
// calls, against the bundled log and metrics stores and a recording upstream.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";
import { logClient, nsAgo } from "../../../logstore/helpers.ts";
import { metricsClient } from "../../../metrics/helpers.ts";
import { closedPort, rawRequest, startUpstream, type Upstream } from "../upstream-echo.ts";

type Api = ReturnType<typeof useServer>["api"];

/** a form-encoded POST, as the log and metrics clients send queries */
async function postForm(base: string, path: string, form: string) {
  const res = await fetch(base + path, { method: "POST", headers: { Authorization: ADMIN, "Content-Type": "application/x-www-form-urlencoded" }, body: form });
  const text = await res.text();
  return { status: res.status, text, body: text ? JSON.parse(text) : undefined };
}

async function createDs(api: Api, body: Record<string, unknown>): Promise<string> {
  const r = await api.post("/api/datasources", { auth: ADMIN, body: { access: "proxy", ...body } });
  if (r.status !== 200) throw new Error(`creating ${String(body.name)}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.datasource.uid as string;
}

describe("GET /api/datasources/uid/:uid/health", () => {
  const t = useServer();

  it("the bundled log store with a tenant -> 200 OK", async () => {
    const uid = await createDs(t.api, { name: "logs", type: "loki", url: t.server.urls.logs!, jsonData: { tenantId: "team-a" } });
    const r = await t.api.get(`/api/datasources/uid/${uid}/health`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: "OK", message: "Successfully queried the Loki API." });
  });

  it("the bundled metrics store (<metrics>/prometheus) with a tenant -> 200 OK", async () => {
    const uid = await createDs(t.api, { name: "metrics", type: "prometheus", url: `${t.server.urls.metrics!}/prometheus`, jsonData: { tenantId: "team-a" } });
    const r = await t.api.get(`/api/datasources/uid/${uid}/health`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: "OK", message: "Successfully queried the Prometheus API." });
  });

  it("a data source on a closed port -> 400 ERROR saying it could not be reached (94)", async () => {
    const port = await closedPort();
    for (const type of ["prometheus", "loki"]) {
      const uid = await createDs(t.api, { name: `closed-${type}`, type, url: `http://127.0.0.1:${port}` });
      const r = await t.api.get(`/api/datasources/uid/${uid}/health`, { auth: ADMIN });
      expect(r.status).toBe(400);
      expect(r.body.status).toBe("ERROR");
      expect(r.body.message).toContain("could not be reached");
      expect(r.body.message).toContain(`querying the ${type === "loki" ? "Loki" : "Prometheus"} API`);
    }
  });

  it("the log store without a tenant -> 400 ERROR telling to set one", async () => {
    const uid = await createDs(t.api, { name: "logs-no-tenant", type: "loki", url: t.server.urls.logs! });
    const r = await t.api.get(`/api/datasources/uid/${uid}/health`, { auth: ADMIN });
    expect(r.status).toBe(400);
    expect(r.body.status).toBe("ERROR");
    expect(r.body.message).toContain("no org id");
    expect(r.body.message).toContain("set the tenant (jsonData.tenantId");
  });

  it("a type Outpost does not query -> 400 ERROR not supported; the wrong API prefix -> 400 ERROR", async () => {
    const other = await createDs(t.api, { name: "es", type: "elasticsearch", url: "http://127.0.0.1:9200" });
    const r = await t.api.get(`/api/datasources/uid/${other}/health`, { auth: ADMIN });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ status: "ERROR", message: expect.stringContaining('not supported for data sources of type "elasticsearch"') });
    // (/loki/api/v1 is no longer wrong: the log store serves it too, issue 21)
    const loki = await createDs(t.api, { name: "loki-prefix", type: "loki", url: t.server.urls.logs!, jsonData: { tenantId: "a", apiPrefix: "/nowhere/api/v1" } });
    const wrong = await t.api.get(`/api/datasources/uid/${loki}/health`, { auth: ADMIN });
    expect(wrong.status).toBe(400);
    expect(wrong.body.status).toBe("ERROR");
  });

  it("bad$uid -> 400 UID is invalid (95); unknown uid -> 404 Data source not found; a user without query permission -> 403", async () => {
    const bad = await t.api.get("/api/datasources/uid/bad$uid/health", { auth: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("UID is invalid");
    const unknown = await t.api.get("/api/datasources/uid/nope/health", { auth: ADMIN });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("Data source not found");
    const uid = await createDs(t.api, { name: "for-none", type: "loki", url: t.server.urls.logs!, jsonData: { tenantId: "a" } });
    const none = await t.api.user("health-none", "None");
    const denied = await t.api.get(`/api/datasources/uid/${uid}/health`, { auth: none.auth });
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe("Access denied to datasource");
  });
});

describe("the data source proxy: credentials and headers", () => {
  const t = useServer();
  let upstream: Upstream;
  let uid = "";
  const SECRET_PW = "s3cret-basic-password";
  const SECRET_KEY = "s3cret-api-key-value";
  const secretsIn = (text: string) => [SECRET_PW, SECRET_KEY, btoa(`bob:${SECRET_PW}`)].filter((s) => text.includes(s));

  beforeAll(async () => {
    upstream = await startUpstream();
    uid = await createDs(t.api, {
      name: "echo", type: "loki", url: `${upstream.url}/base`,
      basicAuth: true, basicAuthUser: "bob",
      jsonData: { httpHeaderName1: "X-Api-Key", tenantId: "tenant-a" },
      secureJsonData: { basicAuthPassword: SECRET_PW, httpHeaderValue1: SECRET_KEY },
    });
  });
  afterAll(async () => { await upstream.close(); });

  it("GET proxy/uid/:uid/* -> the data source's credentials, never the caller's; hop-by-hop headers dropped both ways", async () => {
    upstream.received.length = 0;
    const r = await rawRequest(`${t.server.urls.dashboard}/api/datasources/proxy/uid/${uid}/some/path?a=1&b=two%20words`, {
      headers: {
        Authorization: ADMIN, Cookie: "svc_session=abc", "X-Svc-Org-Id": "1", "X-Scope-OrgID": "someone-else",
        Connection: "keep-alive, X-Caller-Hop", "X-Caller-Hop": "must not pass", "Keep-Alive": "timeout=5",
        TE: "trailers", "Proxy-Authorization": "Basic eDp5", "X-Caller-Kept": "yes",
      },
    });
    expect(r.status).toBe(202);
    expect(r.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(JSON.parse(r.text)).toEqual({ ok: true });
    expect(r.headers["set-cookie"]).toBeUndefined();
    expect(r.headers["x-upstream-hop"]).toBeUndefined();
    expect(r.headers["x-upstream-kept"]).toBe("yes");

    expect(upstream.received).toHaveLength(1);
    const got = upstream.received[0]!;
    expect(got.method).toBe("GET");
    expect(got.url).toBe("/base/some/path?a=1&b=two%20words");
    expect(got.headers.authorization).toBe(`Basic ${btoa(`bob:${SECRET_PW}`)}`);
    expect(got.headers["x-api-key"]).toBe(SECRET_KEY);
    expect(got.headers["x-scope-orgid"]).toBe("tenant-a");
    expect(got.headers["x-caller-kept"]).toBe("yes");
    for (const h of ["cookie", "x-svc-org-id", "x-caller-hop", "te", "trailer", "proxy-authorization"]) {
      expect({ h, value: got.headers[h] }).toEqual({ h, value: undefined });
    }
    expect(got.headers["keep-alive"]).toBeUndefined();
  });

  it("a changed secret is sent at once, a cleared one no more (opened secrets follow the data source's version)", async () => {
    const auth = async () => {
      upstream.received.length = 0;
      const r = await t.api.get(`/api/datasources/proxy/uid/${own}/x`, { auth: ADMIN });
      expect(r.status).toBe(202);
      return upstream.received[0]!.headers["x-rotating"];
    };
    const body = (value: string) => ({
      name: "rotating-secret", type: "loki", url: `${upstream.url}/base`,
      jsonData: { httpHeaderName1: "X-Rotating" }, secureJsonData: { httpHeaderValue1: value },
    });
    const own = await createDs(t.api, body("first-value"));
    expect(await auth()).toBe("first-value");
    expect(await auth()).toBe("first-value");
    expect((await t.api.put(`/api/datasources/uid/${own}`, { auth: ADMIN, body: body("second-value") })).status).toBe(200);
    expect(await auth()).toBe("second-value");
    expect((await t.api.put(`/api/datasources/uid/${own}`, { auth: ADMIN, body: body("") })).status).toBe(200);
    expect(await auth()).toBe("");
  });

  it("POST proxy/uid/:uid/* -> method, body and content type forwarded", async () => {
    upstream.received.length = 0;
    const r = await postForm(t.server.urls.dashboard, `/api/datasources/proxy/uid/${uid}/svc/api/v1/query_range`, "query=%7Bapp%3D%22web%22%7D&limit=5");
    expect(r.status).toBe(202);
    const got = upstream.received[0]!;
    expect(got.method).toBe("POST");
    expect(got.url).toBe("/base/svc/api/v1/query_range");
    expect(got.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(got.body).toBe("query=%7Bapp%3D%22web%22%7D&limit=5");
  });

  it("an upstream that reflects the headers it got -> the caller never sees a secret", async () => {
    const r = await t.api.get(`/api/datasources/proxy/uid/${uid}/echo`, { auth: ADMIN });
    expect(r.status).toBe(200);
    const text = JSON.stringify(r.body);
    expect(secretsIn(text)).toEqual([]);
    expect(r.body.headers.authorization).toBe("Basic [redacted]");
    expect(r.body.headers["x-api-key"]).toBe("[redacted]");
    const resource = await t.api.get(`/api/datasources/uid/${uid}/resources/echo`, { auth: ADMIN });
    expect(resource.status).toBe(200);
    expect(resource.body.headers["x-api-key"]).toBe("[redacted]");
    expect(secretsIn(JSON.stringify(resource.body))).toEqual([]);
    // nor does any log line
    expect(secretsIn(JSON.stringify(t.server.logs))).toEqual([]);
  });

  it("a custom header named X-Scope-OrgID wins over jsonData.tenantId; the caller's is never forwarded", async () => {
    const own = await createDs(t.api, {
      name: "echo-tenant-header", type: "prometheus", url: upstream.url,
      jsonData: { tenantId: "from-json", httpHeaderName1: "X-Scope-OrgID" }, secureJsonData: { httpHeaderValue1: "from-header" },
    });
    const none = await createDs(t.api, { name: "echo-no-tenant", type: "prometheus", url: upstream.url });
    upstream.received.length = 0;
    await t.api.get(`/api/datasources/proxy/uid/${own}/api/v1/labels`, { auth: ADMIN, headers: { "X-Scope-OrgID": "caller" } });
    await t.api.get(`/api/datasources/proxy/uid/${none}/api/v1/labels`, { auth: ADMIN, headers: { "X-Scope-OrgID": "caller" } });
    expect(upstream.received.map((g) => g.headers["x-scope-orgid"])).toEqual(["from-header", undefined]);
  });

  it("the upstream rejecting the data source's credentials (401) -> 400 Authentication to data source failed", async () => {
    const r = await t.api.get(`/api/datasources/proxy/uid/${uid}/status/401`, { auth: ADMIN });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ message: "Authentication to data source failed" });
    const other = await t.api.get(`/api/datasources/proxy/uid/${uid}/status/503`, { auth: ADMIN });
    expect(other.status).toBe(503);
  });
});

describe("the data source proxy and resources: the bundled stores, errors", () => {
  const t = useServer();
  let logs = "";
  let metrics = "";
  const now = Date.now();

  beforeAll(async () => {
    logs = await createDs(t.api, { name: "logs", type: "loki", url: t.server.urls.logs!, jsonData: { tenantId: "team-a" } });
    metrics = await createDs(t.api, { name: "metrics", type: "prometheus", url: `${t.server.urls.metrics!}/prometheus`, jsonData: { tenantId: "team-a" } });
    const pushed = await logClient(t.server.urls.logs!).push("team-a", [{ stream: { app: "web", env: "prod" }, values: [[nsAgo(30, now), "GET /index 200"]] }]);
    expect(pushed.status).toBe(204);
    const wrote = await metricsClient(t.server.urls.metrics!).push("team-a", [{ labels: { __name__: "proxy_test_total", job: "api" }, samples: [[now - 10_000, 42]] }]);
    expect(wrote.status).toBe(200);
  });

  it("GET proxy to the metrics store's query API -> 200 with its answer", async () => {
    const r = await t.api.get(`/api/datasources/proxy/uid/${metrics}/api/v1/query?query=proxy_test_total`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(r.body.status).toBe("success");
    expect(r.body.data.result).toEqual([{ metric: { __name__: "proxy_test_total", job: "api" }, value: [expect.any(Number), "42"] }]);
  });

  it("GET proxy to the log store's /svc/api/v1/labels -> its labels; resources/labels and label values the same", async () => {
    const labels = await t.api.get(`/api/datasources/proxy/uid/${logs}/svc/api/v1/labels`, { auth: ADMIN });
    expect(labels.status).toBe(200);
    expect(labels.body).toEqual({ status: "success", data: ["app", "env"] });
    const resource = await t.api.get(`/api/datasources/uid/${logs}/resources/labels`, { auth: ADMIN });
    expect(resource.body).toEqual(labels.body);
    const values = await t.api.get(`/api/datasources/uid/${logs}/resources/label/app/values`, { auth: ADMIN });
    expect(values.body).toEqual({ status: "success", data: ["web"] });
    const series = await t.api.get(`/api/datasources/uid/${logs}/resources/series?match[]=${encodeURIComponent('{app="web"}')}`, { auth: ADMIN });
    expect(series.body).toEqual({ status: "success", data: [{ app: "web", env: "prod" }] });
  });

  it("prometheus resources -> <url>/<path>; POST to the read API passes, to anything else 403", async () => {
    const r = await t.api.get(`/api/datasources/uid/${metrics}/resources/api/v1/labels`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(expect.arrayContaining(["__name__", "job"]));
    const post = await postForm(t.server.urls.dashboard, `/api/datasources/proxy/uid/${metrics}/api/v1/query`, "query=proxy_test_total");
    expect(post.status).toBe(200);
    expect(post.body.data.result).toHaveLength(1);
    const admin = await t.api.post(`/api/datasources/proxy/uid/${metrics}/api/v1/admin/tsdb/delete_series`, { auth: ADMIN, body: "" });
    expect(admin.status).toBe(403);
    expect(admin.body.message).toBe("non allow-listed POSTs not allowed on proxied Prometheus datasource");
  });

  it("resources of another type -> 400 not supported; a path climbing out (..) -> 400", async () => {
    const es = await createDs(t.api, { name: "es", type: "elasticsearch", url: "http://127.0.0.1:9200" });
    const r = await t.api.get(`/api/datasources/uid/${es}/resources/_mapping`, { auth: ADMIN });
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('resources are not supported for data sources of type "elasticsearch"');
    const climb = await t.api.get(`/api/datasources/proxy/uid/${metrics}/..%2F..%2Fadmin`, { auth: ADMIN });
    expect(climb.status).toBe(400);
  });

  it("unknown uid -> 404 Unable to find datasource (96); bad$uid -> 400 UID is invalid; a user with role None -> 403 (97); a viewer -> 200", async () => {
    const unknown = await t.api.get("/api/datasources/proxy/uid/unknown/api/v1/query", { auth: ADMIN });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("Unable to find datasource");
    const unknownResource = await t.api.get("/api/datasources/uid/unknown/resources/labels", { auth: ADMIN });
    expect(unknownResource.status).toBe(404);
    const bad = await t.api.get("/api/datasources/proxy/uid/bad$uid/api/v1/query", { auth: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe("UID is invalid");
    const none = await t.api.user("proxy-none", "None");
    for (const path of [`/api/datasources/proxy/uid/${metrics}/api/v1/labels`, `/api/datasources/uid/${logs}/resources/labels`]) {
      const denied = await t.api.get(path, { auth: none.auth });
      expect(denied.status).toBe(403);
      expect(denied.body.message).toBe("Access denied to datasource");
    }
    const viewer = await t.api.user("proxy-viewer", "Viewer");
    const ok = await t.api.get(`/api/datasources/proxy/uid/${metrics}/api/v1/labels`, { auth: viewer.auth });
    expect(ok.status).toBe(200);
  });

  it("an unreachable data source -> 502 {message}; a stored URL that is not http(s) -> 400 Invalid data source URL", async () => {
    const port = await closedPort();
    const down = await createDs(t.api, { name: "down", type: "prometheus", url: `127.0.0.1:${port}` });
    const r = await t.api.get(`/api/datasources/proxy/uid/${down}/api/v1/labels`, { auth: ADMIN });
    expect(r.status).toBe(502);
    expect(r.body.message).toMatch(/^the data source could not be reached/);
    const ftp = await createDs(t.api, { name: "ftp", type: "prometheus", url: "ftp://files.example" });
    const bad = await t.api.get(`/api/datasources/proxy/uid/${ftp}/api/v1/labels`, { auth: ADMIN });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('Invalid data source URL: "ftp://files.example"');
  });
});
