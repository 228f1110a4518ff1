// The read model behind authentication and authorization: users, memberships,
// tokens, teams and roles, loaded from the database into memory and rebuilt
// after any write to them (DESIGN rule 7: no round trip per request). Every
// identity write goes through a service that calls invalidate().
import type { Sql } from "../../../../db/sql.ts";
import { reloadable, type ReadModelStats } from "../../../../lib/reloadable.ts";
import { BASIC_ROLES, basicRolePermissions, type OrgRole } from "./basic-roles.ts";
import { DATASOURCE_LEVEL_ACTIONS, type DataSourcePermissionLevel } from "./datasource-permission-levels.ts";
import { mergePermissionSets, toPermissionSet, withManagedGrants, type Permission, type PermissionSet } from "./permissions.ts";
import type { ResourcePermissions } from "./resource-permissions.ts";

export interface UserRecord {
  id: number;
  uid: string;
  login: string;
  email: string;
  name: string;
  passwordHash: string | null;
  isServerAdmin: boolean;
  isDisabled: boolean;
  isServiceAccount: boolean;
  /** "" for a local user; "ldap" for a user an external sign-in made or keeps (users.auth_module) */
  authModule: string;
  currentOrgId: number | null;
  theme: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface TokenRecord {
  id: number;
  orgId: number;
  serviceAccountId: number;
  name: string;
  expiresAt: Date | null;
  isRevoked: boolean;
}

export interface RoleRecord {
  id: number;
  uid: string;
  orgId: number;
  name: string;
  permissions: Permission[];
}

export interface Snapshot {
  /** organization id -> organization (GET /api/org answers from here) */
  orgs: ReadonlyMap<number, { id: number; name: string }>;
  users: ReadonlyMap<number, UserRecord>;
  /** lower-cased login and email -> user */
  byLogin: ReadonlyMap<string, UserRecord>;
  /** user id -> org id -> role */
  memberships: ReadonlyMap<number, ReadonlyMap<number, OrgRole>>;
  /** SHA-256 of a token -> token */
  tokens: ReadonlyMap<string, TokenRecord>;
  /** user id -> teams (id, org) */
  teamsOfUser: ReadonlyMap<number, ReadonlyArray<{ teamId: number; orgId: number }>>;
  roles: ReadonlyMap<number, RoleRecord>;
  teamRoles: ReadonlyMap<number, readonly number[]>;
  /** "<orgId>:<userId>" (org 0 = global) -> role ids */
  userRoles: ReadonlyMap<string, readonly number[]>;
  /** managed data source permissions (enterprise), as the permissions they grant */
  dataSourceGrants: DataSourceGrants;
  /** users whose second factor (TOTP) is enabled */
  secondFactor: ReadonlySet<number>;
}

export interface DataSourceGrants {
  /** "<orgId>:<userId>" -> permissions */
  users: ReadonlyMap<string, readonly Permission[]>;
  /** team id -> permissions */
  teams: ReadonlyMap<number, readonly Permission[]>;
  /** "<orgId>:<basic role>" -> permissions */
  roles: ReadonlyMap<string, readonly Permission[]>;
}

export interface AccessModel {
  snapshot(): Promise<Snapshot>;
  /** call after every write to identity tables */
  invalidate(): void;
  /** rebuilds so far (GET /metrics) */
  readonly stats: ReadModelStats;
  /** the effective permissions of a user in an organization they belong to */
  permissionsOf(snap: Snapshot, user: UserRecord, orgId: number, orgRole: OrgRole): PermissionSet;
}

export interface AccessModelOptions {
  /** custom roles and their assignments apply (enterprise, cloud) */
  customRoles: boolean;
  /** data sources are reached through managed permissions (enterprise, cloud) rather than by every Viewer */
  dataSourcePermissions: boolean;
  /** managed folder and dashboard permissions, consulted per scope */
  resourcePermissions?: ResourcePermissions;
}

export function createAccessModel(pg: Sql, options: AccessModelOptions): AccessModel {
  const snapshot = reloadable(() => loadSnapshot(pg));
  // per snapshot, so permissions computed from an old snapshot never outlive it
  const permissionCaches = new WeakMap<Snapshot, Map<string, PermissionSet>>();

  // basic roles come from code; a stored global role of the same name
  // overrides one (until a hard reset removes the override)
  const defaults = new Map(BASIC_ROLES.map((r) => [r.name, toPermissionSet(basicRolePermissions(r, options))]));
  const basicSet = (snap: Snapshot, name: string): PermissionSet => {
    for (const role of snap.roles.values()) {
      if (role.orgId === 0 && role.name === name) return toPermissionSet(role.permissions);
    }
    return defaults.get(name) ?? new Map();
  };

  return {
    snapshot: async () => {
      await options.resourcePermissions?.ready;
      return snapshot.get();
    },
    invalidate: () => snapshot.invalidate(),
    stats: snapshot.stats,
    permissionsOf(snap, user, orgId, orgRole) {
      const key = `${user.id}:${orgId}:${orgRole}`;
      let permissionCache = permissionCaches.get(snap);
      if (!permissionCache) permissionCaches.set(snap, (permissionCache = new Map()));
      const cached = permissionCache.get(key);
      if (cached) return cached;
      const sets: PermissionSet[] = [basicSet(snap, BASIC_ROLES.find((r) => r.orgRole === orgRole)!.name)];
      if (user.isServerAdmin) sets.push(basicSet(snap, "basic:svc_admin"));
      if (options.dataSourcePermissions) {
        const grants = snap.dataSourceGrants;
        sets.push(toPermissionSet(grants.users.get(`${orgId}:${user.id}`) ?? []));
        sets.push(toPermissionSet(grants.roles.get(`${orgId}:${orgRole}`) ?? []));
        for (const t of snap.teamsOfUser.get(user.id) ?? []) {
          if (t.orgId === orgId) sets.push(toPermissionSet(grants.teams.get(t.teamId) ?? []));
        }
      }
      if (options.customRoles) {
        const roleIds = [
          ...(snap.userRoles.get(`${orgId}:${user.id}`) ?? []),
          ...(snap.userRoles.get(`0:${user.id}`) ?? []),
          ...(snap.teamsOfUser.get(user.id) ?? []).filter((t) => t.orgId === orgId).flatMap((t) => snap.teamRoles.get(t.teamId) ?? []),
        ];
        for (const id of roleIds) {
          const role = snap.roles.get(id);
          if (role) sets.push(toPermissionSet(role.permissions));
        }
      }
      const merged = mergePermissionSets(sets);
      const managed = options.resourcePermissions;
      if (managed && orgId > 0) {
        const who = {
          orgId,
          userId: user.id,
          orgRole,
          teamIds: (snap.teamsOfUser.get(user.id) ?? []).filter((t) => t.orgId === orgId).map((t) => t.teamId),
        };
        withManagedGrants(merged, { covers: (action, scope) => managed.grants(who, action, scope), any: (action) => managed.grantsAny(who, action) });
      }
      permissionCache.set(key, merged);
      return merged;
    },
  };
}

async function loadSnapshot(pg: Sql): Promise<Snapshot> {
  const [orgs, users, members, tokens, teamMembers, roles, perms, teamRoles, userRoles, dsGrants] = await Promise.all([
    pg.query<{ id: number; name: string }>("select id, name from orgs"),
    pg.query<Record<string, unknown>>(
      `select id, uid, login, email, name, password_hash, is_server_admin, is_disabled, is_service_account, auth_module,
              current_org_id, theme, created_at, updated_at from users`,
    ),
    pg.query<{ org_id: number; user_id: number; role: OrgRole }>("select org_id, user_id, role from org_members"),
    pg.query<Record<string, unknown>>(
      "select id, org_id, service_account_id, name, hash, expires_at, is_revoked from api_tokens",
    ),
    pg.query<{ team_id: number; user_id: number; org_id: number }>(
      "select m.team_id, m.user_id, t.org_id from team_members m join teams t on t.id = m.team_id",
    ),
    pg.query<{ id: number; uid: string; org_id: number; name: string }>("select id, uid, org_id, name from roles"),
    pg.query<{ role_id: number; action: string; scope: string }>("select role_id, action, scope from role_permissions"),
    pg.query<{ team_id: number; role_id: number }>("select team_id, role_id from team_roles"),
    pg.query<{ org_id: number; user_id: number; role_id: number }>("select org_id, user_id, role_id from user_roles"),
    pg.query<GrantRow>(
      `select d.org_id, d.uid, p.user_id, p.team_id, p.builtin_role, p.permission
         from datasource_permissions p join data_sources d on d.id = p.datasource_id`,
    ),
  ]);

  const secondFactor = await pg.query<{ user_id: number }>("select user_id from user_second_factor where enabled");
  const usersById = new Map<number, UserRecord>();
  const byLogin = new Map<string, UserRecord>();
  for (const r of users.rows) {
    const u = toUser(r);
    usersById.set(u.id, u);
    byLogin.set(u.login.toLowerCase(), u);
    if (!byLogin.has(u.email.toLowerCase())) byLogin.set(u.email.toLowerCase(), u);
  }
  const memberships = new Map<number, Map<number, OrgRole>>();
  for (const m of members.rows) {
    const orgs = memberships.get(m.user_id) ?? new Map<number, OrgRole>();
    orgs.set(m.org_id, m.role);
    memberships.set(m.user_id, orgs);
  }
  const tokenMap = new Map<string, TokenRecord>();
  for (const t of tokens.rows) {
    tokenMap.set(String(t.hash), {
      id: Number(t.id),
      orgId: Number(t.org_id),
      serviceAccountId: Number(t.service_account_id),
      name: String(t.name),
      expiresAt: t.expires_at ? new Date(t.expires_at as string) : null,
      isRevoked: Boolean(t.is_revoked),
    });
  }
  const teamsOfUser = new Map<number, Array<{ teamId: number; orgId: number }>>();
  for (const m of teamMembers.rows) {
    const list = teamsOfUser.get(m.user_id) ?? [];
    list.push({ teamId: m.team_id, orgId: m.org_id });
    teamsOfUser.set(m.user_id, list);
  }
  const roleMap = new Map<number, RoleRecord>();
  for (const r of roles.rows) roleMap.set(r.id, { id: r.id, uid: r.uid, orgId: r.org_id, name: r.name, permissions: [] });
  for (const p of perms.rows) roleMap.get(p.role_id)?.permissions.push({ action: p.action, scope: p.scope });
  const teamRoleMap = new Map<number, number[]>();
  for (const t of teamRoles.rows) teamRoleMap.set(t.team_id, [...(teamRoleMap.get(t.team_id) ?? []), t.role_id]);
  const userRoleMap = new Map<string, number[]>();
  for (const u of userRoles.rows) {
    const key = `${u.org_id}:${u.user_id}`;
    userRoleMap.set(key, [...(userRoleMap.get(key) ?? []), u.role_id]);
  }
  return {
    orgs: new Map(orgs.rows.map((o) => [Number(o.id), { id: Number(o.id), name: o.name }])),
    users: usersById,
    byLogin,
    memberships,
    tokens: tokenMap,
    teamsOfUser,
    roles: roleMap,
    teamRoles: teamRoleMap,
    userRoles: userRoleMap,
    dataSourceGrants: dataSourceGrantsOf(dsGrants.rows),
    secondFactor: new Set(secondFactor.rows.map((r) => Number(r.user_id))),
  };
}

interface GrantRow {
  org_id: number;
  uid: string;
  user_id: number | null;
  team_id: number | null;
  builtin_role: string | null;
  permission: DataSourcePermissionLevel;
}

function dataSourceGrantsOf(rows: GrantRow[]): DataSourceGrants {
  const users = new Map<string, Permission[]>();
  const teams = new Map<number, Permission[]>();
  const roles = new Map<string, Permission[]>();
  const add = <K>(map: Map<K, Permission[]>, key: K, r: GrantRow) => {
    const list = map.get(key) ?? [];
    for (const action of DATASOURCE_LEVEL_ACTIONS[r.permission]) list.push({ action, scope: `datasources:uid:${r.uid}` });
    map.set(key, list);
  };
  for (const r of rows) {
    if (r.user_id !== null) add(users, `${r.org_id}:${r.user_id}`, r);
    else if (r.team_id !== null) add(teams, r.team_id, r);
    else if (r.builtin_role !== null) add(roles, `${r.org_id}:${r.builtin_role}`, r);
  }
  return { users, teams, roles };
}

export function toUser(r: Record<string, unknown>): UserRecord {
  return {
    id: Number(r.id),
    uid: String(r.uid),
    login: String(r.login),
    email: String(r.email),
    name: String(r.name),
    passwordHash: (r.password_hash as string | null) ?? null,
    isServerAdmin: Boolean(r.is_server_admin),
    isDisabled: Boolean(r.is_disabled),
    isServiceAccount: Boolean(r.is_service_account),
    authModule: String(r.auth_module ?? ""),
    currentOrgId: r.current_org_id === null || r.current_org_id === undefined ? null : Number(r.current_org_id),
    theme: String(r.theme ?? ""),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
