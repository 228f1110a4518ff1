// Managed data source permissions (enterprise; spec "Data source permission
// entry"): a user (or service account), a team or a basic role holds Query,
// Edit or Admin on one data source. The access model folds them into each
// caller's permissions (core/identity/access-model.ts), so lists, queries and edits
// obey them like any other grant. A new data source gets the real product's
// defaults: Query for the Viewer and Editor roles, Admin for its creator.
import type { SqlTx } from "../../../../db/sql.ts";
import { badRequest } from "../../../../lib/errors.ts";
import { DATASOURCE_LEVEL_ACTIONS, type DataSourcePermissionLevel } from "../identity/index.ts";
import type { DataSourceRecord, DataSourceRegistry } from "./datasource-registry.ts";
import type { DataSourceCaller } from "./datasources.ts";
import { changed, type IdentityDeps } from "../identity/index.ts";
import { avatarUrl } from "../identity/index.ts";

export type Principal = { userId: number } | { teamId: number } | { builtinRole: "Viewer" | "Editor" | "Admin" };

export const BUILTIN_ROLES = ["Viewer", "Editor", "Admin"] as const;

interface EntryRow {
  id: number;
  user_id: number | null;
  login: string | null;
  email: string | null;
  is_service_account: boolean | null;
  team_id: number | null;
  team_name: string | null;
  team_email: string | null;
  builtin_role: string | null;
  permission: DataSourcePermissionLevel;
}

function entryJson(r: EntryRow) {
  const common = { id: r.id, isManaged: true, isInherited: false, actions: [...DATASOURCE_LEVEL_ACTIONS[r.permission]], permission: r.permission };
  if (r.user_id !== null) {
    return {
      ...common,
      roleName: `managed:users:${r.user_id}:permissions`,
      isServiceAccount: Boolean(r.is_service_account),
      userId: r.user_id,
      userLogin: r.login ?? "",
      userAvatarUrl: avatarUrl(r.email ?? ""),
    };
  }
  if (r.team_id !== null) {
    return {
      ...common,
      roleName: `managed:teams:${r.team_id}:permissions`,
      isServiceAccount: false,
      teamId: r.team_id,
      team: r.team_name ?? "",
      teamAvatarUrl: avatarUrl(r.team_email || r.team_name || ""),
    };
  }
  return { ...common, roleName: `managed:builtins:${r.builtin_role!.toLowerCase()}:permissions`, isServiceAccount: false, builtInRole: r.builtin_role! };
}

/** the entries of a data source; the Admin basic role's access comes from the role itself and is shown unmanaged */
export async function listDataSourcePermissions(deps: IdentityDeps, ds: DataSourceRecord) {
  const r = await deps.pg.query<EntryRow>(
    `select p.id, p.user_id, u.login, u.email, u.is_service_account, p.team_id, t.name as team_name, t.email as team_email,
            p.builtin_role, p.permission
       from datasource_permissions p
       left join users u on u.id = p.user_id
       left join teams t on t.id = p.team_id
      where p.datasource_id = $1 order by p.id`,
    [ds.id],
  );
  const basicAdmin = {
    id: 0, roleName: "basic:admin", isManaged: false, isInherited: false, isServiceAccount: false, builtInRole: "Admin",
    actions: [...DATASOURCE_LEVEL_ACTIONS.Admin], permission: "Admin" as const,
  };
  return [...r.rows.map(entryJson), basicAdmin];
}

/** checks the principal belongs to the data source's organization; the message begins as the real product's */
async function checkPrincipal(deps: IdentityDeps, ds: DataSourceRecord, p: Principal): Promise<void> {
  if ("userId" in p) {
    const r = await deps.pg.query("select 1 from org_members where org_id = $1 and user_id = $2", [ds.orgId, p.userId]);
    if (!r.rows.length) throw badRequest(`failed to set user permission: user ${p.userId} is not a member of this organization`);
  } else if ("teamId" in p) {
    const r = await deps.pg.query("select 1 from teams where org_id = $1 and id = $2", [ds.orgId, p.teamId]);
    if (!r.rows.length) throw badRequest(`failed to set team permission: team ${p.teamId} is not in this organization`);
  }
}

const columnsOf = (p: Principal): [number | null, number | null, string | null] =>
  "userId" in p ? [p.userId, null, null] : "teamId" in p ? [null, p.teamId, null] : [null, null, p.builtinRole];

/** sets (or with "" removes) one entry; returns which of the two it was */
export async function setDataSourcePermission(
  deps: IdentityDeps, ds: DataSourceRecord, p: Principal, level: DataSourcePermissionLevel | "",
): Promise<"updated" | "removed"> {
  const [userId, teamId, role] = columnsOf(p);
  if (level === "") {
    await deps.pg.query(
      `delete from datasource_permissions where datasource_id = $1
          and coalesce(user_id, 0) = coalesce($2::int, 0) and coalesce(team_id, 0) = coalesce($3::int, 0)
          and coalesce(builtin_role, '') = coalesce($4::text, '')`,
      [ds.id, userId, teamId, role],
    );
    changed(deps);
    return "removed";
  }
  await checkPrincipal(deps, ds, p);
  await upsert(deps.pg, ds.id, userId, teamId, role, level);
  changed(deps);
  return "updated";
}

function upsert(db: IdentityDeps["pg"] | SqlTx, dsId: number, userId: number | null, teamId: number | null, role: string | null, level: DataSourcePermissionLevel) {
  return db.query(
    `insert into datasource_permissions (datasource_id, user_id, team_id, builtin_role, permission) values ($1, $2, $3, $4, $5)
     on conflict (datasource_id, coalesce(user_id, 0), coalesce(team_id, 0), coalesce(builtin_role, ''))
     do update set permission = excluded.permission, updated_at = now()`,
    [dsId, userId, teamId, role, level],
  );
}

/** the defaults of a new data source (run inside its creating transaction) */
export async function grantDefaultPermissions(tx: SqlTx, ds: DataSourceRecord, caller: Pick<DataSourceCaller, "userId">): Promise<void> {
  await upsert(tx, ds.id, null, null, "Viewer", "Query");
  await upsert(tx, ds.id, null, null, "Editor", "Query");
  if (caller.userId !== 0) await upsert(tx, ds.id, caller.userId, null, null, "Admin");
  await tx.query("update data_sources set permissions_initialized = true where id = $1", [ds.id]);
}

/**
 * Data sources created before managed permissions applied (an oss data dir
 * started as enterprise) get the defaults once, so nobody loses access.
 */
export async function initializeDataSourcePermissions(deps: IdentityDeps, registry: DataSourceRegistry): Promise<void> {
  const pending = registry.all().filter((d) => !d.permissionsInitialized);
  if (!pending.length) return;
  await deps.pg.transaction(async (tx) => {
    for (const d of pending) await grantDefaultPermissions(tx, d, { userId: 0 });
  });
  for (const d of pending) registry.put({ ...d, permissionsInitialized: true });
  changed(deps);
}
