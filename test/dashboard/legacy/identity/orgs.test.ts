import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("users and organizations (server admin)", () => {
  const t = useServer();

  it("POST /api/admin/users -> 200 {id, uid, message}; the user joins org 1 as Viewer", async () => {
    const r = await t.api.post("/api/admin/users", { auth: ADMIN, body: { name: "Ann", email: "ann@example.test", login: "ann", password: "ann-secret" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: expect.any(Number), uid: expect.any(String), message: "User created" });
    const members = await t.api.get("/api/orgs/1/users", { auth: ADMIN });
    expect(members.body.find((m: { login: string }) => m.login === "ann")).toMatchObject({ role: "Viewer", email: "ann@example.test", orgId: 1 });
    expect(JSON.stringify(members.body)).not.toMatch(/password/i);
  });

  it("POST /api/admin/users with a taken login -> 412", async () => {
    await t.api.post("/api/admin/users", { auth: ADMIN, body: { login: "dup", password: "dup-secret" } });
    const r = await t.api.post("/api/admin/users", { auth: ADMIN, body: { login: "DUP", password: "dup-secret" } });
    expect(r.status).toBe(412);
    expect(r.body.message).toBe("User with email 'DUP' or username 'DUP' already exists");
  });

  it("POST /api/admin/users without password -> 400 naming the field; without login and email -> 400", async () => {
    const a = await t.api.post("/api/admin/users", { auth: ADMIN, body: { login: "nopw" } });
    expect(a.status).toBe(400);
    expect(a.body.message).toMatch(/password must be a string/);
    const b = await t.api.post("/api/admin/users", { auth: ADMIN, body: { password: "some-secret" } });
    expect(b.status).toBe(400);
    expect(b.body.message).toBe("Need to specify either username or email");
    const c = await t.api.post("/api/admin/users", { auth: ADMIN, body: { login: "big", password: "big-secret", OrgId: 99999999999 } });
    expect(c.status).toBe(400);
    expect(c.body.message).toMatch(/OrgId must be a positive whole number/);
    expect((await t.api.get("/api/orgs/99999999999/users", { auth: ADMIN })).status).toBe(404);
  });

  it("POST /api/admin/users (org Admin, not server admin) -> 403", async () => {
    const orgAdmin = await t.api.user("org-admin", "Admin");
    const r = await t.api.post("/api/admin/users", { auth: orgAdmin.auth, body: { login: "x", password: "xxxxxxx" } });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/Permissions needed: users:create$/);
  });

  it("POST /api/orgs -> 200 {orgId}; the same name again -> 409", async () => {
    const r = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Second" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ orgId: expect.any(Number), message: "Organization created" });
    expect((await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "second" } })).status).toBe(409);
  });

  it("org members: add, change role, remove; unknown user -> 404; twice -> 409", async () => {
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Members" } });
    const u = await t.api.user("member", "Viewer");
    const path = `/api/orgs/${org.body.orgId}/users`;
    expect((await t.api.post(path, { auth: ADMIN, body: { loginOrEmail: "nobody", role: "Viewer" } })).status).toBe(404);
    expect((await t.api.post(path, { auth: ADMIN, body: { loginOrEmail: "member@example.test", role: "Viewer" } })).body).toEqual({
      message: "User added to organization", userId: u.id,
    });
    expect((await t.api.post(path, { auth: ADMIN, body: { loginOrEmail: "member", role: "Viewer" } })).status).toBe(409);
    expect((await t.api.post(path, { auth: ADMIN, body: { loginOrEmail: "member", role: "Boss" } })).status).toBe(400);
    expect((await t.api.patch(`${path}/${u.id}`, { auth: ADMIN, body: { role: "Editor" } })).body).toEqual({ message: "Organization user updated" });
    const members = await t.api.get(path, { auth: ADMIN });
    expect(members.body.find((m: { userId: number }) => m.userId === u.id).role).toBe("Editor");
    expect((await t.api.delete(`${path}/${u.id}`, { auth: ADMIN })).body).toEqual({ message: "User removed from organization" });
    expect((await t.api.delete(`${path}/${u.id}`, { auth: ADMIN })).status).toBe(404);
  });

  it("an org Admin manages members of their own org but not of another", async () => {
    const orgAdmin = await t.api.user("admin-of-1", "Admin");
    expect((await t.api.get("/api/orgs/1/users", { auth: orgAdmin.auth })).status).toBe(200);
    const other = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Elsewhere" } });
    expect((await t.api.get(`/api/orgs/${other.body.orgId}/users`, { auth: orgAdmin.auth })).status).toBe(403);
  });
});
