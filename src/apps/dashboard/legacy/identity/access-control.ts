// The RBAC API (spec "RBAC (cloud or enterprise)"): registered only in the
// enterprise and cloud editions, so the oss edition answers 404.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import { parseId } from "../../core/identity/orgs.ts";
import {
  addTeamRole, createRole, deleteRole, getRole, hardReset, listRoles, listTeamRoles, removeTeamRole, setTeamRoles,
  updateRole, type RoleCaller,
} from "../../core/identity/roles.ts";

const PermissionIn = type({ action: "string > 0", "scope?": "string" });
const RoleIn = type({
  "uid?": "string",
  name: "string",
  "displayName?": "string",
  "description?": "string",
  "group?": "string",
  "hidden?": "boolean",
  "global?": "boolean",
  "version?": "number.integer",
  "permissions?": PermissionIn.array(),
});
const TeamRolesIn = type({ roleUids: "string[]", "includeHidden?": "boolean" });
const TeamRoleIn = type({ roleUid: "string > 0" });
const HardResetIn = type({ "BasicRoles?": "boolean" });

function caller(c: Context): RoleCaller {
  const id = identityOf(c);
  return { orgId: id.orgId, isServerAdmin: id.user.isServerAdmin, permissions: id.permissions };
}

const teamId = (c: Context) => parseId(c.req.param("teamId"), "teamId is invalid");
const teamScope = (c: Context) => `teams:id:${c.req.param("teamId")}`;

export function registerAccessControl(r: Router, deps: IdentityDeps, options: { validatePermissions: boolean }): void {
  const validate = options.validatePermissions;

  r.get("/api/access-control/status", { action: "status:accesscontrol", scope: () => "services:accesscontrol" }, (c) =>
    c.json({ enabled: true }),
  );

  r.get("/api/access-control/roles", { action: "roles:read" }, async (c) =>
    c.json(await listRoles(deps, caller(c), c.req.query("includeHidden") === "true")),
  );

  r.get("/api/access-control/roles/:uid", { action: "roles:read", scope: (c) => `roles:uid:${c.req.param("uid")}` }, async (c) =>
    c.json(await getRole(deps, caller(c), c.req.param("uid")!)),
  );

  r.post("/api/access-control/roles", { action: "roles:write", scope: () => "permissions:type:delegate" }, async (c) => {
    const body = await parseBody(c, RoleIn);
    return c.json(await createRole(deps, caller(c), body, validate));
  }, { body: RoleIn, responses: { 409: "a role with this uid or name already exists" } });

  r.put("/api/access-control/roles/:uid", { action: "roles:write", scope: () => "permissions:type:delegate" }, async (c) => {
    const body = await parseBody(c, RoleIn);
    return c.json(await updateRole(deps, caller(c), c.req.param("uid")!, body, validate));
  }, { body: RoleIn, responses: { 409: "the role has been changed since the version sent (a version older than the current one)" } });

  r.delete("/api/access-control/roles/:uid", { action: "roles:delete", scope: () => "permissions:type:delegate" }, async (c) => {
    await deleteRole(deps, caller(c), c.req.param("uid")!, c.req.query("force") === "true");
    return c.json({ message: "Role deleted" });
  });

  r.post("/api/access-control/roles/hard-reset", { action: "roles:write", scope: () => "permissions:type:escalate" }, async (c) => {
    const body = await parseBody(c, HardResetIn);
    if (body.BasicRoles) await hardReset(deps);
    return c.json({ message: "Reset performed" });
  }, { body: HardResetIn });

  r.get("/api/access-control/teams/:teamId/roles", { action: "teams.roles:read", scope: teamScope }, async (c) =>
    c.json(await listTeamRoles(deps, identityOf(c).orgId, teamId(c))),
  );

  r.put("/api/access-control/teams/:teamId/roles", { action: "teams.roles:add", scope: teamScope }, async (c) => {
    const id = teamId(c);
    const body = await parseBody(c, TeamRolesIn);
    await setTeamRoles(deps, caller(c), id, body.roleUids, body.includeHidden ?? false);
    return c.json({ message: "Team roles have been updated." });
  }, { body: TeamRolesIn });

  r.post("/api/access-control/teams/:teamId/roles", { action: "teams.roles:add", scope: teamScope }, async (c) => {
    const id = teamId(c);
    const body = await parseBody(c, TeamRoleIn);
    await addTeamRole(deps, caller(c), id, body.roleUid);
    return c.json({ message: "Role added to the team." });
  }, { body: TeamRoleIn });

  r.delete("/api/access-control/teams/:teamId/roles/:roleUid", { action: "teams.roles:remove", scope: teamScope }, async (c) => {
    await removeTeamRole(deps, caller(c), teamId(c), c.req.param("roleUid")!);
    return c.json({ message: "Role removed from team." });
  });
}
