// Privilege-escalation paths found in review, each closed: every test here
// failed before its fix.
import { describe, expect, it } from "vitest";
import { scopeCovers } from "../../../../src/apps/dashboard/core/identity/permissions.ts";
import { ADMIN, bearer } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("escalation paths (enterprise)", () => {
  const t = useServer({ "server.edition": "enterprise" });

  /** a custom role assigned through a new team to a user */
  const grant = async (userId: number, name: string, permissions: Array<{ action: string; scope?: string }>) => {
    const role = await t.api.post("/api/access-control/roles", { auth: ADMIN, body: { name, permissions } });
    expect(role.status).toBe(200);
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: `team for ${name}` } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId } });
    expect((await t.api.post(`/api/access-control/teams/${team.body.teamId}/roles`, { auth: ADMIN, body: { roleUid: role.body.uid } })).status).toBe(200);
    return role.body.uid as string;
  };

  it("an empty scope stands for no scope, never for every scope", async () => {
    expect(scopeCovers("", "permissions:type:escalate")).toBe(false);
    expect(scopeCovers("", "")).toBe(true);
    expect(scopeCovers("*", "")).toBe(true);
    const orgAdmin = await t.api.user("esc-admin-1", "Admin");
    const r = await t.api.post("/api/access-control/roles", {
      auth: orgAdmin.auth, body: { name: "custom:empty-scope", permissions: [{ action: "roles:write", scope: "" }] },
    });
    expect(r.status).toBe(403);
  });

  it("assigning a role to a team delegates its permissions: an org Admin cannot hand out a server admin's role", async () => {
    const global = await t.api.post("/api/access-control/roles", {
      auth: ADMIN, body: { name: "custom:global-users", global: true, permissions: [{ action: "users:create" }] },
    });
    expect(global.status).toBe(200);
    const orgAdmin = await t.api.user("esc-admin-2", "Admin");
    const team = await t.api.post("/api/teams", { auth: orgAdmin.auth, body: { name: "esc own team" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: orgAdmin.auth, body: { userId: orgAdmin.id } });
    const path = `/api/access-control/teams/${team.body.teamId}/roles`;
    expect((await t.api.post(path, { auth: orgAdmin.auth, body: { roleUid: global.body.uid } })).status).toBe(403);
    expect((await t.api.put(path, { auth: orgAdmin.auth, body: { roleUids: [global.body.uid] } })).status).toBe(403);
    expect((await t.api.post("/api/admin/users", { auth: orgAdmin.auth, body: { login: "esc-made", password: "xxxxxx" } })).status).toBe(403);
  });

  it("org member changes never hand out a role above the caller's; the last Admin stays", async () => {
    const editor = await t.api.user("esc-editor", "Editor");
    await grant(editor.id, "custom:org-users", [
      { action: "org.users:read", scope: "users:*" }, { action: "org.users:write", scope: "users:*" }, { action: "org.users:add", scope: "users:*" },
    ]);
    const self = await t.api.patch(`/api/orgs/1/users/${editor.id}`, { auth: editor.auth, body: { role: "Admin" } });
    expect(self.status).toBe(403);
    expect(self.body.message).toBe("Cannot assign a role higher than user's role");
    const lonely = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Lonely Org" } });
    const demote = await t.api.patch(`/api/orgs/${lonely.body.orgId}/users/1`, { auth: ADMIN, body: { role: "Viewer" } });
    expect(demote.status).toBe(400);
    expect(demote.body.message).toBe("Cannot change role so that there is no organization admin left");
  });

  it("service accounts are out of reach of the org-users endpoints", async () => {
    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "esc org sa", role: "Viewer" } });
    const key = (await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "esc-org-sa" } })).body.key;
    expect((await t.api.delete(`/api/orgs/1/users/${sa.body.id}`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.patch(`/api/orgs/1/users/${sa.body.id}`, { auth: ADMIN, body: { role: "Admin" } })).status).toBe(404);
    expect((await t.api.get("/api/orgs/1/users", { auth: ADMIN })).body.some((m: { userId: number }) => m.userId === sa.body.id)).toBe(false);
    expect((await t.api.get("/api/teams/search", { auth: bearer(key) })).status).toBe(403); // still a Viewer, still authenticates
  });

  it("no tokens for, changes to or deletion of a service account above the caller's role", async () => {
    const editor = await t.api.user("esc-sa-editor", "Editor");
    await grant(editor.id, "custom:sa-writer", [
      { action: "serviceaccounts:read", scope: "serviceaccounts:*" }, { action: "serviceaccounts:write", scope: "serviceaccounts:*" },
      { action: "serviceaccounts:delete", scope: "serviceaccounts:*" },
    ]);
    const adminSa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "esc admin sa", role: "Admin" } });
    const path = `/api/serviceaccounts/${adminSa.body.id}`;
    for (const r of [
      await t.api.post(`${path}/tokens`, { auth: editor.auth, body: { name: "stolen" } }),
      await t.api.patch(path, { auth: editor.auth, body: { name: "renamed" } }),
      await t.api.delete(path, { auth: editor.auth }),
    ]) {
      expect(r.status).toBe(403);
      expect(r.body.messageId).toBe("serviceaccounts.ErrRoleForbidden");
    }
    const viewerSa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "esc viewer sa", role: "Viewer" } });
    expect((await t.api.post(`/api/serviceaccounts/${viewerSa.body.id}/tokens`, { auth: editor.auth, body: { name: "fine" } })).status).toBe(200);
  });

  it("reserved uid prefixes are refused", async () => {
    const orgAdmin = await t.api.user("esc-admin-3", "Admin");
    const r = await t.api.post("/api/access-control/roles", { auth: orgAdmin.auth, body: { name: "custom:squat", uid: "basic_admin" } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/reserved prefix "basic_"/);
  });

  it("huge paging values are clamped, not a 500", async () => {
    for (const q of ["perpage=100000000000000000000", "page=1e18", "page=99999999999999999999&perpage=5"]) {
      expect((await t.api.get(`/api/serviceaccounts/search?${q}`, { auth: ADMIN })).status).toBe(200);
      expect((await t.api.get(`/api/teams/search?${q}`, { auth: ADMIN })).status).toBe(200);
    }
  });
});
