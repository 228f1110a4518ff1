// The LBAC hook of the query routes: for a loki data source and a caller the
// restriction applies to, every query-carrying parameter (query string and
// form body; query, match[], match) is rewritten before it leaves, and a
// path that is not a known query endpoint is refused (fail closed). The
// routes run in an app of their own here, with a fake restriction that adds
// team="a" to each selector (a blank query becomes {team="a"}, as the real one
// does) and a recording upstream behind the data source.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRouter } from "../../../../src/apps/dashboard/access/guard.ts";
import type { Authenticator, Identity } from "../../../../src/apps/dashboard/core/identity/authenticate.ts";
import type { DataSourceRecord, DataSourceRegistry } from "../../../../src/apps/dashboard/core/datasources/datasource-registry.ts";
import type { RestrictionOf } from "../../../../src/apps/dashboard/core/datasources/log-query-restriction.ts";
import { registerDataSourceProxy } from "../../../../src/apps/dashboard/legacy/datasources/datasource-proxy.ts";
import { registerDsQuery } from "../../../../src/apps/dashboard/legacy/ds-query.ts";
import { renderDashboardError } from "../../../../src/apps/dashboard/render-error.ts";
import { createBaseApp } from "../../../../src/lib/http/base-app.ts";
import { createLifecycle } from "../../../../src/lib/lifecycle.ts";
import { silentLogger } from "../../../../src/lib/logger.ts";
import { startUpstream, type Upstream } from "../upstream-echo.ts";

/** "narrow" may query the prometheus data source only; everyone else every data source */
const identity = (login: string) =>
  ({
    kind: "user", orgId: 1, orgRole: "Viewer", method: "basic", user: { id: 7, login },
    permissions: new Map([["datasources:query", [login === "narrow" ? "datasources:uid:prom" : "datasources:*"]]]),
  }) as unknown as Identity;

function record(uid: string, type: string, url: string): DataSourceRecord {
  return {
    id: uid.length, orgId: 1, uid, name: uid, type, access: "proxy", url, user: "", database: "", basicAuth: false, basicAuthUser: "",
    withCredentials: false, isDefault: false, jsonData: { tenantId: "t" }, secureRefs: {}, secureFields: [], version: 1, provisioned: false,
    readOnly: false, permissionsInitialized: true, createdAt: "", updatedAt: "",
  };
}

describe("the label restriction (LBAC) hook on loki queries", () => {
  let upstream: Upstream;
  let app: ReturnType<typeof createBaseApp>;
  const asked: Array<{ ds: string; login: string }> = [];

  beforeAll(async () => {
    upstream = await startUpstream();
    const sources = [record("logs", "loki", upstream.url), record("prom", "prometheus", upstream.url)];
    const registry = { byUid: (_: number, uid: string) => sources.find((s) => s.uid === uid), byId: () => undefined } as unknown as DataSourceRegistry;
    const restrictionOf: RestrictionOf = async (ds, who) => {
      asked.push({ ds: ds.uid, login: who.user.login });
      return who.user.login === "restricted" ? { rewrite: (q) => (q.trim() ? q.replaceAll("{", '{team="a", ') : '{team="a"}') } : undefined;
    };
    app = createBaseApp({ logger: silentLogger, lifecycle: createLifecycle(), maxBodyBytes: 1 << 20, render: renderDashboardError });
    const auth = { authenticate: async (c: { authorization?: string }) => identity(c.authorization ?? "") } as unknown as Authenticator;
    const r = createRouter(app, auth);
    const deps = { pg: undefined as never, registry, secrets: undefined as never, secureValues: undefined as never, restrictionOf };
    registerDataSourceProxy(r, deps);
    registerDsQuery(r, { ...deps, now: () => Date.now(), logger: silentLogger });
  });
  afterAll(async () => { await upstream.close(); });

  const call = async (login: string, path: string, init: RequestInit = {}) => {
    upstream.received.length = 0;
    const res = await app.request(path, { ...init, headers: { Authorization: login, ...(init.headers as Record<string, string>) } });
    return { status: res.status, body: await res.text(), sent: upstream.received[0] };
  };
  const sentParams = (url: string | undefined) => new URL(url ?? "/", "http://x").searchParams;

  it("proxy query_range and query: the query parameter is rewritten", async () => {
    for (const endpoint of ["query_range", "query"]) {
      const r = await call("restricted", `/api/datasources/proxy/uid/logs/svc/api/v1/${endpoint}?query=${encodeURIComponent('sum(rate({app="web"}[1m]))')}&limit=5`);
      expect(r.status).toBe(202);
      expect(r.sent!.url.split("?")[0]).toBe(`/svc/api/v1/${endpoint}`);
      expect(sentParams(r.sent!.url).get("query")).toBe('sum(rate({team="a", app="web"}[1m]))');
      expect(sentParams(r.sent!.url).get("limit")).toBe("5");
    }
  });

  it("a form-encoded POST: the body's query is rewritten too; another body type -> 403", async () => {
    const r = await call("restricted", "/api/datasources/proxy/uid/logs/svc/api/v1/query_range?query=%7Bx%3D%22q%22%7D", {
      method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ query: '{app="web"}', step: "10s" }).toString(),
    });
    expect(r.status).toBe(202);
    expect(sentParams(r.sent!.url).get("query")).toBe('{team="a", x="q"}');
    const form = new URLSearchParams(r.sent!.body);
    expect(form.get("query")).toBe('{team="a", app="web"}');
    expect(form.get("step")).toBe("10s");
    const json = await call("restricted", "/api/datasources/proxy/uid/logs/svc/api/v1/query_range", {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ query: '{app="web"}' }),
    });
    expect(json.status).toBe(403);
    expect(json.sent).toBeUndefined();
  });

  it("labels, label values and series: the selector is rewritten, or added when there was none; every match[] rewritten", async () => {
    const labels = await call("restricted", "/api/datasources/uid/logs/resources/labels");
    expect(sentParams(labels.sent!.url).get("query")).toBe('{team="a"}');
    const values = await call("restricted", `/api/datasources/uid/logs/resources/label/app/values?query=${encodeURIComponent('{env="prod"}')}`);
    expect(values.sent!.url.split("?")[0]).toBe("/svc/api/v1/label/app/values");
    expect(sentParams(values.sent!.url).get("query")).toBe('{team="a", env="prod"}');
    const series = await call("restricted", `/api/datasources/uid/logs/resources/series?match[]=${encodeURIComponent("{a=\"1\"}")}&match[]=${encodeURIComponent("{b=\"2\"}")}`);
    expect(sentParams(series.sent!.url).getAll("match[]")).toEqual(['{team="a", a="1"}', '{team="a", b="2"}']);
    const stats = await call("restricted", `/api/datasources/uid/logs/resources/index/stats?query=${encodeURIComponent('{app="web"}')}`);
    expect(sentParams(stats.sent!.url).get("query")).toBe('{team="a", app="web"}');
  });

  it("tail, push, a path outside the API prefix or unknown -> 403 and nothing sent (fail closed)", async () => {
    for (const path of [
      "/api/datasources/proxy/uid/logs/svc/api/v1/tail?query=%7Ba%3D%22b%22%7D",
      "/api/datasources/proxy/uid/logs/other/api/v1/query?query=%7Ba%3D%22b%22%7D",
      "/api/datasources/proxy/uid/logs/metrics",
      "/api/datasources/uid/logs/resources/tail",
      "/api/datasources/uid/logs/resources/something/new",
    ]) {
      const r = await call("restricted", path);
      expect({ path, status: r.status, sent: r.sent }).toEqual({ path, status: 403, sent: undefined });
    }
    const push = await call("restricted", "/api/datasources/proxy/uid/logs/svc/api/v1/push", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(push.status).toBe(403);
  });

  it("Loki's own prefix is the same API for a data source without a configured prefix (issue 21): its queries are rewritten as well", async () => {
    const r = await call("restricted", "/api/datasources/proxy/uid/logs/loki/api/v1/query?query=%7Ba%3D%22b%22%7D");
    expect(r.status).not.toBe(403);
    expect(new URL(r.sent!.url, "http://x").pathname).toBe("/loki/api/v1/query");
    expect(sentParams(r.sent!.url).get("query")).toBe('{team="a", a="b"}');
    const push = await call("restricted", "/api/datasources/proxy/uid/logs/loki/api/v1/push", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(push.status).toBe(403);
  });

  it("/api/ds/query: the loki expression is rewritten; an unrestricted caller's and a prometheus query are sent as they are", async () => {
    upstream.answer("/svc/api/v1/query_range", 200, { status: "success", data: { resultType: "streams", result: [] } });
    upstream.answer("/api/v1/query", 200, { status: "success", data: { resultType: "vector", result: [] } });
    const body = JSON.stringify({ queries: [{ refId: "A", datasource: { uid: "logs" }, expr: '{app="web"} |= "x"' }] });
    const restricted = await call("restricted", "/api/ds/query", { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect(restricted.status).toBe(200);
    expect(sentParams(restricted.sent!.url).get("query")).toBe('{team="a", app="web"} |= "x"');
    expect(JSON.parse(restricted.body).results.A.frames[0].schema.meta.executedQueryString).toBe('Expr: {team="a", app="web"} |= "x"');
    const free = await call("free", "/api/ds/query", { method: "POST", headers: { "Content-Type": "application/json" }, body });
    expect(sentParams(free.sent!.url).get("query")).toBe('{app="web"} |= "x"');
    asked.length = 0;
    const prom = await call("restricted", "/api/ds/query", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ queries: [{ refId: "A", datasource: { uid: "prom" }, expr: 'up{job="x"}', instant: true }] }),
    });
    expect(prom.status).toBe(200);
    expect(new URLSearchParams(prom.sent!.body).get("query")).toBe('up{job="x"}');
    expect(asked).toEqual([]);
  });

  it("the restriction is asked per data source and caller; unrestricted proxy calls keep their exact query string", async () => {
    asked.length = 0;
    const raw = "query=%7Bapp%3D%22web%22%7D&x=a+b&y=%2F";
    const r = await call("free", `/api/datasources/proxy/uid/logs/svc/api/v1/tail?${raw}`);
    expect(r.status).toBe(202);
    expect(r.sent!.url).toBe(`/svc/api/v1/tail?${raw}`);
    expect(asked).toEqual([{ ds: "logs", login: "free" }]);
  });

  it("query permission on one data source only: the other's proxy -> 403 Access denied to datasource, its query -> 403 Access denied to data source", async () => {
    const proxy = await call("narrow", "/api/datasources/proxy/uid/logs/svc/api/v1/labels");
    expect(proxy.status).toBe(403);
    expect(JSON.parse(proxy.body).message).toBe("Access denied to datasource");
    const query = (uid: string) => call("narrow", "/api/ds/query", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ queries: [{ refId: "A", datasource: { uid }, expr: "1", instant: true }] }),
    });
    const denied = await query("logs");
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body).message).toBe("Access denied to data source");
    expect(denied.sent).toBeUndefined();
    expect((await query("prom")).status).toBe(200);
  });
});
