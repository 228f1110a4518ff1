// Issue 21: the rest of the user, org and team API that grafana-client and
// Terraform call, with the real product's shapes, messages and permissions:
// users by id and by login, their organizations and teams, the caller's
// teams, server-admin password, disable and enable; organizations by id and
// name, renamed; the current organization's members; a team renamed.
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN, basic } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("users, organizations and teams: the calls real clients make", () => {
  const t = useServer({});
  let viewer = { id: 0, login: "", password: "", auth: "" };
  let teamId = 0;

  beforeAll(async () => {
    viewer = await t.api.user("api-viewer", "Viewer");
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "api-team" } });
    teamId = team.body.teamId;
    expect((await t.api.post(`/api/teams/${teamId}/members`, { auth: ADMIN, body: { userId: viewer.id } })).status).toBe(200);
  });

  it("GET /api/users/:id and /api/users/lookup -> the profile; unknown -> 404 user not found; a Viewer -> 403", async () => {
    const byId = await t.api.get(`/api/users/${viewer.id}`, { auth: ADMIN });
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject({ id: viewer.id, login: "api-viewer", email: "api-viewer@example.test", orgId: 1, isDisabled: false });
    const byEmail = await t.api.get("/api/users/lookup?loginOrEmail=API-VIEWER@example.test", { auth: ADMIN });
    expect(byEmail.body.id).toBe(viewer.id);
    expect((await t.api.get("/api/users/lookup?loginOrEmail=api-viewer", { auth: ADMIN })).body.id).toBe(viewer.id);
    const unknown = await t.api.get("/api/users/99999", { auth: ADMIN });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("user not found");
    expect((await t.api.get("/api/users/lookup?loginOrEmail=nobody", { auth: ADMIN })).status).toBe(404);
    expect((await t.api.get(`/api/users/${viewer.id}`, { auth: viewer.auth })).status).toBe(403);
  });

  it("GET /api/users/:id/orgs, /api/users/:id/teams and /api/user/teams", async () => {
    const orgs = await t.api.get(`/api/users/${viewer.id}/orgs`, { auth: ADMIN });
    expect(orgs.body).toEqual([{ orgId: 1, name: "Main Org.", role: "Viewer" }]);
    const teams = await t.api.get(`/api/users/${viewer.id}/teams`, { auth: ADMIN });
    expect(teams.body.map((x: { name: string }) => x.name)).toEqual(["api-team"]);
    const mine = await t.api.get("/api/user/teams", { auth: viewer.auth });
    expect(mine.status).toBe(200);
    expect(mine.body).toEqual([expect.objectContaining({ id: teamId, name: "api-team", orgId: 1, memberCount: 1 })]);
  });

  it("PUT /api/teams/:id -> Team updated; a name taken -> 409; a Viewer -> 403", async () => {
    const r = await t.api.put(`/api/teams/${teamId}`, { auth: ADMIN, body: { name: "api-team-renamed", email: "team@example.test" } });
    expect(r.status).toBe(200);
    expect(r.body.message).toBe("Team updated");
    expect((await t.api.get(`/api/teams/${teamId}`, { auth: ADMIN })).body).toMatchObject({ name: "api-team-renamed", email: "team@example.test" });
    await t.api.post("/api/teams", { auth: ADMIN, body: { name: "other-team" } });
    const taken = await t.api.put(`/api/teams/${teamId}`, { auth: ADMIN, body: { name: "Other-Team" } });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe("Team name taken");
    expect((await t.api.put(`/api/teams/${teamId}`, { auth: viewer.auth, body: { name: "x" } })).status).toBe(403);
  });

  it("organizations by id and by name, renamed by PUT /api/orgs/:id and PUT /api/org", async () => {
    const created = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Named Org" } });
    const orgId = created.body.orgId;
    expect((await t.api.get(`/api/orgs/${orgId}`, { auth: ADMIN })).body).toMatchObject({ id: orgId, name: "Named Org" });
    expect((await t.api.get("/api/orgs/name/named%20org", { auth: ADMIN })).body).toMatchObject({ id: orgId, name: "Named Org" });
    const missing = await t.api.get("/api/orgs/name/nothing", { auth: ADMIN });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe("Organization not found");
    expect((await t.api.get("/api/orgs/name/Named%20Org", { auth: viewer.auth })).status).toBe(403);
    const renamed = await t.api.put(`/api/orgs/${orgId}`, { auth: ADMIN, body: { name: "Renamed Org" } });
    expect(renamed.body.message).toBe("Organization updated");
    expect((await t.api.get(`/api/orgs/${orgId}`, { auth: ADMIN })).body.name).toBe("Renamed Org");
    expect((await t.api.put(`/api/orgs/${orgId}`, { auth: ADMIN, body: { name: "main org." } })).status).toBe(409);
    // the current organization, by its admin (the server admin administers org 2, which it created)
    const current = await t.api.put("/api/org", { auth: ADMIN, headers: { "X-Svc-Org-Id": String(orgId) }, body: { name: "Current Org" } });
    expect(current.status).toBe(200);
    expect((await t.api.get("/api/org", { auth: ADMIN, headers: { "X-Svc-Org-Id": String(orgId) } })).body.name).toBe("Current Org");
    expect((await t.api.put("/api/org", { auth: viewer.auth, body: { name: "nope" } })).status).toBe(403);
  });

  it("DELETE /api/orgs/:id removes the organization and everything in it; not the caller's current one", async () => {
    const created = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Doomed Org" } });
    const orgId = created.body.orgId;
    const inOrg = { auth: ADMIN, headers: { "X-Svc-Org-Id": String(orgId) } };
    expect((await t.api.post("/api/folders", { ...inOrg, body: { uid: "doomed-f", title: "F" } })).status).toBe(200);
    expect((await t.api.post("/api/dashboards/db", { ...inOrg, body: { dashboard: { uid: "doomed-d", title: "D" }, folderUid: "doomed-f" } })).status).toBe(200);
    expect((await t.api.post("/api/annotations", { ...inOrg, body: { text: "a" } })).status).toBe(200);
    const sa = await t.api.post("/api/serviceaccounts", { ...inOrg, body: { name: "doomed-sa", role: "Viewer" } });
    expect(sa.status).toBe(201);
    const token = await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { ...inOrg, body: { name: "t" } });
    const bearer = `Bearer ${token.body.key}`;
    expect((await t.api.get("/api/search", { auth: bearer })).status).toBe(200);

    expect((await t.api.delete(`/api/orgs/${orgId}`, { auth: viewer.auth })).status).toBe(403);
    const self = await t.api.delete(`/api/orgs/${orgId}`, inOrg);
    expect(self.status).toBe(400);
    expect(self.body.message).toBe("Can not delete org for current user");
    const gone = await t.api.delete(`/api/orgs/${orgId}`, { auth: ADMIN });
    expect(gone.status).toBe(200);
    expect(gone.body).toEqual({ message: "Organization deleted" });
    expect((await t.api.get(`/api/orgs/${orgId}`, { auth: ADMIN })).status).toBe(404);
    const again = await t.api.delete(`/api/orgs/${orgId}`, { auth: ADMIN });
    expect(again.status).toBe(404);
    expect(again.body.message).toBe("Failed to delete organization. ID not found");
    // its service account's token no longer works; org 1's content is untouched
    expect((await t.api.get("/api/search", { auth: bearer })).status).toBe(401);
    expect((await t.api.get("/api/folders/doomed-f", { auth: ADMIN })).status).toBe(404);
    expect((await t.api.get("/api/org", { auth: ADMIN })).body.id).toBe(1);
  });

  it("the current organization's members: POST, PATCH and DELETE /api/org/users", async () => {
    const u = await t.api.user("org-member", "Viewer");
    const created = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Members Org" } });
    const org = { "X-Svc-Org-Id": String(created.body.orgId) };
    const added = await t.api.post("/api/org/users", { auth: ADMIN, headers: org, body: { loginOrEmail: "org-member", role: "Editor" } });
    expect(added.body).toEqual({ message: "User added to organization", userId: u.id });
    const patched = await t.api.patch(`/api/org/users/${u.id}`, { auth: ADMIN, headers: org, body: { role: "Admin" } });
    expect(patched.body.message).toBe("Organization user updated");
    const members = await t.api.get("/api/org/users", { auth: ADMIN, headers: org });
    expect(members.body.find((m: { userId: number }) => m.userId === u.id)?.role).toBe("Admin");
    const removed = await t.api.delete(`/api/org/users/${u.id}`, { auth: ADMIN, headers: org });
    expect(removed.body.message).toBe("User removed from organization");
    expect((await t.api.post("/api/org/users", { auth: viewer.auth, body: { loginOrEmail: "org-member", role: "Viewer" } })).status).toBe(403);
  });

  it("server admin: PUT /api/admin/users/:id/password, POST .../disable and .../enable", async () => {
    const u = await t.api.user("admin-managed", "Viewer");
    const short = await t.api.put(`/api/admin/users/${u.id}/password`, { auth: ADMIN, body: { password: "abc" } });
    expect(short.status).toBe(400);
    expect(short.body.message).toBe("New password is too short");
    const set = await t.api.put(`/api/admin/users/${u.id}/password`, { auth: ADMIN, body: { password: "a-new-password" } });
    expect(set.body.message).toBe("User password updated");
    expect((await t.api.get("/api/user", { auth: basic("admin-managed", "a-new-password") })).status).toBe(200);
    expect((await t.api.get("/api/user", { auth: u.auth })).status).toBe(401);
    expect((await t.api.post(`/api/admin/users/${u.id}/disable`, { auth: ADMIN })).body.message).toBe("User disabled");
    expect((await t.api.get("/api/user", { auth: basic("admin-managed", "a-new-password") })).status).toBe(401);
    expect((await t.api.get(`/api/users/${u.id}`, { auth: ADMIN })).body.isDisabled).toBe(true);
    expect((await t.api.post(`/api/admin/users/${u.id}/enable`, { auth: ADMIN })).body.message).toBe("User enabled");
    expect((await t.api.get("/api/user", { auth: basic("admin-managed", "a-new-password") })).status).toBe(200);
    expect((await t.api.post(`/api/admin/users/${u.id}/disable`, { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.post("/api/admin/users/99999/disable", { auth: ADMIN })).status).toBe(404);
    // the admin cannot lock itself out
    const self = await t.api.post("/api/admin/users/1/disable", { auth: ADMIN });
    expect({ status: self.status, message: self.body.message }).toEqual({ status: 400, message: "You cannot disable your own account" });
    expect((await t.api.get("/api/user", { auth: ADMIN })).status).toBe(200);
  });
});

describe("users as Terraform's grafana_user manages them", () => {
  const t = useServer({});

  it("PUT /api/users/:id -> User updated; a login another user has -> 409", async () => {
    const u = await t.api.user("tf-user", "Viewer");
    await t.api.user("tf-other", "Viewer");
    const r = await t.api.put(`/api/users/${u.id}`, { auth: ADMIN, body: { login: "tf-renamed", email: "tf-renamed@example.test", name: "TF" } });
    expect(r.body.message).toBe("User updated");
    expect((await t.api.get(`/api/users/${u.id}`, { auth: ADMIN })).body).toMatchObject({ login: "tf-renamed", email: "tf-renamed@example.test", name: "TF" });
    expect((await t.api.get("/api/user", { auth: basic("tf-renamed", u.password) })).status).toBe(200);
    const clash = await t.api.put(`/api/users/${u.id}`, { auth: ADMIN, body: { login: "TF-OTHER" } });
    expect({ status: clash.status, message: clash.body.message }).toEqual({ status: 409, message: "Update would result in user login conflict" });
    // (the old login no longer signs in: it was renamed)
    expect((await t.api.put(`/api/users/${u.id}`, { auth: basic("tf-renamed", u.password), body: { name: "x" } })).status).toBe(403);
  });

  it("PUT /api/admin/users/:id/permissions (isGrafanaAdmin as clients send it, or isSvcAdmin) -> a server admin and back; the last one stays", async () => {
    const u = await t.api.user("tf-admin", "Viewer");
    const up = await t.api.put(`/api/admin/users/${u.id}/permissions`, { auth: ADMIN, body: { isGrafanaAdmin: true } });
    expect(up.body.message).toBe("User permissions updated");
    expect((await t.api.get("/api/users", { auth: u.auth })).status).toBe(200);
    expect((await t.api.put(`/api/admin/users/${u.id}/permissions`, { auth: ADMIN, body: { isSvcAdmin: false } })).status).toBe(200);
    expect((await t.api.get("/api/users", { auth: u.auth })).status).toBe(403);
    const last = await t.api.put("/api/admin/users/1/permissions", { auth: ADMIN, body: { isGrafanaAdmin: false } });
    expect({ status: last.status, message: last.body.message }).toEqual({ status: 400, message: "cannot remove last svc admin" });
  });

  it("DELETE /api/admin/users/:id -> User deleted, with its memberships; unknown -> 404; oneself -> 400", async () => {
    const u = await t.api.user("tf-gone", "Editor");
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "tf-team" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: u.id } });
    const r = await t.api.delete(`/api/admin/users/${u.id}`, { auth: ADMIN });
    expect(r.body.message).toBe("User deleted");
    expect((await t.api.get(`/api/users/${u.id}`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.get("/api/user", { auth: u.auth })).status).toBe(401);
    expect((await t.api.get(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN })).body).toEqual([]);
    expect((await t.api.delete(`/api/admin/users/${u.id}`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.delete("/api/admin/users/1", { auth: ADMIN })).status).toBe(400);
  });
});

describe("bad input on the user, org and team routes: a 4xx naming the field, never a 5xx", () => {
  const t = useServer({});

  it("wrong types, unknown ids, oversized and unknown values", async () => {
    const u = await t.api.user("bad-input", "Viewer");
    const team = (await t.api.post("/api/teams", { auth: ADMIN, body: { name: "bad-team" } })).body.teamId;
    const cases: Array<[string, string, unknown, number, RegExp]> = [
      ["PUT", `/api/users/${u.id}`, { name: 5 }, 400, /name must be a string/],
      ["PUT", `/api/users/${u.id}`, { theme: "pink" }, 400, /theme/],
      ["PUT", `/api/users/${u.id}`, { login: "x".repeat(300) }, 400, /login/],
      ["PUT", "/api/users/abc", { name: "x" }, 400, /id is invalid/],
      ["PUT", "/api/users/999999", { name: "x" }, 404, /user not found/],
      ["PUT", `/api/admin/users/${u.id}/password`, { password: 5 }, 400, /password must be a string/],
      ["PUT", `/api/admin/users/${u.id}/password`, {}, 400, /password/],
      ["PUT", `/api/admin/users/${u.id}/permissions`, { isGrafanaAdmin: "yes" }, 400, /isGrafanaAdmin must be boolean/],
      ["PUT", `/api/admin/users/${u.id}/permissions`, {}, 400, /isSvcAdmin/],
      ["DELETE", "/api/admin/users/999999", undefined, 404, /user not found/],
      ["POST", "/api/admin/users/abc/enable", undefined, 400, /id is invalid/],
      ["PUT", "/api/orgs/1", { name: "x".repeat(300) }, 400, /name/],
      ["PUT", "/api/orgs/999999", { name: "Nowhere" }, 404, /Organization not found/],
      ["PUT", "/api/orgs/1", { name: "" }, 400, /name/],
      ["PUT", `/api/teams/${team}`, { name: ["a"] }, 400, /name must be a string/],
      ["PUT", `/api/teams/${team}`, { name: "ok", email: "e".repeat(300) }, 400, /email/],
      ["PUT", "/api/teams/999999", { name: "x" }, 404, /Team not found/],
      ["GET", "/api/users/lookup", undefined, 400, /loginOrEmail/],
      ["GET", "/api/orgs/abc", undefined, 400, /orgId is invalid/],
      ["PATCH", "/api/org/users/1", { role: "Boss" }, 400, /role/],
      ["POST", "/api/user/stars/dashboard/1e3", undefined, 400, /Invalid dashboard ID/],
    ];
    for (const [method, path, body, status, message] of cases) {
      const r = await fetch(`${t.server.urls.dashboard}${path}`, {
        method,
        headers: { Authorization: ADMIN, ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await r.text();
      expect({ method, path, status: r.status }).toEqual({ method, path, status });
      expect(text, `${method} ${path}`).toMatch(message);
    }
  });
});
