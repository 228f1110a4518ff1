// The lists the admin page reads, in the real product's shapes: users of the
// server (GET /api/users, /api/users/search), members of the current
// organization (GET /api/org/users, /api/org/users/search), organizations
// (GET /api/orgs, GET /api/org) and the signed-in user's (GET /api/user/orgs).
import { describe, expect, it } from "vitest";
import { ADMIN, bearer } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

const cookieOf = (setCookie: string | null) => /svc_session=([^;]*)/.exec(setCookie ?? "")?.[1] ?? "";

describe("admin lists", () => {
  const t = useServer();
  const saToken = async (name: string, role: string) => {
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name, role } });
    return bearer((await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name } })).body.key);
  };

  it("GET /api/users (server admin) -> every person, never a service account, in the real product's shape", async () => {
    const u = await t.api.user("lister-ann", "Viewer");
    await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "lister robot", role: "Viewer" } });
    const r = await t.api.get("/api/users", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body.some((x: { login: string }) => x.login.startsWith("sa-"))).toBe(false);
    const ann = r.body.find((x: { id: number }) => x.id === u.id);
    expect(Object.keys(ann).sort()).toEqual([
      "authLabels", "avatarUrl", "email", "id", "isAdmin", "isDisabled", "isProvisioned", "lastSeenAt", "lastSeenAtAge", "login", "name", "uid",
    ]);
    expect(ann).toMatchObject({ login: "lister-ann", email: "lister-ann@example.test", name: "lister-ann", isAdmin: false, isDisabled: false });
    expect(ann.authLabels).toEqual([]);
    expect(ann.isProvisioned).toBe(false);
    expect(ann.avatarUrl).toMatch(/^\/avatar\/[0-9a-f]{32}$/);
    // never signed in: the real product's "10 years ago"
    expect(ann.lastSeenAtAge).toBe("10 years");
    expect(r.body.find((x: { login: string }) => x.login === "admin").isAdmin).toBe(true);
    expect(JSON.stringify(r.body)).not.toMatch(/password/i);
  });

  it("GET /api/users/search?query= matches login, email or name in any case; perpage and page", async () => {
    for (const n of ["srch-one", "srch-two", "srch-three"]) await t.api.user(n, "Viewer");
    const all = await t.api.get("/api/users/search?query=SRCH-", { auth: ADMIN });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ totalCount: 3, page: 1, perPage: 1000 });
    expect(all.body.users.map((u: { login: string }) => u.login)).toEqual(["srch-one", "srch-three", "srch-two"]);
    expect((await t.api.get("/api/users/search?query=two@EXAMPLE", { auth: ADMIN })).body.totalCount).toBe(1);
    const page2 = await t.api.get("/api/users/search?query=srch&perpage=2&page=2", { auth: ADMIN });
    expect(page2.body).toMatchObject({ totalCount: 3, page: 2, perPage: 2 });
    expect(page2.body.users.map((u: { login: string }) => u.login)).toEqual(["srch-two"]);
    // % and _ are literal, not wildcards; bad paging values take the defaults
    expect((await t.api.get("/api/users/search?query=%25", { auth: ADMIN })).body.totalCount).toBe(0);
    expect((await t.api.get("/api/users/search?query=srch_", { auth: ADMIN })).body.totalCount).toBe(0);
    expect((await t.api.get("/api/users/search?perpage=-3&page=abc", { auth: ADMIN })).body).toMatchObject({ page: 1, perPage: 1000 });
    const huge = await t.api.get("/api/users/search?perpage=99999999999999999999&page=99999999999999999999", { auth: ADMIN });
    expect(huge.status).toBe(200);
    expect(huge.body.users).toEqual([]);
    expect((await t.api.get("/api/orgs?perpage=99999999999999999999&page=99999999999999999999", { auth: ADMIN })).body).toEqual([]);
    expect((await t.api.get("/api/org/users?limit=99999999999999999999", { auth: ADMIN })).status).toBe(200);
    expect((await t.api.get("/api/users?perpage=1&page=2&query=srch", { auth: ADMIN })).body.map((u: { login: string }) => u.login)).toEqual(["srch-three"]);
  });

  it("GET /api/users (org Admin, service account token) -> 403 users:read", async () => {
    const orgAdmin = await t.api.user("lists-org-admin", "Admin");
    for (const auth of [orgAdmin.auth, await saToken("lists admin sa", "Admin")]) {
      for (const path of ["/api/users", "/api/users/search"]) {
        const r = await t.api.get(path, { auth });
        expect(r.status).toBe(403);
        expect(r.body.message).toMatch(/Permissions needed: users:read$/);
      }
    }
    expect((await t.api.get("/api/users")).status).toBe(401);
  });

  it("a sign-in shows as lastSeenAt", async () => {
    await t.api.user("seen-sam", "Viewer");
    const login = await t.api.post("/login", { body: { user: "seen-sam", password: "pw-seen-sam-secret" } });
    expect(cookieOf(login.headers.get("set-cookie"))).not.toBe("");
    const sam = (await t.api.get("/api/users/search?query=seen-sam", { auth: ADMIN })).body.users[0];
    expect(sam.lastSeenAtAge).toBe("< 1 minute");
    expect(Math.abs(Date.parse(sam.lastSeenAt) - Date.now())).toBeLessThan(60_000);
  });

  it("GET /api/org/users and /search (org Admin) -> the current org's members, as /api/orgs/:orgId/users", async () => {
    const orgAdmin = await t.api.user("members-admin", "Admin");
    await t.api.user("members-eve", "Editor");
    const r = await t.api.get("/api/org/users", { auth: orgAdmin.auth });
    expect(r.status).toBe(200);
    const eve = r.body.find((m: { login: string }) => m.login === "members-eve");
    expect(eve).toMatchObject({ orgId: 1, role: "Editor", email: "members-eve@example.test", name: "members-eve", isDisabled: false });
    for (const key of ["userId", "uid", "avatarUrl", "lastSeenAt", "lastSeenAtAge"]) expect(eve).toHaveProperty(key);
    expect(r.body.some((m: { login: string }) => m.login.startsWith("sa-"))).toBe(false);
    expect((await t.api.get("/api/orgs/1/users", { auth: orgAdmin.auth })).body).toEqual(r.body);
    expect((await t.api.get("/api/org/users?query=MEMBERS-&limit=1", { auth: orgAdmin.auth })).body.map((m: { login: string }) => m.login))
      .toEqual(["members-admin"]);

    const s = await t.api.get("/api/org/users/search?query=members-&perpage=1&page=2", { auth: orgAdmin.auth });
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ totalCount: 2, page: 2, perPage: 1 });
    expect(s.body.orgUsers.map((m: { login: string }) => m.login)).toEqual(["members-eve"]);
    expect((await t.api.get("/api/org/users/search", { auth: ADMIN })).body).toMatchObject({ page: 1, perPage: 1000 });
  });

  it("GET /api/org/users (Editor) -> 403 org.users:read; in another org -> that org's members", async () => {
    const editor = await t.api.user("members-editor", "Editor");
    const r = await t.api.get("/api/org/users", { auth: editor.auth });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/Permissions needed: org.users:read$/);
    expect((await t.api.get("/api/org/users/search", { auth: editor.auth })).status).toBe(403);
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Members Elsewhere" } });
    await t.api.post(`/api/orgs/${org.body.orgId}/users`, { auth: ADMIN, body: { loginOrEmail: "members-editor", role: "Admin" } });
    const there = await t.api.get(`/api/org/users?targetOrgId=${org.body.orgId}`, { auth: editor.auth });
    expect(there.status).toBe(200);
    expect(there.body.map((m: { login: string; role: string }) => [m.login, m.role])).toEqual([["admin", "Admin"], ["members-editor", "Admin"]]);
  });

  it("GET /api/orgs (server admin) -> [{id, name}] by name, with query, name, perpage and page", async () => {
    for (const name of ["Zeta Org", "Alpha Org"]) await t.api.post("/api/orgs", { auth: ADMIN, body: { name } });
    const r = await t.api.get("/api/orgs", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body[0]).toEqual({ id: expect.any(Number), name: "Alpha Org" });
    expect(r.body.map((o: { name: string }) => o.name)).toContain("Main Org.");
    expect((await t.api.get("/api/orgs?query=org&perpage=1&page=2", { auth: ADMIN })).body.map((o: { name: string }) => o.name))
      .toEqual(["Main Org."]);
    expect((await t.api.get("/api/orgs?name=zeta%20org", { auth: ADMIN })).body.map((o: { name: string }) => o.name)).toEqual(["Zeta Org"]);
    expect((await t.api.get("/api/orgs?query=zz-nothing", { auth: ADMIN })).body).toEqual([]);
  });

  it("GET /api/orgs (org Admin, Viewer) -> 403 orgs:read; GET /api/org (Viewer) -> the current org", async () => {
    const viewer = await t.api.user("orgs-viewer", "Viewer");
    const orgAdmin = await t.api.user("orgs-admin", "Admin");
    for (const auth of [viewer.auth, orgAdmin.auth]) {
      const r = await t.api.get("/api/orgs", { auth });
      expect(r.status).toBe(403);
      expect(r.body.message).toMatch(/Permissions needed: orgs:read$/);
    }
    const org = await t.api.get("/api/org", { auth: viewer.auth });
    expect(org.status).toBe(200);
    expect(org.body).toEqual({
      id: 1, name: "Main Org.", address: { address1: "", address2: "", city: "", zipCode: "", state: "", country: "" },
    });
    const none = await t.api.user("orgs-none", "None");
    expect((await t.api.get("/api/org", { auth: none.auth })).status).toBe(403);
  });

  it("GET /api/user/orgs -> the caller's organizations with their role, by name; a token -> 403", async () => {
    const u = await t.api.user("switcher", "Editor");
    const second = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "A Switch Target" } });
    await t.api.post(`/api/orgs/${second.body.orgId}/users`, { auth: ADMIN, body: { loginOrEmail: "switcher", role: "Viewer" } });
    const r = await t.api.get("/api/user/orgs", { auth: u.auth });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { orgId: second.body.orgId, name: "A Switch Target", role: "Viewer" },
      { orgId: 1, name: "Main Org.", role: "Editor" },
    ]);
    const sa = await t.api.get("/api/user/orgs", { auth: await saToken("switch sa", "Admin") });
    expect(sa.status).toBe(403);
    expect(sa.body.message).toBe("Endpoint only available for users");
  });
});
