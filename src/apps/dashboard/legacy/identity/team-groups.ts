// /api/teams/:teamId/groups (enterprise team sync): list, add, remove, search.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { badRequest } from "../../../../lib/errors.ts";
import { positiveInt } from "../../../../lib/http/query.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import { parseId } from "../../core/identity/orgs.ts";
import { addTeamGroup, listTeamGroups, removeTeamGroup, searchTeamGroups } from "../../core/identity/team-groups.ts";

/** group ids are indexed: as long as the real product's column allows */
const NewGroup = type({ groupId: "0 < string <= 190" });

const teamId = (c: Context) => parseId(c.req.param("teamId"), "teamId is invalid");
const scope = (c: Context) => `teams:id:${c.req.param("teamId")}`;

export function registerTeamGroups(r: Router, deps: IdentityDeps): void {
  const read = { action: "teams.permissions:read", scope };
  const write = { action: "teams.permissions:write", scope };
  const base = "/api/teams/:teamId/groups";

  r.get(`${base}/search`, read, async (c) => {
    const id = teamId(c);
    const name = c.req.query("name");
    const query = c.req.query("query");
    if (name === undefined && query === undefined) throw badRequest("query parameter name or query is required");
    const page = positiveInt(c.req.query("page"), 1);
    const perPage = positiveInt(c.req.query("perpage"), 1000);
    // the spec shows the result as an array holding one object
    return c.json([await searchTeamGroups(deps, identityOf(c).orgId, id, { name, query, page, perPage })]);
  });

  r.get(base, read, async (c) => c.json(await listTeamGroups(deps, identityOf(c).orgId, teamId(c))));

  r.post(base, write, async (c) => {
    const id = teamId(c);
    const body = await parseBody(c, NewGroup);
    await addTeamGroup(deps, identityOf(c).orgId, id, body.groupId);
    return c.json({ message: "Group added to Team" });
  }, { body: NewGroup });

  r.delete(base, write, async (c) => {
    const id = teamId(c);
    const groupId = c.req.query("groupId");
    if (!groupId) throw badRequest("query parameter groupId is required");
    if (groupId.length > 190) throw badRequest("query parameter groupId is too long: at most 190 characters");
    await removeTeamGroup(deps, identityOf(c).orgId, id, groupId);
    return c.json({ message: "Team Group removed" });
  });
}
