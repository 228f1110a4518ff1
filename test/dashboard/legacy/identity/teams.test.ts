import { describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { useServer } from "../../../helpers/server.ts";

describe("teams", () => {
  const t = useServer();

  it("POST /api/teams -> 200 {teamId, uid}; the same name -> 409", async () => {
    const r = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "Ops", email: "ops@example.test" } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ message: "Team created", teamId: expect.any(Number), uid: expect.stringMatching(/^\w{14}$/) });
    const again = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "ops" } });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe("Team name taken");
  });

  it("GET /api/teams/:id and /api/teams/search; unknown -> 404", async () => {
    const created = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "Search Me" } });
    const one = await t.api.get(`/api/teams/${created.body.teamId}`, { auth: ADMIN });
    expect(one.body).toMatchObject({ id: created.body.teamId, uid: created.body.uid, orgId: 1, name: "Search Me", memberCount: 0 });
    const found = await t.api.get("/api/teams/search?query=search", { auth: ADMIN });
    expect(found.body).toMatchObject({ totalCount: 1, page: 1, perPage: 1000 });
    expect(found.body.teams[0].name).toBe("Search Me");
    expect((await t.api.get("/api/teams/search?name=search%20me", { auth: ADMIN })).body.totalCount).toBe(1);
    expect((await t.api.get("/api/teams/999999", { auth: ADMIN })).status).toBe(404);
    expect((await t.api.get("/api/teams/abc", { auth: ADMIN })).status).toBe(400);
  });

  it("members: add, list, twice -> 400, a user of another org -> 404, remove", async () => {
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "Members Team" } });
    const u = await t.api.user("teammate", "Viewer");
    const path = `/api/teams/${team.body.teamId}/members`;
    expect((await t.api.post(path, { auth: ADMIN, body: { userId: u.id } })).body).toEqual({ message: "Member added to Team" });
    expect((await t.api.post(path, { auth: ADMIN, body: { userId: u.id } })).status).toBe(400);
    const members = await t.api.get(path, { auth: ADMIN });
    expect(members.body).toEqual([expect.objectContaining({ userId: u.id, login: "teammate", teamId: team.body.teamId, orgId: 1 })]);
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Team Org" } });
    const stranger = await t.api.user("stranger", "Viewer", org.body.orgId);
    expect((await t.api.post(path, { auth: ADMIN, body: { userId: stranger.id } })).status).toBe(404);
    expect((await t.api.delete(`${path}/${u.id}`, { auth: ADMIN })).body).toEqual({ message: "Team member removed" });
    expect((await t.api.get(path, { auth: ADMIN })).body).toEqual([]);
  });

  it("a Viewer cannot create teams; an Editor can read them", async () => {
    const viewer = await t.api.user("team-viewer", "Viewer");
    const editor = await t.api.user("team-editor", "Editor");
    expect((await t.api.post("/api/teams", { auth: viewer.auth, body: { name: "No" } })).status).toBe(403);
    expect((await t.api.get("/api/teams/search", { auth: viewer.auth })).status).toBe(403);
    expect((await t.api.get("/api/teams/search", { auth: editor.auth })).status).toBe(200);
  });

  it("DELETE /api/teams/:id -> Team deleted; again -> 404", async () => {
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "Doomed" } });
    expect((await t.api.delete(`/api/teams/${team.body.teamId}`, { auth: ADMIN })).body).toEqual({ message: "Team deleted" });
    expect((await t.api.delete(`/api/teams/${team.body.teamId}`, { auth: ADMIN })).status).toBe(404);
  });

  it("teams of another org are not reachable", async () => {
    const team = await t.api.post("/api/teams", { auth: ADMIN, body: { name: "Org One Team" } });
    const org = await t.api.post("/api/orgs", { auth: ADMIN, body: { name: "Other Team Org" } });
    const r = await t.api.get(`/api/teams/${team.body.teamId}`, { auth: ADMIN, headers: { "X-Svc-Org-Id": String(org.body.orgId) } });
    expect(r.status).toBe(404);
  });
});
