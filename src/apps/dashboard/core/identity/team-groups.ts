// Team sync (enterprise): external groups (LDAP, SAML, OAuth) whose members
// belong to a team (spec "Team external-group sync"; reference §9.2).
import { badRequest, notFound } from "../../../../lib/errors.ts";
import type { IdentityDeps } from "./identity-deps.ts";
import { requireTeam } from "./teams.ts";

export interface TeamGroup {
  orgId: number;
  teamId: number;
  groupId: string;
}

export async function listTeamGroups(deps: IdentityDeps, orgId: number, teamId: number): Promise<TeamGroup[]> {
  const r = await deps.pg.query<{ group_id: string }>(
    "select group_id from team_groups where org_id = $1 and team_id = $2 order by group_id",
    [orgId, teamId],
  );
  return r.rows.map((x) => ({ orgId, teamId, groupId: x.group_id }));
}

export async function addTeamGroup(deps: IdentityDeps, orgId: number, teamId: number, groupId: string): Promise<void> {
  await requireTeam(deps, orgId, teamId);
  const r = await deps.pg.query(
    "insert into team_groups (org_id, team_id, group_id) values ($1, $2, $3) on conflict do nothing",
    [orgId, teamId, groupId],
  );
  if (!r.affectedRows) throw badRequest("Group is already added to this team");
}

export async function removeTeamGroup(deps: IdentityDeps, orgId: number, teamId: number, groupId: string): Promise<void> {
  await requireTeam(deps, orgId, teamId);
  const r = await deps.pg.query("delete from team_groups where org_id = $1 and team_id = $2 and group_id = $3", [orgId, teamId, groupId]);
  if (!r.affectedRows) throw notFound("Group not found");
}

export interface GroupSearch {
  /** exact group id */
  name?: string | undefined;
  /** part of a group id, case-insensitive */
  query?: string | undefined;
  page: number;
  perPage: number;
}

export async function searchTeamGroups(deps: IdentityDeps, orgId: number, teamId: number, q: GroupSearch) {
  const needle = q.query?.toLowerCase() ?? "";
  const all = (await listTeamGroups(deps, orgId, teamId)).filter(
    (g) => (q.name === undefined || q.name === "" || g.groupId === q.name) && g.groupId.toLowerCase().includes(needle),
  );
  return {
    totalCount: all.length,
    teamGroups: all.slice((q.page - 1) * q.perPage, q.page * q.perPage),
    page: q.page,
    perPage: q.perPage,
  };
}
