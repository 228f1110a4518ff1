// /api/teams: create, search, get, update, delete, and members.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { positiveInt } from "../../../../lib/http/query.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { dbId } from "../schemas.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import { parseId } from "../../core/identity/orgs.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import { addTeamMember, createTeam, deleteTeam, getTeam, listTeamMembers, removeTeamMember, searchTeams, updateTeam } from "../../core/identity/teams.ts";

const NewTeam = type({ name: "string", "email?": "string" });
const NewMember = type({ userId: dbId });

const teamId = (c: Context) => parseId(c.req.param("id"), "teamId is invalid");
const scope = (c: Context) => `teams:id:${c.req.param("id")}`;

export function registerTeams(r: Router, deps: IdentityDeps): void {
  r.post("/api/teams", { action: "teams:create" }, async (c) => {
    const body = await parseBody(c, NewTeam);
    return c.json(await createTeam(deps, identityOf(c).orgId, body));
  }, { body: NewTeam, responses: { 409: "Team name taken" } });

  r.get("/api/teams/search", { action: "teams:read" }, async (c) => {
    const id = identityOf(c);
    const visible = (team: number) => hasPermission(id.permissions, "teams:read", [`teams:id:${team}`]);
    return c.json(
      await searchTeams(deps, id.orgId, {
        query: c.req.query("query") ?? "",
        name: c.req.query("name"),
        page: positiveInt(c.req.query("page"), 1),
        perPage: positiveInt(c.req.query("perpage"), 1000),
      }, visible),
    );
  });

  r.get("/api/teams/:id", { action: "teams:read", scope }, async (c) => c.json(await getTeam(deps, identityOf(c).orgId, teamId(c))));

  r.put("/api/teams/:id", { action: "teams:write", scope }, async (c) => {
    const body = await parseBody(c, NewTeam);
    await updateTeam(deps, identityOf(c).orgId, teamId(c), body);
    return c.json({ message: "Team updated" });
  }, { body: NewTeam, responses: { 409: "Team name taken" } });

  r.delete("/api/teams/:id", { action: "teams:delete", scope }, async (c) => {
    await deleteTeam(deps, identityOf(c).orgId, teamId(c));
    return c.json({ message: "Team deleted" });
  });

  r.get("/api/teams/:id/members", { action: "teams.permissions:read", scope }, async (c) =>
    c.json(await listTeamMembers(deps, identityOf(c).orgId, teamId(c))),
  );

  r.post("/api/teams/:id/members", { action: "teams.permissions:write", scope }, async (c) => {
    const id = teamId(c);
    const body = await parseBody(c, NewMember);
    await addTeamMember(deps, identityOf(c).orgId, id, body.userId);
    return c.json({ message: "Member added to Team" });
  }, { body: NewMember });

  r.delete("/api/teams/:id/members/:userId", { action: "teams.permissions:write", scope }, async (c) => {
    const id = teamId(c);
    const userId = parseId(c.req.param("userId"), "userId is invalid");
    await removeTeamMember(deps, identityOf(c).orgId, id, userId);
    return c.json({ message: "Team member removed" });
  });
}
