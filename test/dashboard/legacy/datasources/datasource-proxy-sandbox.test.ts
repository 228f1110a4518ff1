// Issue 16 #1: what a data source answers through the proxy and resource
// routes is served on the dashboard's origin, so every answer (errors
// included) carries the real product's `Content-Security-Policy: sandbox`,
// `X-Content-Type-Options: nosniff`, and anything but JSON or plain text is a
// download. A session-cookie request ignores targetOrgId there (a link could
// carry it). The browser side: test/e2e/datasource-proxy-xss.browser.test.ts.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";
import { startUpstream, type Upstream } from "../upstream-echo.ts";

const PAGE = '<!doctype html><title>x</title><script>document.title = "pwned"</script>';

describe("issue 16 #1: proxied and resource answers are sandboxed", () => {
  const t = useServer();
  let upstream: Upstream;
  let prom = "";
  let loki = "";

  beforeAll(async () => {
    upstream = await startUpstream();
    for (const [path, type] of [["/x.html", "text/html"], ["/x.svg", "image/svg+xml"], ["/plain", "text/plain; charset=utf-8"], ["/none", null], ["/problem", "application/problem+json"]] as const) {
      upstream.answerRaw(path, 200, type, PAGE);
      upstream.answerRaw(`/svc/api/v1${path}`, 200, type, PAGE);
    }
    const create = async (name: string, type: string) => {
      const r = await t.api.post("/api/datasources", { auth: ADMIN, body: { name, type, access: "proxy", url: upstream.url } });
      expect(r.status).toBe(200);
      return r.body.datasource.uid as string;
    };
    prom = await create("sandbox-prom", "prometheus");
    loki = await create("sandbox-loki", "loki");
  });
  afterAll(async () => {
    await upstream?.close();
  });

  const sandboxed = (headers: Headers) => ({ csp: headers.get("content-security-policy"), nosniff: headers.get("x-content-type-options") });

  it("text/html and image/svg+xml from the upstream -> CSP sandbox, nosniff, Content-Disposition: attachment (proxy and resources)", async () => {
    for (const path of [`/api/datasources/proxy/uid/${prom}/x.html`, `/api/datasources/uid/${loki}/resources/x.html`, `/api/datasources/proxy/uid/${prom}/x.svg`]) {
      const r = await t.api.get(path, { auth: ADMIN });
      expect({ path, status: r.status }).toEqual({ path, status: 200 });
      expect(sandboxed(r.headers)).toEqual({ csp: "sandbox", nosniff: "nosniff" });
      expect(r.headers.get("content-disposition")).toBe("attachment");
    }
  });

  it("JSON, problem+json and plain text -> CSP sandbox and nosniff, shown inline; no content type at all -> attachment", async () => {
    const json = await t.api.get(`/api/datasources/proxy/uid/${prom}/api/v1/anything`, { auth: ADMIN });
    expect(json.status).toBe(202);
    expect(sandboxed(json.headers)).toEqual({ csp: "sandbox", nosniff: "nosniff" });
    expect(json.headers.get("content-disposition")).toBeNull();
    for (const path of ["/plain", "/problem"]) {
      const r = await t.api.get(`/api/datasources/proxy/uid/${prom}${path}`, { auth: ADMIN });
      expect(sandboxed(r.headers)).toEqual({ csp: "sandbox", nosniff: "nosniff" });
      expect(r.headers.get("content-disposition")).toBeNull();
    }
    const none = await t.api.get(`/api/datasources/proxy/uid/${prom}/none`, { auth: ADMIN });
    expect(none.headers.get("content-disposition")).toBe("attachment");
  });

  it("error answers of these routes (404, 403, 400, 401) carry the same headers", async () => {
    const viewerless = await t.api.user("sandbox-none", "None");
    const cases = [
      await t.api.get("/api/datasources/proxy/uid/unknown/x.html", { auth: ADMIN }),
      await t.api.get(`/api/datasources/proxy/uid/${prom}/x.html`, { auth: viewerless.auth }),
      await t.api.get(`/api/datasources/proxy/uid/${prom}/..%2Fx.html`, { auth: ADMIN }),
      await t.api.get(`/api/datasources/uid/${loki}/resources/x.html`),
    ];
    expect(cases.map((r) => r.status)).toEqual([404, 403, 400, 401]);
    for (const r of cases) expect(sandboxed(r.headers)).toEqual({ csp: "sandbox", nosniff: "nosniff" });
  });

  it("targetOrgId on a session-cookie request is ignored (404 in the current org); with an Authorization header it still selects the org", async () => {
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Sandbox Other Org" } });
    expect(org.status).toBe(200);
    const orgId = org.body.orgId as number;
    const other = await t.api.post("/api/datasources", {
      auth: ADMIN, headers: { "X-Svc-Org-Id": String(orgId) }, body: { name: "other-org-page", type: "prometheus", access: "proxy", url: upstream.url },
    });
    expect(other.status).toBe(200);
    const uid = other.body.datasource.uid as string;
    const link = `/api/datasources/proxy/uid/${uid}/x.html?targetOrgId=${orgId}`;
    const login = await fetch(`${t.server.urls.dashboard}/login`, {
      method: "POST", headers: { "Content-Type": "application/json", Origin: t.server.urls.dashboard }, body: JSON.stringify({ user: "admin", password: "admin" }),
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get("set-cookie") ?? "").split(";")[0]!;
    expect(cookie).toMatch(/^svc_session=./);
    const byCookie = await t.api.get(link, { headers: { Cookie: cookie } });
    expect(byCookie.status).toBe(404);
    const byHeader = await t.api.get(`/api/datasources/proxy/uid/${uid}/x.html`, { headers: { Cookie: cookie, "X-Svc-Org-Id": String(orgId) } });
    expect(byHeader.status).toBe(200);
    const byBasic = await t.api.get(link, { auth: ADMIN });
    expect(byBasic.status).toBe(200);
    expect(sandboxed(byBasic.headers)).toEqual({ csp: "sandbox", nosniff: "nosniff" });
  });
});
