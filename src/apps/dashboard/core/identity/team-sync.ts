// Team sync (spec "Team external-group sync"): the groups an external sign-in
// reports for a user (LDAP member_of DNs; later OIDC group claims) against each
// team's external groups (team_groups, /api/teams/:id/groups). A matching team
// gains the user as a member marked with the module (team_members.auth_module);
// a membership that module added and that no longer matches goes. Memberships
// added by hand are never touched. Group ids compare without regard to case
// (DNs are case-insensitive in practice: the real product lower-cases both).
import { changed, type IdentityDeps } from "./identity-deps.ts";

export interface TeamSyncInput {
  userId: number;
  /** the groups the identity provider reports (LDAP: member_of DNs) */
  groups: readonly string[];
  /** the module that reports them ("ldap"; an OIDC provider later) */
  authModule: string;
  /** only teams of these organizations (default: every organization the user is a member of) */
  orgIds?: readonly number[];
}

export interface TeamSyncResult {
  added: number[];
  removed: number[];
}

/** the teams (id, org) whose external groups hold one of the groups, in organizations the user belongs to */
export async function teamsForGroups(deps: IdentityDeps, groups: readonly string[], orgIds: readonly number[]): Promise<Array<{ teamId: number; orgId: number; name: string; groupId: string }>> {
  if (!groups.length || !orgIds.length) return [];
  const r = await deps.pg.query<{ team_id: number; org_id: number; name: string; group_id: string }>(
    `select g.team_id, g.org_id, t.name, g.group_id from team_groups g join teams t on t.id = g.team_id
      where g.org_id = any($1::int[]) and lower(g.group_id) = any($2::text[]) order by g.org_id, lower(t.name)`,
    [[...orgIds], groups.map((g) => g.toLowerCase())],
  );
  return r.rows.map((x) => ({ teamId: x.team_id, orgId: x.org_id, name: x.name, groupId: x.group_id }));
}

export async function syncTeams(deps: IdentityDeps, input: TeamSyncInput): Promise<TeamSyncResult> {
  const orgIds = input.orgIds ?? [...((await deps.model.snapshot()).memberships.get(input.userId)?.keys() ?? [])];
  const wanted = new Set((await teamsForGroups(deps, input.groups, orgIds)).map((t) => t.teamId));
  const current = await deps.pg.query<{ team_id: number; auth_module: string }>(
    "select team_id, auth_module from team_members where user_id = $1",
    [input.userId],
  );
  const have = new Map(current.rows.map((m) => [m.team_id, m.auth_module]));
  const added = [...wanted].filter((id) => !have.has(id));
  const removed = [...have].filter(([id, module]) => module === input.authModule && !wanted.has(id)).map(([id]) => id);
  if (!added.length && !removed.length) return { added, removed };
  await deps.pg.transaction(async (tx) => {
    for (const id of added) {
      await tx.query("insert into team_members (team_id, user_id, auth_module) values ($1, $2, $3) on conflict do nothing", [id, input.userId, input.authModule]);
    }
    if (removed.length) {
      await tx.query("delete from team_members where user_id = $1 and auth_module = $2 and team_id = any($3::int[])", [input.userId, input.authModule, removed]);
    }
  });
  changed(deps);
  return { added, removed };
}
