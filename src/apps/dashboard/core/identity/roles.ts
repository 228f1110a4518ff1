// RBAC roles: the basic roles (defined in code, optionally overridden by a
// stored global role of the same name until a hard reset), and custom roles
// of an organization or global. Assignments to teams take effect at once
// (the access model is rebuilt after every change).
import type { Sql, SqlTx } from "../../../../db/sql.ts";
import { ApiError, badRequest, conflict, notFound } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import { BASIC_ROLES, basicRolePermissions, KNOWN_ACTIONS } from "./basic-roles.ts";
import { changed, type IdentityDeps } from "./identity-deps.ts";
import { hasPermission, type Permission, type PermissionSet } from "./permissions.ts";
import { requireTeam } from "./teams.ts";
import { isUniqueViolation } from "../../../../db/errors.ts";
import { NAME_LIMITS, requireMaxLength } from "./name-limits.ts";

export const RESERVED_PREFIXES = ["fixed:", "basic:", "managed:", "plugins:", "extsvc:"];
/** uids the built-in roles use or will use */
const RESERVED_UID_PREFIXES = ["fixed_", "basic_", "managed_", "plugins_", "extsvc_"];
export const roleNotFound = () => notFound("Role not found");

export interface RoleCaller {
  orgId: number;
  isServerAdmin: boolean;
  permissions: PermissionSet;
}

export interface RoleInput {
  uid?: string | undefined;
  name: string;
  displayName?: string | undefined;
  description?: string | undefined;
  group?: string | undefined;
  hidden?: boolean | undefined;
  global?: boolean | undefined;
  version?: number | undefined;
  permissions?: Array<{ action: string; scope?: string | undefined }> | undefined;
}

interface RoleRow {
  id: number;
  uid: string;
  org_id: number;
  name: string;
  display_name: string;
  description: string;
  group_name: string;
  hidden: boolean;
  version: number;
  created_at: string;
  updated_at: string;
}

const startedAt = new Date().toISOString();

function basicRoleJson(role: (typeof BASIC_ROLES)[number], permissions?: Permission[]) {
  return {
    version: 1,
    uid: role.uid,
    name: role.name,
    displayName: role.displayName,
    description: `${role.displayName} role`,
    group: "Basic",
    global: true,
    hidden: true,
    created: startedAt,
    updated: startedAt,
    ...(permissions ? { permissions: permissions.map((p) => ({ ...p, created: startedAt, updated: startedAt })) } : {}),
  };
}

function rowJson(row: RoleRow, permissions?: Array<{ action: string; scope: string; created_at: string; updated_at: string }>) {
  return {
    version: row.version,
    uid: row.uid,
    name: row.name,
    displayName: row.display_name,
    description: row.description,
    group: row.group_name,
    global: row.org_id === 0,
    hidden: row.hidden,
    created: new Date(row.created_at).toISOString(),
    updated: new Date(row.updated_at).toISOString(),
    ...(permissions
      ? { permissions: permissions.map((p) => ({ action: p.action, scope: p.scope, created: new Date(p.created_at).toISOString(), updated: new Date(p.updated_at).toISOString() })) }
      : {}),
  };
}

async function storedRole(pg: Sql | SqlTx, orgId: number, uid: string): Promise<RoleRow | undefined> {
  const r = await pg.query<RoleRow>("select * from roles where uid = $1 and (org_id = $2 or org_id = 0)", [uid, orgId]);
  return r.rows[0];
}

async function permissionsOf(pg: Sql | SqlTx, roleId: number) {
  const r = await pg.query<{ action: string; scope: string; created_at: string; updated_at: string }>(
    "select action, scope, created_at, updated_at from role_permissions where role_id = $1 order by action, scope",
    [roleId],
  );
  return r.rows;
}

export async function listRoles(deps: IdentityDeps, caller: RoleCaller, includeHidden: boolean) {
  const r = await deps.pg.query<RoleRow>("select * from roles where org_id = $1 or org_id = 0 order by name", [caller.orgId]);
  const stored = new Map(r.rows.map((row) => [row.uid, row]));
  const basic = includeHidden ? BASIC_ROLES.filter((b) => !stored.has(b.uid)).map((b) => basicRoleJson(b)) : [];
  return [...basic, ...r.rows.filter((row) => includeHidden || !row.hidden).map((row) => rowJson(row))];
}

export async function getRole(deps: IdentityDeps, caller: RoleCaller, uid: string) {
  const row = await storedRole(deps.pg, caller.orgId, uid);
  if (row) return rowJson(row, await permissionsOf(deps.pg, row.id));
  const basic = BASIC_ROLES.find((b) => b.uid === uid);
  if (basic) return basicRoleJson(basic, basicRolePermissions(basic, { dataSourcePermissions: deps.edition !== "oss" }));
  throw roleNotFound();
}

/** permission validation and delegation: unknown actions, and grants the caller does not hold */
function checkPermissions(caller: RoleCaller, permissions: Permission[], validate: boolean) {
  for (const p of permissions) {
    if (validate && !KNOWN_ACTIONS.has(p.action)) {
      throw new ApiError(400, "Permission contains an invalid action", {
        messageId: "accesscontrol.permission-invalid-action",
        extra: { validationError: `the provided action was not found in the list of valid actions: ${p.action}` },
      });
    }
  }
  for (const p of permissions) {
    // an empty scope is a want of its own: only an empty or "*" grant covers it
    if (!hasPermission(caller.permissions, p.action, [p.scope])) {
      throw new ApiError(403, `cannot delegate a permission the caller does not hold: ${p.action}${p.scope ? ` on ${p.scope}` : ""}`, {
        messageId: "accesscontrol.permission-not-delegatable",
      });
    }
  }
}

function normalise(input: RoleInput): Permission[] {
  return (input.permissions ?? []).map((p) => ({ action: p.action.trim(), scope: (p.scope ?? "").trim() }));
}

async function writePermissions(tx: SqlTx, roleId: number, permissions: Permission[]) {
  await tx.query("delete from role_permissions where role_id = $1", [roleId]);
  if (!permissions.length) return;
  await tx.query(
    "insert into role_permissions (role_id, action, scope) select $1, a, s from unnest($2::text[], $3::text[]) as t(a, s)",
    [roleId, permissions.map((p) => p.action), permissions.map((p) => p.scope)],
  );
}

export async function createRole(deps: IdentityDeps, caller: RoleCaller, input: RoleInput, validate: boolean) {
  const name = input.name.trim();
  if (!name) throw badRequest("bad request data: name must be non-empty");
  requireMaxLength("name", name, NAME_LIMITS.roleName);
  checkRoleLabels(input);
  const reserved = RESERVED_PREFIXES.find((p) => name.startsWith(p));
  if (reserved) {
    throw new ApiError(400, `the role name cannot start with the reserved prefix "${reserved}"`, { messageId: "accesscontrol.reserved-prefix" });
  }
  if (input.global && !caller.isServerAdmin) throw new ApiError(403, "only server admins can create global roles");
  const permissions = normalise(input);
  checkPermissions(caller, permissions, validate);
  const orgId = input.global ? 0 : caller.orgId;
  const uid = input.uid?.trim() || newUid();
  if (!/^[a-zA-Z0-9_-]{1,40}$/.test(uid)) throw badRequest("bad request data: uid must be 1 to 40 letters, digits, - or _");
  const reservedUid = RESERVED_UID_PREFIXES.find((p) => uid.startsWith(p));
  if (reservedUid) {
    throw new ApiError(400, `the role uid cannot start with the reserved prefix "${reservedUid}"`, { messageId: "accesscontrol.reserved-prefix" });
  }
  const row = await deps.pg
    .transaction(async (tx) => {
      const r = await tx.query<RoleRow>(
        `insert into roles (uid, org_id, name, display_name, description, group_name, hidden, version)
         values ($1, $2, $3, $4, $5, $6, $7, 1) returning *`,
        [uid, orgId, name, input.displayName ?? "", input.description ?? "", input.group ?? "", input.hidden ?? false],
      );
      await writePermissions(tx, r.rows[0]!.id, permissions);
      return r.rows[0]!;
    })
    .catch((err: unknown) => {
      if (isUniqueViolation(err, "roles_uid_key", "roles_org_name_key")) throw conflict("a role with this uid or name already exists");
      throw err;
    });
  changed(deps);
  return rowJson(row, await permissionsOf(deps.pg, row.id));
}

/** full replacement; on a basic role it stores an override (removed again by a hard reset) */
/** the texts a role shows, within their columns' sizes */
function checkRoleLabels(input: RoleInput): void {
  requireMaxLength("displayName", input.displayName, NAME_LIMITS.roleDisplayName);
  requireMaxLength("group", input.group, NAME_LIMITS.roleGroup);
}

export async function updateRole(deps: IdentityDeps, caller: RoleCaller, uid: string, input: RoleInput, validate: boolean) {
  checkRoleLabels(input);
  const permissions = normalise(input);
  checkPermissions(caller, permissions, validate);
  let row = await storedRole(deps.pg, caller.orgId, uid);
  const basic = BASIC_ROLES.find((b) => b.uid === uid);
  if (!row && !basic) throw roleNotFound();
  if (row?.org_id === 0 && !caller.isServerAdmin) throw new ApiError(403, "only server admins can change global roles");
  if (basic && !caller.isServerAdmin) throw new ApiError(403, "only server admins can change basic roles");
  const current = row?.version ?? 1;
  if (input.version !== undefined && input.version < current) {
    throw conflict(`the role has been changed since version ${input.version} (now version ${current})`);
  }
  const updated = await deps.pg.transaction(async (tx) => {
    if (!row) {
      const r = await tx.query<RoleRow>(
        `insert into roles (uid, org_id, name, display_name, description, group_name, hidden, version)
         values ($1, 0, $2, $3, $4, 'Basic', true, 2) returning *`,
        [basic!.uid, basic!.name, basic!.displayName, `${basic!.displayName} role`],
      );
      row = r.rows[0]!;
    } else {
      const r = await tx.query<RoleRow>(
        `update roles set display_name = coalesce($2, display_name), description = coalesce($3, description),
                group_name = coalesce($4, group_name), hidden = coalesce($5, hidden), version = version + 1, updated_at = now()
          where id = $1 returning *`,
        [row.id, input.displayName ?? null, input.description ?? null, input.group ?? null, input.hidden ?? null],
      );
      row = r.rows[0]!;
    }
    await writePermissions(tx, row.id, permissions);
    return row;
  });
  changed(deps);
  return rowJson(updated, await permissionsOf(deps.pg, updated.id));
}

export async function deleteRole(deps: IdentityDeps, caller: RoleCaller, uid: string, force: boolean): Promise<void> {
  const row = await storedRole(deps.pg, caller.orgId, uid);
  if (!row || BASIC_ROLES.some((b) => b.uid === uid)) throw roleNotFound();
  if (row.org_id === 0 && !caller.isServerAdmin) throw new ApiError(403, "only server admins can delete global roles");
  const assigned = await deps.pg.query(
    "select 1 from team_roles where role_id = $1 union all select 1 from user_roles where role_id = $1 limit 1",
    [row.id],
  );
  if (assigned.rows.length && !force) throw badRequest("the role is assigned: delete it with force=true to remove its assignments too");
  await deps.pg.query("delete from roles where id = $1", [row.id]);
  changed(deps);
}

async function roleIdsFor(deps: IdentityDeps, orgId: number, uids: string[]): Promise<Map<string, { id: number; hidden: boolean }>> {
  const r = await deps.pg.query<{ id: number; uid: string; hidden: boolean }>(
    "select id, uid, hidden from roles where uid = any($1::text[]) and (org_id = $2 or org_id = 0)",
    [uids, orgId],
  );
  const found = new Map(r.rows.map((row) => [row.uid, { id: row.id, hidden: row.hidden }]));
  for (const uid of uids) if (!found.has(uid)) throw roleNotFound();
  return found;
}

/** assigning or unassigning a role is delegating its permissions: the caller must hold them all */
async function checkDelegable(deps: IdentityDeps, caller: RoleCaller, roleIds: Iterable<number>): Promise<void> {
  const ids = [...roleIds];
  if (!ids.length) return;
  const r = await deps.pg.query<{ action: string; scope: string }>(
    "select action, scope from role_permissions where role_id = any($1::int[])",
    [ids],
  );
  checkPermissions(caller, r.rows, false);
}

export async function setTeamRoles(deps: IdentityDeps, caller: RoleCaller, teamId: number, roleUids: string[], includeHidden: boolean): Promise<void> {
  const orgId = caller.orgId;
  await requireTeam(deps, orgId, teamId);
  const roles = await roleIdsFor(deps, orgId, roleUids);
  const current = await deps.pg.query<{ role_id: number; hidden: boolean }>(
    "select tr.role_id, r.hidden from team_roles tr join roles r on r.id = tr.role_id where tr.team_id = $1",
    [teamId],
  );
  const wanted = new Set([...roles.values()].map((r) => r.id));
  const removed = current.rows.filter((c) => !wanted.has(c.role_id) && (includeHidden || !c.hidden)).map((c) => c.role_id);
  const added = [...wanted].filter((id) => !current.rows.some((c) => c.role_id === id));
  await checkDelegable(deps, caller, [...added, ...removed]);
  await deps.pg.transaction(async (tx) => {
    // without includeHidden, hidden roles already assigned stay (the real product)
    await tx.query(
      `delete from team_roles tr using roles r where tr.role_id = r.id and tr.team_id = $1 and ($2 or not r.hidden)`,
      [teamId, includeHidden],
    );
    for (const { id } of roles.values()) {
      await tx.query("insert into team_roles (org_id, team_id, role_id) values ($1, $2, $3) on conflict do nothing", [orgId, teamId, id]);
    }
  });
  changed(deps);
}

/** adds or removes one role of a team; either way the caller must hold its permissions */
async function changeTeamRole(deps: IdentityDeps, caller: RoleCaller, teamId: number, roleUid: string, add: boolean): Promise<void> {
  const orgId = caller.orgId;
  await requireTeam(deps, orgId, teamId);
  const roleId = (await roleIdsFor(deps, orgId, [roleUid])).get(roleUid)!.id;
  await checkDelegable(deps, caller, [roleId]);
  if (add) {
    await deps.pg.query("insert into team_roles (org_id, team_id, role_id) values ($1, $2, $3) on conflict do nothing", [orgId, teamId, roleId]);
  } else {
    await deps.pg.query("delete from team_roles where team_id = $1 and role_id = $2", [teamId, roleId]);
  }
  changed(deps);
}

export const addTeamRole = (deps: IdentityDeps, caller: RoleCaller, teamId: number, roleUid: string) =>
  changeTeamRole(deps, caller, teamId, roleUid, true);

export const removeTeamRole = (deps: IdentityDeps, caller: RoleCaller, teamId: number, roleUid: string) =>
  changeTeamRole(deps, caller, teamId, roleUid, false);

export async function listTeamRoles(deps: IdentityDeps, orgId: number, teamId: number) {
  await requireTeam(deps, orgId, teamId);
  const r = await deps.pg.query<RoleRow>(
    "select r.* from team_roles tr join roles r on r.id = tr.role_id where tr.team_id = $1 order by r.name",
    [teamId],
  );
  return r.rows.map((row) => rowJson(row));
}

/** restores the basic roles to their defaults by removing stored overrides */
export async function hardReset(deps: IdentityDeps): Promise<void> {
  await deps.pg.query("delete from roles where org_id = 0 and name = any($1::text[])", [BASIC_ROLES.map((b) => b.name)]);
  changed(deps);
}
