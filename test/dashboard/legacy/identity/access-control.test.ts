// The RBAC API and custom roles taking effect (enterprise edition), and its
// absence in the oss edition.
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("RBAC API (enterprise)", () => {
  const t = useServer({ "server.edition": "enterprise" });

  it("GET /api/access-control/status -> {enabled: true}", async () => {
    const r = await t.api.get("/api/access-control/status", { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ enabled: true });
  });

  it("GET roles hides basic roles unless includeHidden; GET basic_viewer -> basic:viewer with permissions", async () => {
    const plain = await t.api.get("/api/access-control/roles", { auth: ADMIN });
    expect(plain.status).toBe(200);
    expect(plain.body.some((r: { name: string }) => r.name.startsWith("basic:"))).toBe(false);
    const hidden = await t.api.get("/api/access-control/roles?includeHidden=true", { auth: ADMIN });
    expect(hidden.body.map((r: { uid: string }) => r.uid)).toEqual(expect.arrayContaining(["basic_viewer", "basic_editor", "basic_admin"]));
    expect(hidden.body.every((r: object) => !("permissions" in r))).toBe(true);
    const viewer = await t.api.get("/api/access-control/roles/basic_viewer?includeHidden=true", { auth: ADMIN });
    expect(viewer.body).toMatchObject({ name: "basic:viewer", uid: "basic_viewer", hidden: true, global: true });
    expect(viewer.body.permissions).toContainEqual(expect.objectContaining({ action: "dashboards:read", scope: "folders:uid:general" }));
    expect((await t.api.get("/api/access-control/roles/nope", { auth: ADMIN })).status).toBe(404);
  });

  it("POST a role: only name required; uid generated; version 1", async () => {
    const r = await t.api.post("/api/access-control/roles", {
      auth: ADMIN,
      body: { name: "custom:x", permissions: [{ action: "dashboards:read", scope: "dashboards:*" }] },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ name: "custom:x", version: 1, global: false, uid: expect.stringMatching(/^\w+$/) });
    expect(r.body.permissions).toEqual([expect.objectContaining({ action: "dashboards:read", scope: "dashboards:*" })]);
    const minimal = await t.api.post("/api/access-control/roles", { auth: ADMIN, body: { name: "custom:empty" } });
    expect(minimal.status).toBe(200);
    expect(minimal.body.permissions).toEqual([]);
    expect((await t.api.post("/api/access-control/roles", { auth: ADMIN, body: { name: "custom:x" } })).status).toBe(409);
  });

  it("reserved prefixes are refused", async () => {
    for (const name of ["fixed:mine", "basic:mine", "managed:mine", "plugins:mine"]) {
      const r = await t.api.post("/api/access-control/roles", { auth: ADMIN, body: { name } });
      expect(r.status).toBe(400);
      expect(r.body.message).toMatch(/reserved prefix/);
    }
  });

  it("an unknown action -> 400 with extra.validationError", async () => {
    const r = await t.api.post("/api/access-control/roles", { auth: ADMIN, body: { name: "custom:bad", permissions: [{ action: "nope:nope" }] } });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      message: "Permission contains an invalid action",
      messageId: "accesscontrol.permission-invalid-action",
      statusCode: 400,
      traceID: "",
      extra: { validationError: "the provided action was not found in the list of valid actions: nope:nope" },
    });
  });

  it("delegation: an org Admin cannot grant a permission it does not hold", async () => {
    const orgAdmin = await t.api.user("rbac-org-admin", "Admin");
    const mine = await t.api.post("/api/access-control/roles", {
      auth: orgAdmin.auth, body: { name: "custom:delegated", permissions: [{ action: "teams:read", scope: "teams:*" }] },
    });
    expect(mine.status).toBe(200);
    const r = await t.api.post("/api/access-control/roles", {
      auth: orgAdmin.auth, body: { name: "custom:escalate", permissions: [{ action: "users:create" }] },
    });
    expect(r.status).toBe(403);
    expect(r.body.message).toMatch(/users:create/);
    const viewer = await t.api.user("rbac-viewer", "Viewer");
    expect((await t.api.post("/api/access-control/roles", { auth: viewer.auth, body: { name: "custom:v" } })).status).toBe(403);
  });

  it("a custom role assigned to a team takes effect for its members at once, and goes with the assignment", async () => {
    const editor = await t.api.user("rbac-editor", "Editor");
    expect((await t.api.get("/api/serviceaccounts/search", { auth: editor.auth })).status).toBe(403);
    const role = await t.api.post("/api/access-control/roles", {
      auth: ADMIN,
      body: { name: "custom:sa-manager", permissions: [{ action: "serviceaccounts:read", scope: "serviceaccounts:*" }, { action: "serviceaccounts:create" }] },
    });
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "SA managers" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: editor.id } });
    const put = await t.api.put(`/api/access-control/teams/${team.body.teamId}/roles`, { auth: ADMIN, body: { roleUids: [role.body.uid] } });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ message: "Team roles have been updated." });
    expect((await t.api.get("/api/serviceaccounts/search", { auth: editor.auth })).status).toBe(200);
    // the role lets an Editor create service accounts, but not above its own role
    const tooHigh = await t.api.post("/api/serviceaccounts", { auth: editor.auth, body: { name: "too high", role: "Admin" } });
    expect(tooHigh.status).toBe(403);
    expect(tooHigh.body).toMatchObject({ message: "can not assign a role higher than user's role", messageId: "serviceaccounts.ErrRoleForbidden" });
    expect((await t.api.post("/api/serviceaccounts", { auth: editor.auth, body: { name: "fine", role: "Editor" } })).status).toBe(201);
    // assigned: delete needs force
    expect((await t.api.delete(`/api/access-control/roles/${role.body.uid}`, { auth: ADMIN })).status).toBe(400);
    expect((await t.api.put(`/api/access-control/teams/${team.body.teamId}/roles`, { auth: ADMIN, body: { roleUids: [] } })).status).toBe(200);
    expect((await t.api.get("/api/serviceaccounts/search", { auth: editor.auth })).status).toBe(403);
    expect((await t.api.put(`/api/access-control/teams/${team.body.teamId}/roles`, { auth: ADMIN, body: { roleUids: ["nope"] } })).status).toBe(404);
    expect((await t.api.put("/api/access-control/teams/999999/roles", { auth: ADMIN, body: { roleUids: [] } })).status).toBe(404);
    expect((await t.api.put(`/api/access-control/teams/${team.body.teamId}/roles`, { auth: ADMIN, body: {} })).status).toBe(400);
  });

  it("POST/DELETE a single team role; DELETE a role with force", async () => {
    const role = await t.api.post("/api/access-control/roles", { auth: ADMIN, body: { name: "custom:single" } });
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "Single" } });
    const path = `/api/access-control/teams/${team.body.teamId}/roles`;
    expect((await t.api.post(path, { auth: ADMIN, body: { roleUid: role.body.uid } })).body).toEqual({ message: "Role added to the team." });
    expect((await t.api.get(path, { auth: ADMIN })).body.map((r: { uid: string }) => r.uid)).toEqual([role.body.uid]);
    expect((await t.api.delete(`/api/access-control/roles/${role.body.uid}?force=true`, { auth: ADMIN })).body).toEqual({ message: "Role deleted" });
    expect((await t.api.get(path, { auth: ADMIN })).body).toEqual([]);
  });

  it("a basic role changed by PUT is restored by hard-reset", async () => {
    const viewer = await t.api.user("reset-viewer", "Viewer");
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "Reset Team" } });
    expect((await t.api.get(`/api/teams/${team.body.teamId}`, { auth: viewer.auth })).status).toBe(403);
    const base = await t.api.get("/api/access-control/roles/basic_viewer", { auth: ADMIN });
    const put = await t.api.put("/api/access-control/roles/basic_viewer", {
      auth: ADMIN,
      body: { name: "basic:viewer", version: 1, permissions: [...base.body.permissions.map((p: { action: string; scope: string }) => ({ action: p.action, scope: p.scope })), { action: "teams:read", scope: "teams:*" }] },
    });
    expect(put.status).toBe(200);
    expect(put.body.version).toBe(2);
    expect((await t.api.get(`/api/teams/${team.body.teamId}`, { auth: viewer.auth })).status).toBe(200);
    const stale = await t.api.put("/api/access-control/roles/basic_viewer", { auth: ADMIN, body: { name: "basic:viewer", version: 1, permissions: [] } });
    expect(stale.status).toBe(409);
    const reset = await t.api.post("/api/access-control/roles/hard-reset", { auth: ADMIN, body: { BasicRoles: true } });
    expect(reset.body).toEqual({ message: "Reset performed" });
    expect((await t.api.get(`/api/teams/${team.body.teamId}`, { auth: viewer.auth })).status).toBe(403);
  });

  it("hard-reset needs the escalation permission: an org Admin -> 403", async () => {
    const orgAdmin = await t.api.user("reset-admin", "Admin");
    expect((await t.api.post("/api/access-control/roles/hard-reset", { auth: orgAdmin.auth, body: { BasicRoles: true } })).status).toBe(403);
  });
});

describe("RBAC API (oss edition)", () => {
  const t = useServer({ "server.edition": "oss" });

  it("GET /api/access-control/status -> 404", async () => {
    const r = await t.api.get("/api/access-control/status", { auth: ADMIN });
    expect(r.status).toBe(404);
    expect((await t.api.post("/api/access-control/roles", { auth: ADMIN, body: { name: "custom:x" } })).status).toBe(404);
  });
});
