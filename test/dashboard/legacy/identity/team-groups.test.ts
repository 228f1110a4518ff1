// /api/teams/:teamId/groups (enterprise team sync): external groups of a team
// (spec "Team external group", "Team external-group sync"; reference §9.2,
// conformance checks 191-192).
import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("team external groups", () => {
  const t = useServer({ "server.edition": "enterprise" });
  const team = async (name: string) => {
    const r = await t.api.post("/api/teams", { auth: ADMIN, body: { name } });
    expect(r.status).toBe(200);
    return r.body.teamId as number;
  };

  it("POST /api/teams/:id/groups {groupId: cn=ops} -> 200 Group added to Team; again -> 400", async () => {
    const id = await team("Sync Ops");
    const r = await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body: { groupId: "cn=ops" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Group added to Team" });
    const again = await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body: { groupId: "cn=ops" } });
    expect(again.status).toBe(400);
    expect(typeof again.body.message).toBe("string");
  });

  it("POST /api/teams/:id/groups (unknown team) -> 404; (missing or empty groupId, invalid JSON) -> 400; (bad id) -> 400", async () => {
    expect((await t.api.post("/api/teams/999999/groups", { auth: ADMIN, body: { groupId: "cn=x" } })).status).toBe(404);
    const id = await team("Sync Bad Bodies");
    for (const body of [{}, { groupId: "" }, { groupId: 5 }, "{nope"]) {
      const r = await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body });
      expect({ body, status: r.status }).toEqual({ body, status: 400 });
    }
    expect((await t.api.post("/api/teams/abc/groups", { auth: ADMIN, body: { groupId: "cn=x" } })).status).toBe(400);
  });

  it("GET /api/teams/:id/groups -> [{orgId, teamId, groupId}]", async () => {
    const id = await team("Sync List");
    expect((await t.api.get(`/api/teams/${id}/groups`, { auth: ADMIN })).body).toEqual([]);
    await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body: { groupId: "cn=ops" } });
    await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body: { groupId: "cn=dev,ou=groups" } });
    const r = await t.api.get(`/api/teams/${id}/groups`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual([
      { orgId: 1, teamId: id, groupId: "cn=dev,ou=groups" },
      { orgId: 1, teamId: id, groupId: "cn=ops" },
    ]);
    expect((await t.api.get("/api/teams/abc/groups", { auth: ADMIN })).status).toBe(400);
  });

  it("GET /api/teams/:id/groups/search (query, name, paging) -> 200 [{totalCount, teamGroups, page, perPage}]", async () => {
    const id = await team("Sync Search");
    for (const g of ["cn=ops", "cn=ops-oncall", "cn=dev", "cn=Operators"]) {
      expect((await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body: { groupId: g } })).status).toBe(200);
    }
    const base = `/api/teams/${id}/groups/search`;
    const q = await t.api.get(`${base}?query=op`, { auth: ADMIN });
    expect(q.status).toBe(200);
    expect(Array.isArray(q.body)).toBe(true);
    expect(q.body).toHaveLength(1);
    expect(q.body[0]).toEqual({
      totalCount: 3,
      teamGroups: [
        { orgId: 1, teamId: id, groupId: "cn=Operators" },
        { orgId: 1, teamId: id, groupId: "cn=ops" },
        { orgId: 1, teamId: id, groupId: "cn=ops-oncall" },
      ],
      page: 1,
      perPage: 1000,
    });
    const exact = await t.api.get(`${base}?name=${encodeURIComponent("cn=ops")}`, { auth: ADMIN });
    expect(exact.status).toBe(200);
    expect(exact.body[0].totalCount).toBe(1);
    expect(exact.body[0].teamGroups).toEqual([{ orgId: 1, teamId: id, groupId: "cn=ops" }]);
    const none = await t.api.get(`${base}?name=cn%3Dnobody`, { auth: ADMIN });
    expect(none.body[0]).toMatchObject({ totalCount: 0, teamGroups: [] });
    // every group: an empty query matches all
    const all = await t.api.get(`${base}?query=`, { auth: ADMIN });
    expect(all.body[0].totalCount).toBe(4);
    const page2 = await t.api.get(`${base}?query=op&page=2&perpage=2`, { auth: ADMIN });
    expect(page2.status).toBe(200);
    expect(page2.body[0]).toEqual({ totalCount: 3, teamGroups: [{ orgId: 1, teamId: id, groupId: "cn=ops-oncall" }], page: 2, perPage: 2 });
    const page1 = await t.api.get(`${base}?query=op&page=1&perpage=2`, { auth: ADMIN });
    expect(page1.body[0].teamGroups.map((g: { groupId: string }) => g.groupId)).toEqual(["cn=Operators", "cn=ops"]);
  });

  it("GET /api/teams/:id/groups/search (neither name nor query) -> 400; (bad team id) -> 400", async () => {
    const id = await team("Sync Search Bad");
    const r = await t.api.get(`/api/teams/${id}/groups/search`, { auth: ADMIN });
    expect(r.status).toBe(400);
    expect(typeof r.body.message).toBe("string");
    expect((await t.api.get(`/api/teams/${id}/groups/search?page=1`, { auth: ADMIN })).status).toBe(400);
    expect((await t.api.get("/api/teams/abc/groups/search?query=x", { auth: ADMIN })).status).toBe(400);
  });

  it("DELETE /api/teams/:id/groups?groupId=cn%3Dops -> 200 Team Group removed; again -> 404", async () => {
    const id = await team("Sync Delete");
    await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body: { groupId: "cn=ops" } });
    await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body: { groupId: "cn=keep" } });
    const r = await t.api.delete(`/api/teams/${id}/groups?groupId=cn%3Dops`, { auth: ADMIN });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Team Group removed" });
    expect((await t.api.get(`/api/teams/${id}/groups`, { auth: ADMIN })).body).toEqual([{ orgId: 1, teamId: id, groupId: "cn=keep" }]);
    const again = await t.api.delete(`/api/teams/${id}/groups?groupId=cn%3Dops`, { auth: ADMIN });
    expect(again.status).toBe(404);
    expect(typeof again.body.message).toBe("string");
  });

  it("DELETE /api/teams/:id/groups (no groupId) -> 400; (unknown team) -> 404; (bad id) -> 400", async () => {
    const id = await team("Sync Delete Bad");
    expect((await t.api.delete(`/api/teams/${id}/groups`, { auth: ADMIN })).status).toBe(400);
    expect((await t.api.delete(`/api/teams/${id}/groups?groupId=`, { auth: ADMIN })).status).toBe(400);
    expect((await t.api.delete("/api/teams/999999/groups?groupId=cn%3Dops", { auth: ADMIN })).status).toBe(404);
    expect((await t.api.delete("/api/teams/abc/groups?groupId=cn%3Dops", { auth: ADMIN })).status).toBe(400);
  });

  it("a group added to one team is not on another; the same group may be on two teams", async () => {
    const a = await team("Sync A");
    const b = await team("Sync B");
    await t.api.post(`/api/teams/${a}/groups`, { auth: ADMIN, body: { groupId: "cn=shared" } });
    expect((await t.api.get(`/api/teams/${b}/groups`, { auth: ADMIN })).body).toEqual([]);
    expect((await t.api.delete(`/api/teams/${b}/groups?groupId=cn%3Dshared`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.post(`/api/teams/${b}/groups`, { auth: ADMIN, body: { groupId: "cn=shared" } })).status).toBe(200);
  });

  it("a team of another org is not reachable through its groups", async () => {
    const id = await team("Sync Org One");
    await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body: { groupId: "cn=ops" } });
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Sync Other Org" } });
    const headers = { "X-Svc-Org-Id": String(org.body.orgId) };
    expect((await t.api.get(`/api/teams/${id}/groups`, { auth: ADMIN, headers })).body).toEqual([]);
    expect((await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, headers, body: { groupId: "cn=x" } })).status).toBe(404);
    expect((await t.api.delete(`/api/teams/${id}/groups?groupId=cn%3Dops`, { auth: ADMIN, headers })).status).toBe(404);
    expect((await t.api.get(`/api/teams/${id}/groups`, { auth: ADMIN })).body).toHaveLength(1);
  });

  it("/api/teams/:id/groups (viewer) -> 403", async () => {
    const id = await team("Sync Viewer");
    await t.api.post(`/api/teams/${id}/groups`, { auth: ADMIN, body: { groupId: "cn=ops" } });
    const viewer = await t.api.user("sync-viewer", "Viewer");
    expect((await t.api.get(`/api/teams/${id}/groups`, { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.get(`/api/teams/${id}/groups/search?query=op`, { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.post(`/api/teams/${id}/groups`, { auth: viewer.auth, body: { groupId: "cn=v" } })).status).toBe(403);
    expect((await t.api.delete(`/api/teams/${id}/groups?groupId=cn%3Dops`, { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.get(`/api/teams/${id}/groups`)).status).toBe(401);
    expect((await t.api.get(`/api/teams/${id}/groups`, { auth: ADMIN })).body).toHaveLength(1);
  });
});

describe("team external groups (oss edition)", () => {
  const t = useServer();

  it("GET /api/teams/:id/groups (oss) -> 404", async () => {
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "OSS Team" } });
    expect((await t.api.get(`/api/teams/${team.body.teamId}/groups`, { auth: ADMIN })).status).toBe(404);
    expect((await t.api.post(`/api/teams/${team.body.teamId}/groups`, { auth: ADMIN, body: { groupId: "cn=ops" } })).status).toBe(404);
  });
});
