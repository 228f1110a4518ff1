// Server-admin user and organization management: POST /api/admin/users,
// GET and POST /api/orgs, GET and PUT /api/orgs/:orgId, GET
// /api/orgs/name/:orgName, the members of /api/orgs/:orgId/users; and the
// current organization: GET and PUT /api/org, its members at /api/org/users.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { positiveInt } from "../../../../lib/http/query.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { dbId } from "../schemas.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import { ORG_ROLES } from "../../core/identity/basic-roles.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import {
  deleteOrg, addOrgMember, createOrg, listOrgMembers, orgByName, orgDetails, parseId, removeOrgMember, renameOrg, searchOrgMembers, searchOrgs, updateOrgMember,
  type MemberCaller,
} from "../../core/identity/orgs.ts";
import { createUser } from "../../core/identity/users.ts";
import { pageQuery } from "../schemas.ts";

const role = type.enumerated(...ORG_ROLES);
const NewUser = type({
  "name?": "string",
  "email?": "string",
  "login?": "string",
  password: "string",
  "OrgId?": dbId,
  "orgId?": dbId,
});
const NewOrg = type({ name: "string > 0" });
const NewMember = type({ loginOrEmail: "string > 0", role });
const MemberRole = type({ role });

function memberCaller(c: Context): MemberCaller {
  const id = identityOf(c);
  return { orgRole: id.orgRole, isServerAdmin: id.user.isServerAdmin };
}

/** the real product's member list parameters: part of a login, email or name, and at most `limit` members (0: all) */
const listQuery = (c: Context) => ({ query: c.req.query("query") ?? "", limit: positiveInt(c.req.query("limit"), 0) });

export interface OrgRouteOptions {
  /** the namespace of an organization's /apis objects */
  namespaceOf(orgId: number): string;
  /** after an organization is deleted: caches of what it held are dropped */
  onDeleted(orgId: number): void;
}

export function registerOrgs(r: Router, deps: IdentityDeps, options: OrgRouteOptions): void {
  r.post("/api/admin/users", { action: "users:create" }, async (c) => {
    const body = await parseBody(c, NewUser);
    const user = await createUser(deps, { ...body, orgId: body.OrgId ?? body.orgId });
    return c.json({ id: user.id, uid: user.uid, message: "User created" });
  }, { body: NewUser, responses: { 412: "User with this email or username already exists" } });

  r.post("/api/orgs", { action: "orgs:create" }, async (c) => {
    const body = await parseBody(c, NewOrg);
    const orgId = await createOrg(deps, body.name, identityOf(c).user);
    return c.json({ orgId, message: "Organization created" });
  }, { body: NewOrg, responses: { 409: "Organization name taken" } });

  // every organization: orgs:read on all of them (server admins); Viewers hold orgs:read for their own only
  r.get("/api/orgs", { action: "orgs:read", scope: () => "orgs:*" }, async (c) =>
    c.json(await searchOrgs(deps, { ...pageQuery(c), name: c.req.query("name") })),
  );

  r.get("/api/org", { action: "orgs:read" }, async (c) => c.json(await orgDetails(deps, identityOf(c).orgId)));

  r.get("/api/org/users", { action: "org.users:read" }, async (c) => c.json(await listOrgMembers(deps, identityOf(c).orgId, listQuery(c))));

  r.get("/api/org/users/search", { action: "org.users:read" }, async (c) =>
    c.json(await searchOrgMembers(deps, identityOf(c).orgId, pageQuery(c))),
  );

  r.put("/api/org", { action: "orgs:write" }, async (c) => {
    await renameOrg(deps, identityOf(c).orgId, (await parseBody(c, NewOrg)).name);
    return c.json({ message: "Organization updated" });
  }, { body: NewOrg, responses: { 409: "Organization name taken" } });

  // permissions are those the caller holds in the organization of the path
  const inPathOrg = { orgOf: (c: Context) => c.req.param("orgId") };
  const pathOrg = (c: Context) => parseId(c.req.param("orgId"), "orgId is invalid");

  // any organization by name: server admins, as GET /api/orgs
  r.get("/api/orgs/name/:orgName", { action: "orgs:read", scope: () => "orgs:*" }, async (c) => c.json(await orgByName(deps, c.req.param("orgName")!)));

  r.get("/api/orgs/:orgId", { action: "orgs:read", ...inPathOrg }, async (c) => c.json(await orgDetails(deps, pathOrg(c))));

  r.put("/api/orgs/:orgId", { action: "orgs:write", ...inPathOrg }, async (c) => {
    await renameOrg(deps, pathOrg(c), (await parseBody(c, NewOrg)).name);
    return c.json({ message: "Organization updated" });
  }, { body: NewOrg, responses: { 409: "Organization name taken" } });

  // any organization but the caller's current one: server admins (orgs:delete on orgs:*)
  r.delete("/api/orgs/:orgId", { action: "orgs:delete", scope: () => "orgs:*" }, async (c) => {
    const orgId = pathOrg(c);
    await deleteOrg(deps, orgId, identityOf(c).orgId, options.namespaceOf(orgId));
    options.onDeleted(orgId);
    return c.json({ message: "Organization deleted" });
  });

  r.get("/api/orgs/:orgId/users", { action: "org.users:read", ...inPathOrg }, async (c) => c.json(await listOrgMembers(deps, pathOrg(c), listQuery(c))));

  // an organization's members: of the path's organization, or of the caller's current one (/api/org/users)
  const memberRoutes = (base: string, access: { orgOf?: (c: Context) => string | undefined }, orgOf: (c: Context) => number) => {
    r.post(`${base}/users`, { action: "org.users:add", ...access }, async (c) => {
      const body = await parseBody(c, NewMember);
      const userId = await addOrgMember(deps, memberCaller(c), orgOf(c), body.loginOrEmail, body.role);
      return c.json({ message: "User added to organization", userId });
    }, { body: NewMember, responses: { 409: "User is already member of this organization" } });

    r.patch(`${base}/users/:userId`, { action: "org.users:write", ...access }, async (c) => {
      const userId = parseId(c.req.param("userId"), "userId is invalid");
      const body = await parseBody(c, MemberRole);
      await updateOrgMember(deps, memberCaller(c), orgOf(c), userId, body.role);
      return c.json({ message: "Organization user updated" });
    }, { body: MemberRole });

    r.delete(`${base}/users/:userId`, { action: "org.users:remove", ...access }, async (c) => {
      const userId = parseId(c.req.param("userId"), "userId is invalid");
      await removeOrgMember(deps, memberCaller(c), orgOf(c), userId);
      return c.json({ message: "User removed from organization" });
    });
  };
  memberRoutes("/api/orgs/:orgId", inPathOrg, pathOrg);
  memberRoutes("/api/org", {}, (c) => identityOf(c).orgId);
}
