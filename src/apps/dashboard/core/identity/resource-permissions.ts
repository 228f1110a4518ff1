// Managed folder and dashboard permissions (the real product's model, OSS
// and enterprise alike): a user, a team or a basic role holds View (1), Edit
// (2) or Admin (4) on one folder or dashboard. A folder's entries reach
// everything inside it, subfolders included (the kinds' scopes list the
// folder chain). Viewers and Editors read and write dashboards only through
// these entries; a new folder or dashboard at the root gets the defaults
// (Editor: Edit, Viewer: View, and Admin for the user who made it), one
// inside a folder only its creator's Admin, so removing an entry really
// takes the access away. Org Admins keep their role's wildcard grants.
//
// Held in memory, indexed by organization and scope, and changed in place by
// each write: a check is a map lookup per scope, never a database round trip,
// and a new dashboard does not rebuild the access model.
import type { Sql, SqlTx } from "../../../../db/sql.ts";
import type { ReadModelStats } from "../../../../lib/reloadable.ts";
import type { OrgRole } from "./basic-roles.ts";

export type ManagedKind = "folders" | "dashboards";
export const PERMISSION_LEVELS = { View: 1, Edit: 2, Admin: 4 } as const;
export type PermissionLevel = 1 | 2 | 4;
export const LEVEL_NAMES: Record<PermissionLevel, string> = { 1: "View", 2: "Edit", 4: "Admin" };

export interface ManagedEntry {
  id: number;
  userId: number | null;
  teamId: number | null;
  role: "Viewer" | "Editor" | null;
  permission: PermissionLevel;
  created: string;
  updated: string;
}

export type EntryInput = Pick<ManagedEntry, "userId" | "teamId" | "role" | "permission">;

/** who asks: the principal an entry may name */
export interface Principal {
  orgId: number;
  userId: number;
  orgRole: OrgRole;
  teamIds: readonly number[];
}

const dashboardActions = {
  1: ["dashboards:read"],
  2: ["dashboards:read", "dashboards:write", "dashboards:delete"],
  4: ["dashboards:read", "dashboards:write", "dashboards:delete", "dashboards.permissions:read", "dashboards.permissions:write"],
} as const;
// a folder's levels reach what lives in it: dashboards, library panels, alert rules (the real product's folder levels)
const folderView = ["folders:read", "dashboards:read", "library.panels:read", "alert.rules:read"];
const folderEdit = [
  ...folderView, "folders:write", "folders:delete", "folders:create", "dashboards:create", "dashboards:write", "dashboards:delete",
  "library.panels:create", "library.panels:write", "library.panels:delete", "alert.rules:create", "alert.rules:write", "alert.rules:delete",
];
const folderActions = {
  1: folderView,
  2: folderEdit,
  4: [...folderEdit, "folders.permissions:read", "folders.permissions:write", "dashboards.permissions:read", "dashboards.permissions:write"],
} as const;

/** the actions a level grants on a folder or a dashboard */
export function actionsOf(kind: ManagedKind, level: PermissionLevel): readonly string[] {
  return (kind === "folders" ? folderActions : dashboardActions)[level];
}

const scopeOf = (kind: ManagedKind, uid: string) => `${kind}:uid:${uid}`;
/** "<org>|<kind>:uid:<uid>" -> kind and uid */
const scopeParts = (key: string): [ManagedKind, string] => {
  const scope = key.slice(key.indexOf("|") + 1);
  const kind = scope.startsWith("folders:") ? "folders" : "dashboards";
  return [kind, scope.slice(`${kind}:uid:`.length)];
};
const keyOf = (orgId: number, scope: string) => `${orgId}|${scope}`;

/** a basic-role entry reaches that role and the roles above it (an Editor holds what Viewers are given) */
function roleReaches(entry: "Viewer" | "Editor", role: OrgRole): boolean {
  return entry === "Viewer" ? role === "Viewer" || role === "Editor" || role === "Admin" : role === "Editor" || role === "Admin";
}

const principalKey = (orgId: number, e: Pick<ManagedEntry, "userId" | "teamId" | "role">) =>
  e.userId !== null ? `u${e.userId}` : e.teamId !== null ? `t${e.teamId}` : `r${orgId}:${e.role}`;

/** the principal keys whose entries reach a caller: their user, their teams, the roles at or below theirs */
function principalsOf(who: Principal): string[] {
  const out = [`u${who.userId}`, ...who.teamIds.map((t) => `t${t}`)];
  if (roleReaches("Viewer", who.orgRole)) out.push(`r${who.orgId}:Viewer`);
  if (roleReaches("Editor", who.orgRole)) out.push(`r${who.orgId}:Editor`);
  return out;
}

function matches(e: ManagedEntry, who: Principal): boolean {
  if (e.userId !== null) return e.userId === who.userId;
  if (e.teamId !== null) return who.teamIds.includes(e.teamId);
  return e.role !== null && roleReaches(e.role, who.orgRole);
}

interface Row {
  id: number;
  org_id: number;
  kind: ManagedKind;
  uid: string;
  user_id: number | null;
  team_id: number | null;
  builtin_role: "Viewer" | "Editor" | null;
  permission: PermissionLevel;
  created_at: string;
  updated_at: string;
}

const toEntry = (r: Row): ManagedEntry => ({
  id: Number(r.id),
  userId: r.user_id === null ? null : Number(r.user_id),
  teamId: r.team_id === null ? null : Number(r.team_id),
  role: r.builtin_role,
  permission: Number(r.permission) as PermissionLevel,
  created: new Date(r.created_at).toISOString(),
  updated: new Date(r.updated_at).toISOString(),
});

export interface ResourcePermissions {
  /** loaded once at start; checks wait for it */
  ready: Promise<void>;
  entries(orgId: number, kind: ManagedKind, uid: string): readonly ManagedEntry[];
  /** does an entry on `scope` grant `action` to the principal */
  grants(who: Principal, action: string, scope: string): boolean;
  /** does any entry in the organization grant `action` (route guards that take no scope) */
  grantsAny(who: Principal, action: string): boolean;
  /** replaces the entries of one folder or dashboard */
  replace(orgId: number, kind: ManagedKind, uid: string, entries: readonly EntryInput[]): Promise<void>;
  /** the defaults of a new folder or dashboard */
  addDefaults(orgId: number, kind: ManagedKind, uid: string, creatorUserId: number | undefined, atRoot: boolean): Promise<void>;
  /** folders or dashboards that are gone */
  forget(orgId: number, kind: ManagedKind, uids: readonly string[]): Promise<void>;
  /** a user who left the organization: their entries there go */
  forgetUser(orgId: number, userId: number): Promise<void>;
  /** an organization deleted (its rows are gone with it): what the index holds of it */
  forgetOrg(orgId: number): void;
  /** changes whenever any entry changes (caches of what a caller may read key on it) */
  revision(): number;
  /** another node changed the entries of one scope, or of any (undefined): read them again */
  reload(scope?: { orgId: number; kind: ManagedKind; uid: string }): Promise<void>;
  /** loaded once; folders and dashboards whose entries changed since (GET /metrics) */
  readonly stats: ReadModelStats;
}

export function createResourcePermissions(pg: Sql): ResourcePermissions {
  const byScope = new Map<string, ManagedEntry[]>();
  /** principal|action -> how many entries grant it to that principal (route guards without a scope) */
  const actionCounts = new Map<string, number>();
  const count = (orgId: number, kind: ManagedKind, entries: readonly ManagedEntry[], delta: 1 | -1) => {
    for (const e of entries) {
      const principal = principalKey(orgId, e);
      for (const a of actionsOf(kind, e.permission)) {
        const k = `${principal}|${a}`;
        actionCounts.set(k, (actionCounts.get(k) ?? 0) + delta);
      }
    }
  };
  let revision = 0;
  const stats = { loads: 0, updates: 0 };
  const put = (orgId: number, kind: ManagedKind, uid: string, entries: ManagedEntry[]) => {
    revision++;
    if (stats.loads) stats.updates++;
    const key = keyOf(orgId, scopeOf(kind, uid));
    count(orgId, kind, byScope.get(key) ?? [], -1);
    if (entries.length) byScope.set(key, entries);
    else byScope.delete(key);
    count(orgId, kind, entries, 1);
  };
  /** the entries of every scope from rows, put in place of what is held; scopes with no rows left are emptied */
  const putAll = (rows: readonly Row[]) => {
    const grouped = new Map<string, { orgId: number; kind: ManagedKind; uid: string; entries: ManagedEntry[] }>();
    for (const row of rows) {
      const key = keyOf(row.org_id, scopeOf(row.kind, row.uid));
      const g = grouped.get(key) ?? { orgId: row.org_id, kind: row.kind, uid: row.uid, entries: [] };
      g.entries.push(toEntry(row));
      grouped.set(key, g);
    }
    for (const key of [...byScope.keys()]) {
      if (grouped.has(key)) continue;
      const [kind, uid] = scopeParts(key);
      put(Number(key.slice(0, key.indexOf("|"))), kind, uid, []);
    }
    for (const g of grouped.values()) put(g.orgId, g.kind, g.uid, g.entries);
  };
  const ready = pg.query<Row>("select * from resource_permissions order by id").then((r) => {
    putAll(r.rows);
    stats.loads = 1;
  });

  const insert = async (tx: SqlTx | Sql, orgId: number, kind: ManagedKind, uid: string, list: readonly EntryInput[]) => {
    const out: ManagedEntry[] = [];
    for (const e of list) {
      const r = await tx.query<Row>(
        `insert into resource_permissions (org_id, kind, uid, user_id, team_id, builtin_role, permission)
         values ($1, $2, $3, $4, $5, $6, $7) returning *`,
        [orgId, kind, uid, e.userId, e.teamId, e.role, e.permission],
      );
      out.push(toEntry(r.rows[0]!));
    }
    return out;
  };

  return {
    ready,
    entries: (orgId, kind, uid) => byScope.get(keyOf(orgId, scopeOf(kind, uid))) ?? [],
    grants(who, action, scope) {
      const kind: ManagedKind | undefined = scope.startsWith("folders:uid:") ? "folders" : scope.startsWith("dashboards:uid:") ? "dashboards" : undefined;
      if (!kind) return false;
      const list = byScope.get(keyOf(who.orgId, scope));
      if (!list) return false;
      return list.some((e) => matches(e, who) && actionsOf(kind, e.permission).includes(action));
    },
    grantsAny: (who, action) => principalsOf(who).some((p) => (actionCounts.get(`${p}|${action}`) ?? 0) > 0),
    async replace(orgId, kind, uid, list) {
      const entries = await pg.transaction(async (tx) => {
        await tx.query("delete from resource_permissions where org_id = $1 and kind = $2 and uid = $3", [orgId, kind, uid]);
        return insert(tx, orgId, kind, uid, list);
      });
      put(orgId, kind, uid, entries);
    },
    async addDefaults(orgId, kind, uid, creatorUserId, atRoot) {
      const list: EntryInput[] = [];
      if (creatorUserId !== undefined) list.push({ userId: creatorUserId, teamId: null, role: null, permission: 4 });
      if (atRoot) {
        list.push({ userId: null, teamId: null, role: "Editor", permission: 2 });
        list.push({ userId: null, teamId: null, role: "Viewer", permission: 1 });
      }
      if (!list.length) return;
      const added = await insert(pg, orgId, kind, uid, list);
      put(orgId, kind, uid, [...(byScope.get(keyOf(orgId, scopeOf(kind, uid))) ?? []), ...added]);
    },
    revision: () => revision,
    stats,
    async reload(scope) {
      if (!scope) {
        putAll((await pg.query<Row>("select * from resource_permissions order by id")).rows);
        return;
      }
      const r = await pg.query<Row>("select * from resource_permissions where org_id = $1 and kind = $2 and uid = $3 order by id", [scope.orgId, scope.kind, scope.uid]);
      put(scope.orgId, scope.kind, scope.uid, r.rows.map(toEntry));
    },
    async forgetUser(orgId, userId) {
      await pg.query("delete from resource_permissions where org_id = $1 and user_id = $2", [orgId, userId]);
      for (const [key, entries] of [...byScope]) {
        if (!key.startsWith(`${orgId}|`) || !entries.some((e) => e.userId === userId)) continue;
        const [kind, uid] = scopeParts(key);
        put(orgId, kind, uid, entries.filter((e) => e.userId !== userId));
      }
    },
    forgetOrg(orgId) {
      for (const key of [...byScope.keys()]) {
        if (!key.startsWith(`${orgId}|`)) continue;
        const [kind, uid] = scopeParts(key);
        put(orgId, kind, uid, []);
      }
    },
    async forget(orgId, kind, uids) {
      if (!uids.length) return;
      await pg.query("delete from resource_permissions where org_id = $1 and kind = $2 and uid = any($3::text[])", [orgId, kind, uids]);
      for (const uid of uids) put(orgId, kind, uid, []);
    },
  };
}
