// Data source permissions (enterprise): the four endpoints, the defaults a new
// data source gets, and enforcement: without a basic-role grant or an entry
// of their own, a user does not see, read or edit the data source.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ADMIN, client } from "../../../helpers/api.ts";
import { startTestServer, useServer } from "../../../helpers/server.ts";

const ds = (name: string) => ({ name, type: "prometheus", access: "proxy", url: "http://127.0.0.1:9" });

describe("data source permissions (enterprise)", () => {
  const t = useServer({ "server.edition": "enterprise" });
  const create = async (name: string) => {
    const r = await t.api.post("/api/datasources", { auth: ADMIN, body: ds(name) });
    expect(r.status).toBe(200);
    return r.body.datasource as { uid: string; id: number };
  };
  const perms = (uid: string) => `/api/access-control/datasources/${uid}`;
  const names = async (auth: string) => {
    const r = await t.api.get("/api/datasources", { auth });
    return r.status === 200 ? (r.body as Array<{ name: string }>).map((d) => d.name) : r.status;
  };

  it("GET /description -> the assignments and the three levels", async () => {
    const r = await t.api.get(`${perms("description")}`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body.permissions).toEqual(["Query", "Edit", "Admin"]);
    expect(r.body.assignments).toMatchObject({ users: true, teams: true, builtInRoles: true });
  });

  it("a new data source: Viewer and Editor may query, its creator administers; the Admin role is shown unmanaged", async () => {
    const { uid } = await create("defaults");
    const r = await t.api.get(perms(uid), { auth: ADMIN });
    expect(r.status).toBe(200);
    const byRole = (role: string) => r.body.find((e: { builtInRole?: string; isManaged: boolean }) => e.builtInRole === role && e.isManaged);
    expect(byRole("Viewer")).toMatchObject({ permission: "Query", roleName: "managed:builtins:viewer:permissions", actions: ["datasources:query", "datasources:read"] });
    expect(byRole("Editor")).toMatchObject({ permission: "Query" });
    expect(r.body.find((e: { userLogin?: string }) => e.userLogin === "admin")).toMatchObject({
      permission: "Admin", isManaged: true, isInherited: false, isServiceAccount: false, roleName: expect.stringMatching(/^managed:users:\d+:permissions$/),
    });
    expect(r.body.find((e: { roleName: string }) => e.roleName === "basic:admin")).toMatchObject({ isManaged: false, permission: "Admin", builtInRole: "Admin" });
  });

  it("removing the Viewer entry hides the data source from viewers: list, get, edit", async () => {
    const { uid } = await create("viewers-out");
    const viewer = await t.api.user("v-out", "Viewer");
    expect(await names(viewer.auth)).toContain("viewers-out");
    expect((await t.api.get(`/api/datasources/uid/${uid}`, { auth: viewer.auth })).status).toBe(200);
    const removed = await t.api.post(`${perms(uid)}/builtInRoles/Viewer`, { auth: ADMIN, body: { permission: "" } });
    expect(removed.body).toEqual({ message: "Permission removed" });
    expect(await names(viewer.auth)).not.toContain("viewers-out");
    expect((await t.api.get(`/api/datasources/uid/${uid}`, { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.get(`/api/datasources/name/viewers-out`, { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.put(`/api/datasources/uid/${uid}`, { auth: viewer.auth, body: ds("viewers-out") })).status).toBe(403);
    // editors keep their own entry
    const editor = await t.api.user("e-in", "Editor");
    expect(await names(editor.auth)).toContain("viewers-out");
  });

  it("a user entry: Query reads but cannot edit; Edit edits and deletes; Admin manages permissions", async () => {
    const { uid } = await create("per-user");
    await t.api.post(`${perms(uid)}/builtInRoles/Viewer`, { auth: ADMIN, body: { permission: "" } });
    const u = await t.api.user("u-levels", "Viewer");
    expect((await t.api.get(`/api/datasources/uid/${uid}`, { auth: u.auth })).status).toBe(403);

    expect((await t.api.post(`${perms(uid)}/users/${u.id}`, { auth: ADMIN, body: { permission: "Query" } })).body).toEqual({ message: "Permission updated" });
    expect((await t.api.get(`/api/datasources/uid/${uid}`, { auth: u.auth })).status).toBe(200);
    expect((await t.api.put(`/api/datasources/uid/${uid}`, { auth: u.auth, body: ds("per-user") })).status).toBe(403);
    expect((await t.api.get(perms(uid), { auth: u.auth })).status).toBe(403);

    await t.api.post(`${perms(uid)}/users/${u.id}`, { auth: ADMIN, body: { permission: "Edit" } });
    const put = await t.api.put(`/api/datasources/uid/${uid}`, { auth: u.auth, body: { ...ds("per-user"), url: "http://127.0.0.1:10" } });
    expect(put.status).toBe(200);
    expect((await t.api.post(`${perms(uid)}/users/${u.id}`, { auth: u.auth, body: { permission: "Admin" } })).status).toBe(403);

    await t.api.post(`${perms(uid)}/users/${u.id}`, { auth: ADMIN, body: { permission: "Admin" } });
    expect((await t.api.get(perms(uid), { auth: u.auth })).status).toBe(200);
    const entry = (await t.api.get(perms(uid), { auth: ADMIN })).body.find((e: { userId?: number }) => e.userId === u.id);
    expect(entry).toMatchObject({ permission: "Admin", userLogin: "u-levels", isServiceAccount: false });
    expect(entry.actions).toEqual(expect.arrayContaining(["datasources:write", "datasources:delete", "datasources.permissions:write"]));
    expect((await t.api.delete(`/api/datasources/uid/${uid}`, { auth: u.auth })).status).toBe(200);
  });

  it("a team entry reaches its members; a service account entry is marked as one", async () => {
    const { uid } = await create("per-team");
    await t.api.post(`${perms(uid)}/builtInRoles/Viewer`, { auth: ADMIN, body: { permission: "" } });
    const member = await t.api.user("team-member", "Viewer");
    const outsider = await t.api.user("team-outsider", "Viewer");
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "DS Readers" } });
    await t.api.post(`/api/teams/${team.body.teamId}/members`, { auth: ADMIN, body: { userId: member.id } });
    expect((await t.api.post(`${perms(uid)}/teams/${team.body.teamId}`, { auth: ADMIN, body: { permission: "Query" } })).status).toBe(200);
    expect(await names(member.auth)).toContain("per-team");
    expect(await names(outsider.auth)).not.toContain("per-team");
    const entry = (await t.api.get(perms(uid), { auth: ADMIN })).body.find((e: { teamId?: number }) => e.teamId === team.body.teamId);
    expect(entry).toMatchObject({ team: "DS Readers", permission: "Query", roleName: `managed:teams:${team.body.teamId}:permissions` });

    const sa = await t.api.post("/api/serviceaccounts", { auth: ADMIN, body: { name: "ds-bot", role: "Viewer" } });
    expect((await t.api.post(`${perms(uid)}/users/${sa.body.id}`, { auth: ADMIN, body: { permission: "Query" } })).status).toBe(200);
    const token = await t.api.post(`/api/serviceaccounts/${sa.body.id}/tokens`, { auth: ADMIN, body: { name: "ds-bot-token" } });
    expect(await names(`Bearer ${token.body.key}`)).toContain("per-team");
    const saEntry = (await t.api.get(perms(uid), { auth: ADMIN })).body.find((e: { userId?: number }) => e.userId === sa.body.id);
    expect(saEntry).toMatchObject({ isServiceAccount: true });
  });

  it("bad input: ids, roles, permission values, users of another org, unknown data source, ds_type", async () => {
    const { uid } = await create("bad-input");
    expect((await t.api.post(`${perms(uid)}/users/abc`, { auth: ADMIN, body: { permission: "Query" } })).body.message).toBe("userID is invalid");
    expect((await t.api.post(`${perms(uid)}/teams/abc`, { auth: ADMIN, body: { permission: "Query" } })).body.message).toBe("teamID is invalid");
    expect((await t.api.post(`${perms(uid)}/builtInRoles/Owner`, { auth: ADMIN, body: { permission: "Query" } })).status).toBe(400);
    const bad = await t.api.post(`${perms(uid)}/builtInRoles/Viewer`, { auth: ADMIN, body: { permission: "Read" } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("permission");
    expect((await t.api.post(`${perms(uid)}/builtInRoles/Viewer`, { auth: ADMIN, body: {} })).status).toBe(400);
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "DS Perm Org" } });
    const stranger = await t.api.user("ds-stranger", "Viewer", org.body.orgId);
    const foreign = await t.api.post(`${perms(uid)}/users/${stranger.id}`, { auth: ADMIN, body: { permission: "Query" } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toMatch(/^failed to set user permission/);
    expect((await t.api.post(`${perms(uid)}/users/99999`, { auth: ADMIN, body: { permission: "Query" } })).status).toBe(400);
    expect((await t.api.post(`${perms(uid)}/teams/99999`, { auth: ADMIN, body: { permission: "Query" } })).status).toBe(400);
    expect((await t.api.get(perms("no-such-uid"), { auth: ADMIN })).status).toBe(404);
    expect((await t.api.get(`${perms(uid)}?ds_type=prometheus`, { auth: ADMIN })).status).toBe(200);
    expect((await t.api.get(`${perms(uid)}?ds_type=loki`, { auth: ADMIN })).status).toBe(404);
  });

  it("viewers and editors cannot read or change permissions", async () => {
    const { uid } = await create("perm-guard");
    const editor = await t.api.user("perm-editor", "Editor");
    expect((await t.api.get(perms(uid), { auth: editor.auth })).status).toBe(403);
    expect((await t.api.post(`${perms(uid)}/builtInRoles/Viewer`, { auth: editor.auth, body: { permission: "Admin" } })).status).toBe(403);
  });
});

describe("data source permissions in the oss edition", () => {
  const t = useServer();
  it("the endpoints do not exist; viewers query every data source but cannot list them", async () => {
    const created = await t.api.post("/api/datasources", { auth: ADMIN, body: ds("oss-ds") });
    expect((await t.api.get(`/api/access-control/datasources/${created.body.datasource.uid}`, { auth: ADMIN })).status).toBe(404);
    const viewer = await t.api.user("oss-viewer", "Viewer");
    expect((await t.api.get("/api/datasources", { auth: viewer.auth })).status).toBe(403);
  });
});

describe("a data dir from the oss edition, started as enterprise", () => {
  it("its data sources get the default entries once, so viewers keep access", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-dsperm-"));
    try {
      const oss = await startTestServer({ "storage.in_memory": false, "storage.data_dir": dir });
      const created = await client(oss.urls.dashboard).post("/api/datasources", { auth: ADMIN, body: ds("from-oss") });
      await client(oss.urls.dashboard).user("upgraded-viewer", "Viewer");
      await oss.stop();
      const ent = await startTestServer({ "storage.in_memory": false, "storage.data_dir": dir, "server.edition": "enterprise" });
      try {
        const api = client(ent.urls.dashboard);
        const entries = (await api.get(`/api/access-control/datasources/${created.body.datasource.uid}`, { auth: ADMIN })).body;
        expect(entries.filter((e: { isManaged: boolean }) => e.isManaged).map((e: { builtInRole?: string }) => e.builtInRole)).toEqual(["Viewer", "Editor"]);
        const viewerAuth = `Basic ${btoa("upgraded-viewer:pw-upgraded-viewer-secret")}`;
        expect((await api.get("/api/datasources", { auth: viewerAuth })).body.map((d: { name: string }) => d.name)).toEqual(["from-oss"]);
      } finally {
        await ent.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
