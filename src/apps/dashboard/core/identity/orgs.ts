// Organizations and their members (the real product's admin API shapes).
import { ApiError, badRequest, conflict, notFound } from "../../../../lib/errors.ts";
import type { UserRecord } from "./access-model.ts";
import { roleRank, type OrgRole } from "./basic-roles.ts";
import { changed, type IdentityDeps } from "./identity-deps.ts";
import { LAST_SEEN_JOIN, lastSeenFields, likePattern, pageOf, personMatches, type PageQuery } from "./user-lists.ts";
import { authLabelsOf, avatarUrl } from "./users.ts";
import { isUniqueViolation } from "../../../../db/errors.ts";
import { NAME_LIMITS, requireMaxLength } from "./name-limits.ts";

export async function createOrg(deps: IdentityDeps, name: string, creator: UserRecord): Promise<number> {
  const trimmed = name.trim();
  if (!trimmed) throw badRequest("bad request data: name must be non-empty");
  requireMaxLength("name", trimmed, NAME_LIMITS.orgName);
  const orgId = await deps.pg
    .transaction(async (tx) => {
      const r = await tx.query<{ id: number }>("insert into orgs (name) values ($1) returning id", [trimmed]);
      const id = r.rows[0]!.id;
      // the creator administers the new organization, as in the real product
      await tx.query("insert into org_members (org_id, user_id, role) values ($1, $2, 'Admin')", [id, creator.id]);
      return id;
    })
    .catch((err: unknown) => {
      if (isUniqueViolation(err, "orgs_name_key")) throw conflict("Organization name taken");
      throw err;
    });
  changed(deps);
  return orgId;
}

export async function requireOrg(deps: IdentityDeps, orgId: number): Promise<{ id: number; name: string }> {
  const r = await deps.pg.query<{ id: number; name: string }>("select id, name from orgs where id = $1", [orgId]);
  if (!r.rows[0]) throw notFound("Organization not found");
  return r.rows[0];
}

/** GET /api/orgs: organizations by name; `query` is part of the name, `name` the whole name (any case) */
export async function searchOrgs(deps: IdentityDeps, q: PageQuery & { name?: string | undefined }) {
  const where = q.name !== undefined ? "where lower(name) = lower($1)" : "where lower(name) like $1";
  const { rows } = await pageOf<{ id: number; name: string }>(
    deps.pg, "id, name", `from orgs ${where}`, "lower(name), id", [q.name ?? likePattern(q.query)], q.page, q.perPage,
  );
  return rows.map((r) => ({ id: Number(r.id), name: r.name }));
}

/** GET /api/org: Outpost keeps no postal address, so its fields are empty, as in a new organization of the real product */
export async function orgDetails(deps: IdentityDeps, orgId: number) {
  // from the read model: no round trip per request (organizations change only through createOrg, which invalidates it)
  const org = (await deps.model.snapshot()).orgs.get(orgId);
  if (!org) throw notFound("Organization not found");
  return { id: org.id, name: org.name, address: { address1: "", address2: "", city: "", zipCode: "", state: "", country: "" } };
}

/** GET /api/orgs/name/:orgName: the organization of that name (names are unique without regard to case) */
export async function orgByName(deps: IdentityDeps, name: string) {
  const wanted = name.toLowerCase();
  for (const org of (await deps.model.snapshot()).orgs.values()) if (org.name.toLowerCase() === wanted) return orgDetails(deps, org.id);
  throw notFound("Organization not found");
}

/**
 * DELETE /api/orgs/:orgId: the organization and everything in it, in one
 * transaction: every table with an org_id column (found in the catalog, so a
 * table added later is never forgotten), the /apis objects of its namespace,
 * its service accounts. Not the caller's current organization (the real
 * product's rule).
 */
export async function deleteOrg(deps: IdentityDeps, orgId: number, callerOrgId: number, namespace: string): Promise<void> {
  if (orgId === callerOrgId) throw badRequest("Can not delete org for current user");
  await deps.pg.transaction(async (tx) => {
    const found = await tx.query("select 1 from orgs where id = $1 for update", [orgId]);
    if (!found.rows.length) throw notFound("Failed to delete organization. ID not found");
    await tx.query(
      `delete from users where is_service_account and id in (select user_id from org_members where org_id = $1)`,
      [orgId],
    );
    const tables = await tx.query<{ table_name: string }>(
      `select table_name from information_schema.columns
        where column_name = 'org_id' and table_schema = current_schema() and table_name <> 'orgs' order by table_name`,
    );
    // secrets sealed for its data sources and secure values (the secrets table is keyed by owner, not organization)
    await tx.query(
      `delete from secrets where owner in (select 'datasource:' || id from data_sources where org_id = $1) or starts_with(owner, $2)`,
      [orgId, `securevalue:${namespace}/`],
    );
    for (const { table_name } of tables.rows) await tx.query(`delete from "${table_name.replace(/"/g, '""')}" where org_id = $1`, [orgId]);
    await tx.query("delete from resource_history where namespace = $1", [namespace]);
    await tx.query("delete from resources where namespace = $1", [namespace]);
    await tx.query("delete from orgs where id = $1", [orgId]);
  });
  deps.resourcePermissions.forgetOrg(orgId);
  changed(deps);
}

/** PUT /api/orgs/:orgId and PUT /api/org: a new name (unique, as at creation) */
export async function renameOrg(deps: IdentityDeps, orgId: number, name: string): Promise<void> {
  const trimmed = name.trim();
  if (!trimmed) throw badRequest("bad request data: name must be non-empty");
  requireMaxLength("name", trimmed, NAME_LIMITS.orgName);
  const r = await deps.pg.query("update orgs set name = $2, updated_at = now() where id = $1", [orgId, trimmed]).catch((err: unknown) => {
    if (isUniqueViolation(err, "orgs_name_key")) throw conflict("Organization name taken");
    throw err;
  });
  if (!r.affectedRows) throw notFound("Organization not found");
  changed(deps);
}

/** GET /api/user/orgs: the organizations a user belongs to, by name */
export async function userOrgs(deps: IdentityDeps, userId: number) {
  const r = await deps.pg.query<{ id: number; name: string; role: OrgRole }>(
    "select o.id, o.name, m.role from org_members m join orgs o on o.id = m.org_id where m.user_id = $1 order by lower(o.name), o.id",
    [userId],
  );
  return r.rows.map((o) => ({ orgId: Number(o.id), name: o.name, role: o.role }));
}

/** who is changing memberships: nobody hands out a role above their own (server admins excepted) */
export interface MemberCaller {
  orgRole: OrgRole | null;
  isServerAdmin: boolean;
}

function checkRoleAllowed(caller: MemberCaller, role: OrgRole) {
  if (caller.isServerAdmin) return;
  if (!caller.orgRole || roleRank(role) > roleRank(caller.orgRole)) {
    throw new ApiError(403, "Cannot assign a role higher than user's role");
  }
}

export async function addOrgMember(deps: IdentityDeps, caller: MemberCaller, orgId: number, loginOrEmail: string, role: OrgRole): Promise<number> {
  await requireOrg(deps, orgId);
  checkRoleAllowed(caller, role);
  const snap = await deps.model.snapshot();
  const user = snap.byLogin.get(loginOrEmail.trim().toLowerCase());
  if (!user || user.isServiceAccount) throw notFound("User not found");
  const added = await deps.pg.query(
    "insert into org_members (org_id, user_id, role) values ($1, $2, $3) on conflict do nothing",
    [orgId, user.id, role],
  );
  if (!added.affectedRows) throw conflict("User is already member of this organization");
  if (user.currentOrgId === null) await deps.pg.query("update users set current_org_id = $1 where id = $2", [orgId, user.id]);
  changed(deps);
  return user.id;
}

/** the members of an organization (never service accounts), by login; `limit` 0 for all (the real product's `limit`) */
export async function listOrgMembers(deps: IdentityDeps, orgId: number, q: { query?: string; limit?: number } = {}) {
  const limit = q.limit ? q.limit : Infinity;
  return (await searchOrgMembers(deps, orgId, { query: q.query ?? "", page: 1, perPage: limit })).orgUsers;
}

/** GET /api/org/users/search: one page of the members whose login, email or name contains the query */
export async function searchOrgMembers(deps: IdentityDeps, orgId: number, q: PageQuery) {
  await requireOrg(deps, orgId);
  const { totalCount, rows } = await pageOf<Record<string, unknown>>(
    deps.pg,
    "u.id, u.uid, u.login, u.email, u.name, u.is_disabled, u.auth_module, u.created_at, m.role, seen.last_seen",
    `from org_members m join users u on u.id = m.user_id ${LAST_SEEN_JOIN} where m.org_id = $1 and ${personMatches(2)}`,
    "lower(u.login)",
    [orgId, likePattern(q.query)],
    q.page,
    q.perPage,
  );
  const now = deps.now();
  const orgUsers = rows.map((row) => ({
    orgId,
    userId: Number(row.id),
    uid: String(row.uid),
    email: String(row.email),
    name: String(row.name),
    avatarUrl: avatarUrl(String(row.email)),
    login: String(row.login),
    role: row.role as OrgRole,
    ...lastSeenFields(row.last_seen, row.created_at, now),
    authLabels: authLabelsOf(String(row.auth_module ?? "")),
    isExternallySynced: Boolean(row.auth_module),
    isProvisioned: false,
    isDisabled: Boolean(row.is_disabled),
  }));
  return { totalCount, orgUsers, page: q.page, perPage: q.perPage };
}

/** ids are Postgres integers: a number above their range names nothing (-1), so lookups answer 404, not 500 */
export function parseId(raw: string | undefined, message: string): number {
  if (raw === undefined || !/^\d+$/.test(raw)) throw new ApiError(400, message);
  const id = Number(raw);
  return id <= 2_147_483_647 ? id : -1;
}

/** the role of a user (never a service account: those are managed through their own API) in an org */
async function memberRole(deps: IdentityDeps, orgId: number, userId: number): Promise<OrgRole> {
  const r = await deps.pg.query<{ role: OrgRole }>(
    "select m.role from org_members m join users u on u.id = m.user_id where m.org_id = $1 and m.user_id = $2 and not u.is_service_account",
    [orgId, userId],
  );
  if (!r.rows[0]) throw notFound("User not found");
  return r.rows[0].role;
}

async function otherAdmins(deps: IdentityDeps, orgId: number, userId: number): Promise<number> {
  const r = await deps.pg.query<{ n: number }>(
    "select count(*)::int as n from org_members where org_id = $1 and role = 'Admin' and user_id <> $2",
    [orgId, userId],
  );
  return r.rows[0]!.n;
}

export async function updateOrgMember(deps: IdentityDeps, caller: MemberCaller, orgId: number, userId: number, role: OrgRole): Promise<void> {
  await requireOrg(deps, orgId);
  const current = await memberRole(deps, orgId, userId);
  checkRoleAllowed(caller, role);
  checkRoleAllowed(caller, current);
  if (current === "Admin" && role !== "Admin" && (await otherAdmins(deps, orgId, userId)) === 0) {
    throw badRequest("Cannot change role so that there is no organization admin left");
  }
  await deps.pg.query("update org_members set role = $1, updated_at = now() where org_id = $2 and user_id = $3", [role, orgId, userId]);
  changed(deps);
}

export async function removeOrgMember(deps: IdentityDeps, caller: MemberCaller, orgId: number, userId: number): Promise<void> {
  await requireOrg(deps, orgId);
  const current = await memberRole(deps, orgId, userId);
  checkRoleAllowed(caller, current);
  if (current === "Admin" && (await otherAdmins(deps, orgId, userId)) === 0) throw badRequest("Cannot remove last organization admin");
  await deps.pg.query("delete from org_members where org_id = $1 and user_id = $2", [orgId, userId]);
  await deps.pg.query(
    "update users set current_org_id = (select min(org_id) from org_members where user_id = $1) where id = $1 and current_org_id = $2",
    [userId, orgId],
  );
  // what they were given on folders and dashboards goes with the membership: added again, they start from their role
  await deps.resourcePermissions.forgetUser(orgId, userId);
  changed(deps);
}
