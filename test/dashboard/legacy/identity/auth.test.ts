// Authentication and organization selection, as a client sees them.
import { describe, expect, it } from "vitest";
import { ADMIN, basic } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("authentication", () => {
  const t = useServer({ "security.login_max_attempts": 3 });

  it("GET /api/user (no credentials) -> 401 auth.unauthorized", async () => {
    const r = await t.api.get("/api/user");
    expect(r.status).toBe(401);
    expect(r.headers.get("content-type")).toMatch(/^application\/json/);
    expect(r.body).toEqual({ message: "Unauthorized", messageId: "auth.unauthorized", statusCode: 401, traceID: "" });
  });

  it("GET /api/user (wrong password, unknown user) -> the same 401, no enumeration", async () => {
    const wrong = await t.api.get("/api/user", { auth: basic("admin", "nope") });
    const unknown = await t.api.get("/api/user", { auth: basic("nobody", "nope") });
    for (const r of [wrong, unknown]) {
      expect(r.status).toBe(401);
      expect(r.body).toEqual({ message: "Invalid username or password", messageId: "password-auth.failed", statusCode: 401, traceID: "" });
    }
  });

  it("GET /api/user (malformed basic header) -> 400 Invalid Basic Auth Header", async () => {
    const r = await t.api.get("/api/user", { auth: "Basic !!!" });
    expect(r.status).toBe(400);
    expect(r.body.messageId).toBe("basic-auth.invalid-header");
  });

  it("GET /api/user (admin) -> 200 profile with uid, org 1, server-admin flag", async () => {
    const r = await t.api.get("/api/user", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ login: "admin", orgId: 1, isSvcAdmin: true, isDisabled: false, authLabels: [] });
    expect(r.body.uid).toMatch(/^[A-Za-z0-9]{14}$/);
    expect(r.body.avatarUrl).toMatch(/^\/avatar\/[0-9a-f]{32}$/);
    expect(JSON.stringify(r.body)).not.toMatch(/password|\$2[aby]\$/i);
  });

  it("repeated failed logins lock the login; the message does not change", async () => {
    const u = await t.api.user("locky", "Viewer");
    for (let i = 0; i < 3; i++) expect((await t.api.get("/api/user", { auth: basic("locky", "bad") })).status).toBe(401);
    const locked = await t.api.get("/api/user", { auth: u.auth });
    expect(locked.status).toBe(401);
    expect(locked.body.message).toBe("Invalid username or password");
    expect(locked.body.messageId).toBe("login-attempt.blocked");
    // the lock is the account's, whichever of login or email is typed
    const other = await t.api.user("locky2", "Viewer");
    await t.api.get("/api/user", { auth: basic("locky2", "bad") });
    await t.api.get("/api/user", { auth: basic("locky2@example.test", "bad") });
    await t.api.get("/api/user", { auth: basic("LOCKY2", "bad") });
    expect((await t.api.get("/api/user", { auth: other.auth })).body.messageId).toBe("login-attempt.blocked");
    // an unknown login locks the same way: no hint that it does not exist
    for (let i = 0; i < 4; i++) await t.api.get("/api/user", { auth: basic("ghost", "bad") });
    expect((await t.api.get("/api/user", { auth: basic("ghost", "bad") })).body.messageId).toBe("login-attempt.blocked");
  });

  it("X-Svc-Org-Id of an org the user is not in -> authenticated but 403 on permission checks", async () => {
    const v = await t.api.user("viewer-org", "Viewer");
    const other = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Other Org" } });
    expect(other.status).toBe(200);
    const r = await t.api.get(`/api/orgs/1/users`, { auth: v.auth, headers: { "X-Svc-Org-Id": String(other.body.orgId) } });
    expect(r.status).toBe(403);
    const me = await t.api.get("/api/user", { auth: v.auth, headers: { "X-Svc-Org-Id": String(other.body.orgId) } });
    expect(me.status).toBe(200);
    expect(me.body.orgId).toBe(-1);
  });

  it("X-Svc-Org-Id that is not a number is ignored", async () => {
    const r = await t.api.get("/api/user", { auth: ADMIN, headers: { "X-Svc-Org-Id": "abc" } });
    expect(r.status).toBe(200);
    expect(r.body.orgId).toBe(1);
  });

  it("403 bodies name the missing permission in the real product's shape", async () => {
    const v = await t.api.user("viewer-403", "Viewer");
    const r = await t.api.post("/api/orgs", { auth: v.auth, body: { name: "Nope" } });
    expect(r.status).toBe(403);
    expect(r.body.title).toBe("Access denied");
    expect(r.body.message).toBe("You'll need additional permissions to perform this action. Permissions needed: orgs:create");
    expect(r.body.accessErrorId).toMatch(/^ACE\d{10}$/);
  });
});

describe("the signed-in user", () => {
  const t = useServer();

  it("PUT /api/user/password: wrong old password -> 400; short -> 400; then the new one works", async () => {
    const u = await t.api.user("pat", "Viewer");
    const wrong = await t.api.put("/api/user/password", { auth: u.auth, body: { oldPassword: "x", newPassword: "abcdefgh1" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe("Invalid old password");
    const short = await t.api.put("/api/user/password", { auth: u.auth, body: { oldPassword: u.password, newPassword: "ab" } });
    expect(short.status).toBe(400);
    expect(short.body.message).toBe("New password is too short");
    const ok = await t.api.put("/api/user/password", { auth: u.auth, body: { oldPassword: u.password, newPassword: "brand-new-pw" } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: "User password changed" });
    expect((await t.api.get("/api/user", { auth: u.auth })).status).toBe(401);
    expect((await t.api.get("/api/user", { auth: basic("pat", "brand-new-pw") })).status).toBe(200);
  });

  it("PUT /api/user/password with a body missing a field -> 400 naming it", async () => {
    const r = await t.api.put("/api/user/password", { auth: ADMIN, body: { oldPassword: "admin" } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/newPassword must be a string/);
  });

  it("POST /api/user/using/:orgId switches the current org; non-member -> 401; not a number -> 400", async () => {
    const u = await t.api.user("switcher", "Viewer");
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Switch Org" } });
    expect((await t.api.post(`/api/user/using/${org.body.orgId}`, { auth: u.auth })).body).toEqual({ message: "Not a valid organization" });
    expect((await t.api.post("/api/user/using/abc", { auth: u.auth })).body).toEqual({ message: "id is invalid" });
    const added = await t.api.post(`/api/orgs/${org.body.orgId}/users`, { auth: ADMIN, body: { loginOrEmail: "switcher", role: "Editor" } });
    expect(added.status).toBe(200);
    const ok = await t.api.post(`/api/user/using/${org.body.orgId}`, { auth: u.auth });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: "Active organization changed" });
    expect((await t.api.get("/api/user", { auth: u.auth })).body.orgId).toBe(org.body.orgId);
  });
});
