// Server-admin user management: the lists GET /api/users and GET
// /api/users/search (the real product's shapes; service accounts are never
// listed), one user (GET and PUT /api/users/:id, /lookup, /:id/orgs,
// /:id/teams), and PUT /api/admin/users/:id/password and /permissions, POST
// /api/admin/users/:id/disable and /enable, DELETE /api/admin/users/:id. Only holders of the users: permissions on the user (server
// admins) may use them.
import type { Context } from "hono";
import { type } from "../../../../lib/arktype.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import { parseId, userOrgs } from "../../core/identity/orgs.ts";
import { teamsOfUser } from "../../core/identity/teams.ts";
import { searchUsers } from "../../core/identity/user-lists.ts";
import { adminSetPassword, deleteUser, lookupUser, requireUser, setServerAdmin, setUserDisabled, updateUser, userProfile } from "../../core/identity/users.ts";
import { THEMES } from "../../core/content/preferences.ts";
import { pageQuery } from "../schemas.ts";

const NewPassword = type({ password: "string" });
const UserUpdate = type({ "login?": "string", "email?": "string", "name?": "string", "theme?": type.enumerated(...THEMES) });
/** the server-admin flag: the spec's neutral name, or the real product's as its clients send it */
const AdminFlag = type({ "isSvcAdmin?": "boolean", "isGrafanaAdmin?": "boolean" });

const userId = (c: Context) => parseId(c.req.param("id"), "id is invalid");
/** the permission on one user: its scope names the user's id */
const onUser = (action: string) => ({ action, scope: (c: Context) => `global.users:id:${c.req.param("id")}` });

export function registerUsers(r: Router, deps: IdentityDeps): void {
  const allUsers = { action: "users:read", scope: () => "global.users:*" };

  r.get("/api/users", allUsers, async (c) => c.json((await searchUsers(deps, pageQuery(c))).users));

  r.get("/api/users/search", allUsers, async (c) => c.json(await searchUsers(deps, pageQuery(c))));

  r.get("/api/users/lookup", allUsers, async (c) => {
    const loginOrEmail = c.req.query("loginOrEmail");
    if (!loginOrEmail) throw new ApiError(400, "loginOrEmail is required");
    return c.json(userProfile(await lookupUser(deps, loginOrEmail)));
  });

  r.get("/api/users/:id", onUser("users:read"), async (c) => c.json(userProfile(await requireUser(deps, userId(c)))));

  r.get("/api/users/:id/orgs", onUser("users:read"), async (c) => {
    const user = await requireUser(deps, userId(c));
    return c.json(await userOrgs(deps, user.id));
  });

  // the user's teams in the caller's organization, as the real product lists them
  r.get("/api/users/:id/teams", onUser("users:read"), async (c) => {
    const user = await requireUser(deps, userId(c));
    return c.json(await teamsOfUser(deps, identityOf(c).orgId, user.id));
  });

  r.put("/api/users/:id", onUser("users:write"), async (c) => {
    await updateUser(deps, userId(c), await parseBody(c, UserUpdate));
    return c.json({ message: "User updated" });
  }, { body: UserUpdate, responses: { 409: "Update would result in user login conflict: another user has this login or email" } });

  r.put("/api/admin/users/:id/permissions", onUser("users.permissions:write"), async (c) => {
    const body = await parseBody(c, AdminFlag);
    const flag = body.isSvcAdmin ?? body.isGrafanaAdmin;
    if (flag === undefined) throw new ApiError(400, "bad request data: isSvcAdmin must be boolean (was missing)");
    await setServerAdmin(deps, userId(c), flag);
    return c.json({ message: "User permissions updated" });
  }, { body: AdminFlag });

  r.delete("/api/admin/users/:id", onUser("users:delete"), async (c) => {
    const id = userId(c);
    if (id === identityOf(c).user.id) throw new ApiError(400, "You cannot delete your own account");
    await deleteUser(deps, id);
    return c.json({ message: "User deleted" });
  });

  r.put("/api/admin/users/:id/password", onUser("users.password:write"), async (c) => {
    const body = await parseBody(c, NewPassword);
    await adminSetPassword(deps, userId(c), body.password);
    return c.json({ message: "User password updated" });
  }, { body: NewPassword });

  r.post("/api/admin/users/:id/disable", onUser("users:disable"), async (c) => {
    const id = userId(c);
    // an unattended install's only admin must not lock itself out
    if (id === identityOf(c).user.id) throw new ApiError(400, "You cannot disable your own account");
    await setUserDisabled(deps, id, true);
    return c.json({ message: "User disabled" });
  });

  r.post("/api/admin/users/:id/enable", onUser("users:enable"), async (c) => {
    await setUserDisabled(deps, userId(c), false);
    return c.json({ message: "User enabled" });
  });
}
