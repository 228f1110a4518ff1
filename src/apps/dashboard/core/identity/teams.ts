// Teams of an organization and their members (the real product's /api/teams).
import { ApiError, badRequest, conflict, notFound } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import { changed, type IdentityDeps } from "./identity-deps.ts";
import { authLabelsOf, avatarUrl } from "./users.ts";
import { isUniqueViolation } from "../../../../db/errors.ts";
import { NAME_LIMITS, requireMaxLength } from "./name-limits.ts";

export const teamNotFound = () => notFound("Team not found");

interface TeamRow {
  id: number;
  uid: string;
  org_id: number;
  name: string;
  email: string;
  member_count: number;
}

const selectTeams = `
  select t.id, t.uid, t.org_id, t.name, t.email,
         (select count(*)::int from team_members m where m.team_id = t.id) as member_count
    from teams t where t.org_id = $1`;

function teamJson(t: TeamRow) {
  return {
    id: t.id,
    uid: t.uid,
    orgId: t.org_id,
    name: t.name,
    email: t.email,
    avatarUrl: avatarUrl(t.email || t.name),
    memberCount: t.member_count,
    permission: 0,
  };
}

export async function requireTeam(deps: IdentityDeps, orgId: number, teamId: number): Promise<TeamRow> {
  const r = await deps.pg.query<TeamRow>(`${selectTeams} and t.id = $2`, [orgId, teamId]);
  if (!r.rows[0]) throw teamNotFound();
  return r.rows[0];
}

/** a team's name (trimmed, not empty) and email, checked against the real product's column sizes */
function checkedTeam(input: { name: string; email?: string | undefined }): { name: string; email: string } {
  const name = input.name.trim();
  if (!name) throw badRequest("bad request data: name must be non-empty");
  requireMaxLength("name", name, NAME_LIMITS.teamName);
  const email = input.email ?? "";
  requireMaxLength("email", email, NAME_LIMITS.teamEmail);
  return { name, email };
}

/** a team name already used in the organization: 409 */
function nameTaken(err: unknown): never {
  if (isUniqueViolation(err, "teams_org_name_key")) throw conflict("Team name taken");
  throw err;
}

export async function createTeam(deps: IdentityDeps, orgId: number, input: { name: string; email?: string | undefined }) {
  const { name, email } = checkedTeam(input);
  const uid = newUid();
  const r = await deps.pg
    .query<{ id: number }>("insert into teams (uid, org_id, name, email) values ($1, $2, $3, $4) returning id", [uid, orgId, name, email])
    .catch(nameTaken);
  changed(deps);
  return { message: "Team created", teamId: r.rows[0]!.id, uid };
}

/** PUT /api/teams/:id: a new name and email (the name unique in the organization, as at creation) */
export async function updateTeam(deps: IdentityDeps, orgId: number, teamId: number, input: { name: string; email?: string | undefined }): Promise<void> {
  const { name, email } = checkedTeam(input);
  await requireTeam(deps, orgId, teamId);
  await deps.pg.query("update teams set name = $3, email = $4, updated_at = now() where org_id = $1 and id = $2", [orgId, teamId, name, email]).catch(nameTaken);
  changed(deps);
}

/** GET /api/user/teams and /api/users/:id/teams: the teams of a user in one organization */
export async function teamsOfUser(deps: IdentityDeps, orgId: number, userId: number) {
  const r = await deps.pg.query<TeamRow>(`${selectTeams} and t.id in (select team_id from team_members where user_id = $2) order by lower(t.name), t.id`, [orgId, userId]);
  return r.rows.map(teamJson);
}

export async function getTeam(deps: IdentityDeps, orgId: number, teamId: number) {
  return teamJson(await requireTeam(deps, orgId, teamId));
}

export async function searchTeams(
  deps: IdentityDeps,
  orgId: number,
  q: { query: string; name?: string | undefined; page: number; perPage: number },
  visible: (teamId: number) => boolean,
) {
  const r = await deps.pg.query<TeamRow>(`${selectTeams} order by lower(t.name)`, [orgId]);
  const needle = q.query.toLowerCase();
  const matching = r.rows
    .filter((t) => visible(t.id))
    .filter((t) => (q.name !== undefined ? t.name.toLowerCase() === q.name.toLowerCase() : t.name.toLowerCase().includes(needle)));
  const start = (q.page - 1) * q.perPage;
  return { totalCount: matching.length, teams: matching.slice(start, start + q.perPage).map(teamJson), page: q.page, perPage: q.perPage };
}

export async function deleteTeam(deps: IdentityDeps, orgId: number, teamId: number): Promise<void> {
  await requireTeam(deps, orgId, teamId);
  await deps.pg.query("delete from teams where id = $1", [teamId]);
  changed(deps);
}

export async function addTeamMember(deps: IdentityDeps, orgId: number, teamId: number, userId: number): Promise<void> {
  await requireTeam(deps, orgId, teamId);
  const snap = await deps.model.snapshot();
  if (!snap.memberships.get(userId)?.has(orgId)) throw notFound("User not found");
  const r = await deps.pg.query(
    "insert into team_members (team_id, user_id) values ($1, $2) on conflict do nothing",
    [teamId, userId],
  );
  if (!r.affectedRows) throw new ApiError(400, "User is already added to this team");
  changed(deps);
}

export async function removeTeamMember(deps: IdentityDeps, orgId: number, teamId: number, userId: number): Promise<void> {
  await requireTeam(deps, orgId, teamId);
  const r = await deps.pg.query("delete from team_members where team_id = $1 and user_id = $2", [teamId, userId]);
  if (!r.affectedRows) throw notFound("Team member not found");
  changed(deps);
}

export async function listTeamMembers(deps: IdentityDeps, orgId: number, teamId: number) {
  const team = await requireTeam(deps, orgId, teamId);
  const r = await deps.pg.query<{ id: number; login: string; email: string; name: string; permission: number; auth_module: string }>(
    `select u.id, u.login, u.email, u.name, m.permission, m.auth_module from team_members m join users u on u.id = m.user_id
      where m.team_id = $1 order by lower(u.login)`,
    [teamId],
  );
  return r.rows.map((u) => ({
    orgId,
    teamId,
    teamUID: team.uid,
    userId: u.id,
    email: u.email,
    name: u.name,
    login: u.login,
    avatarUrl: avatarUrl(u.email),
    // a membership team sync added: the real product's auth_module and labels (["LDAP"])
    auth_module: u.auth_module,
    labels: authLabelsOf(u.auth_module),
    permission: u.permission,
  }));
}
