// Issue 21: the organization header as the real product's clients send it.
// grafana-client's organization_id (and Terraform's org_id) send
// X-Grafana-Org-Id; it is the same header as X-Svc-Org-Id, so a script that
// names organization 2 reads and writes organization 2, never organization 1
// silently. Both headers at once must agree (400 naming both otherwise); an
// organization the caller is not in is refused as with X-Svc-Org-Id.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";
import { startUpstream, type Upstream } from "../upstream-echo.ts";

describe("X-Grafana-Org-Id, the real product's organization header", () => {
  const t = useServer({});
  let org2 = 0;
  let editor = { id: 0, auth: "" };
  let upstream: Upstream;

  beforeAll(async () => {
    upstream = await startUpstream();
    const created = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Second Org" } });
    expect(created.status).toBe(200);
    org2 = created.body.orgId;
    editor = await t.api.user("org2-editor", "Editor", org2);
  });
  afterAll(async () => {
    await upstream?.close();
  });

  it("selects the organization for reads and writes, as X-Svc-Org-Id does", async () => {
    const org = await t.api.get("/api/org", { auth: ADMIN, headers: { "X-Grafana-Org-Id": String(org2) } });
    expect(org.status).toBe(200);
    expect(org.body).toMatchObject({ id: org2, name: "Second Org" });
    const written = await t.api.post("/api/annotations", { auth: ADMIN, headers: { "X-Grafana-Org-Id": String(org2) }, body: { text: "in org 2", time: 1_700_000_000_000 } });
    expect(written.status).toBe(200);
    const inOrg2 = await t.api.get("/api/annotations?from=1600000000000&to=1800000000000", { auth: ADMIN, headers: { "X-Svc-Org-Id": String(org2) } });
    expect(inOrg2.body.map((a: { text: string }) => a.text)).toContain("in org 2");
    const inOrg1 = await t.api.get("/api/annotations?from=1600000000000&to=1800000000000", { auth: ADMIN, headers: { "X-Svc-Org-Id": "1" } });
    expect(inOrg1.body.map((a: { text: string }) => a.text)).not.toContain("in org 2");
  });

  it("both headers naming the same organization -> as one; different ones -> 400 naming both", async () => {
    const same = await t.api.get("/api/org", { auth: ADMIN, headers: { "X-Svc-Org-Id": String(org2), "X-Grafana-Org-Id": String(org2) } });
    expect(same.status).toBe(200);
    expect(same.body.id).toBe(org2);
    const differ = await t.api.get("/api/org", { auth: ADMIN, headers: { "X-Svc-Org-Id": "1", "X-Grafana-Org-Id": String(org2) } });
    expect(differ.status).toBe(400);
    expect(differ.body.message).toBe(`the X-Svc-Org-Id header (1) and the X-Grafana-Org-Id header (${org2}) name different organizations`);
  });

  it("an organization the user is not in -> authenticated, 403 on permission checks; a token of another organization -> 401", async () => {
    const inOrg1Only = await t.api.user("org1-viewer", "Viewer");
    const me = await t.api.get("/api/user", { auth: inOrg1Only.auth, headers: { "X-Grafana-Org-Id": String(org2) } });
    expect(me.status).toBe(200);
    expect(me.body.orgId).toBe(-1);
    expect((await t.api.get("/api/org/users", { auth: inOrg1Only.auth, headers: { "X-Grafana-Org-Id": String(org2) } })).status).toBe(403);
    // the editor of organization 2 names organization 1, where it has no role
    expect((await t.api.get("/api/org/users", { auth: editor.auth, headers: { "X-Grafana-Org-Id": "1" } })).status).toBe(403);
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "org1-sa", role: "Viewer" } });
    expect(sa.status).toBe(201);
    const token = await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "t" } });
    expect(token.status).toBe(200);
    const other = await t.api.get("/api/org", { auth: `Bearer ${token.body.key}`, headers: { "X-Grafana-Org-Id": String(org2) } });
    expect(other.status).toBe(401);
  });

  it("is never forwarded to a data source", async () => {
    const ds = await t.api.post("/api/datasources", { auth: ADMIN, headers: { "X-Grafana-Org-Id": String(org2) }, body: { name: "org2-upstream", type: "prometheus", access: "proxy", url: upstream.url } });
    expect(ds.status).toBe(200);
    upstream.received.length = 0;
    const proxied = await t.api.get(`/api/datasources/proxy/uid/${ds.body.datasource.uid}/api/v1/query?query=up`, { auth: ADMIN, headers: { "X-Grafana-Org-Id": String(org2) } });
    expect(proxied.status).toBe(202); // what the stand-in upstream answers
    expect(upstream.received.length).toBe(1);
    expect(Object.keys(upstream.received[0]!.headers).filter((h) => /org-id/i.test(h))).toEqual([]);
  });
});
