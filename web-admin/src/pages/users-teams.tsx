// The "Teams" tab: the current organization's teams (GET /api/teams/search),
// "New team" (POST /api/teams) and, for the selected team, its members
// (GET/POST/DELETE /api/teams/:id/members) and "Delete team".
import { useEffect, useState } from "preact/hooks";
import { DataTable } from "../components/data-table.tsx";
import { ActionForm, FormDialog } from "../components/form-dialog.tsx";
import { Badge, Button, Confirm, Empty, ErrorNote, Loaded, Loading, Pager, SearchBox, SelectField, TextField } from "../components/ui.tsx";
import { api, query } from "../lib/api.ts";
import { useAction, useLoad, usePageFallback } from "../lib/hooks.ts";
import { useSession } from "../lib/session.ts";
import { currentOrgName, PER_PAGE, useDebounced, type OrgUser } from "./users-shared.tsx";

interface Team {
  id: number;
  uid?: string;
  name: string;
  email: string;
  memberCount: number;
}

interface TeamSearch {
  totalCount: number;
  teams: Team[];
  page: number;
  perPage: number;
}

interface TeamMember {
  userId: number;
  login: string;
  email: string;
  name: string;
  /** a membership team sync added: ["LDAP"] or ["OAuth"], auth_module "ldap" / "oauth_…" */
  labels?: string[];
  auth_module?: string;
}

/** the sync that added a member (removed again when the groups no longer match), or undefined for one added by hand */
function syncedBy(m: TeamMember): string | undefined {
  if (m.labels?.length) return m.labels.join(", ");
  if (!m.auth_module) return undefined;
  return m.auth_module === "ldap" ? "LDAP" : m.auth_module.startsWith("oauth") ? "OAuth" : m.auth_module.toUpperCase();
}

export function TeamsTab() {
  const session = useSession();
  const [search, setSearch] = useState("");
  const q = useDebounced(search.trim());
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<Team>();
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState("");
  useEffect(() => setPage(1), [q]);
  const teams = useLoad(() => api<TeamSearch>(`/api/teams/search${query({ perpage: PER_PAGE, page, query: q })}`), [page, q]);
  usePageFallback(teams.data?.teams.length, teams.data?.totalCount, page, PER_PAGE, setPage);
  // keep the detail panel's team in step with the list (member counts, deletion)
  const current = selected && (teams.data?.teams.find((t) => t.id === selected.id) ?? selected);

  return (
    <>
      <div class="toolbar">
        <SearchBox label="Search teams" value={search} onInput={setSearch} />
        <Button kind="primary" onClick={() => { setNotice(""); setCreating(true); }}>New team</Button>
      </div>
      {notice && <p class="alert ok" role="status">{notice}</p>}
      <Loaded load={teams} what="The list of teams">
        {(data) => (
          <div class="split">
            <div>
              {data.teams.length === 0 ? (
                <Empty>{q ? `No team matches “${q}”.` : `${currentOrgName(session)} has no teams yet.`}</Empty>
              ) : (
                <DataTable caption="Teams" columns={["Team", "Email", { label: "Members", class: "num" }]}>
                  {data.teams.map((t) => (
                    <tr key={t.id}>
                      <td>
                        <button type="button" class="btn plain" aria-current={current?.id === t.id ? "true" : undefined} onClick={() => { setNotice(""); setSelected(t); }}>
                          {t.name}
                        </button>
                      </td>
                      <td>{t.email || <span class="muted">–</span>}</td>
                      <td class="num">{t.memberCount}</td>
                    </tr>
                  ))}
                </DataTable>
              )}
              <Pager page={data.page || page} perPage={data.perPage || PER_PAGE} total={data.totalCount} onPage={setPage} />
            </div>
            <div>
              {current ? (
                <TeamDetail
                  key={current.id}
                  team={current}
                  onChanged={teams.reload}
                  onDeleted={() => {
                    setNotice(`Team ${current.name} deleted.`);
                    setSelected(undefined);
                    teams.reload();
                  }}
                />
              ) : (
                <Empty>Select a team to see and change its members.</Empty>
              )}
            </div>
          </div>
        )}
      </Loaded>
      {creating && (
        <NewTeamDialog
          onClose={() => setCreating(false)}
          onCreated={(team) => {
            setCreating(false);
            setNotice(`Team ${team.name} created.`);
            setSelected(team);
            teams.reload();
          }}
        />
      )}
    </>
  );
}

function TeamDetail(props: { team: Team; onChanged: () => void; onDeleted: () => void }) {
  const { team } = props;
  const members = useLoad(() => api<TeamMember[]>(`/api/teams/${team.id}/members`), [team.id]);
  const orgUsers = useLoad(() => api<OrgUser[]>("/api/org/users"), []);
  const [userId, setUserId] = useState("");
  const [removing, setRemoving] = useState<TeamMember>();
  const [deleting, setDeleting] = useState(false);
  const add = useAction(async () => {
    if (!userId) throw new Error("choose a user to add");
    await api(`/api/teams/${team.id}/members`, { method: "POST", body: { userId: Number(userId) } });
    setUserId("");
    members.reload();
    props.onChanged();
  });
  const candidates = (orgUsers.data ?? []).filter((u) => !members.data?.some((m) => m.userId === u.userId));

  return (
    <section class="card" aria-labelledby="team-detail-title">
      <div class="toolbar">
        <h2 id="team-detail-title">{team.name}</h2>
        <Button kind="danger" onClick={() => setDeleting(true)}>Delete team</Button>
      </div>
      {team.email && <p class="muted">{team.email}</p>}
      <h3>Members</h3>
      <Loaded load={members} what="The team's members">
        {(list) =>
          list.length === 0 ? (
            <Empty>This team has no members yet.</Empty>
          ) : (
            <DataTable caption={`Members of ${team.name}`} columns={["Login", "Name", "Email", "Membership", ""]}>
              {list.map((m) => (
                <tr key={m.userId}>
                  <td>{m.login}</td>
                  <td>{m.name || <span class="muted">–</span>}</td>
                  <td>{m.email}</td>
                  <td>
                    {syncedBy(m) ? (
                      <span title={`Added by ${syncedBy(m)} team sync: removed again when the user's groups no longer match`}><Badge tone="ok">synced · {syncedBy(m)}</Badge></span>
                    ) : (
                      <span class="muted">by hand</span>
                    )}
                  </td>
                  <td class="row-actions">
                    <Button kind="danger" title={`Remove ${m.login} from ${team.name}`} onClick={() => setRemoving(m)}>Remove</Button>
                  </td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </Loaded>

      <h3>Add member</h3>
      {orgUsers.data === undefined ? (
        orgUsers.error ? <ErrorNote error={orgUsers.error} what="Choosing a member" /> : <Loading />
      ) : members.data === undefined ? null : candidates.length === 0 ? (
        <p class="muted">Every user of this organization is already a member.</p>
      ) : (
        <ActionForm action={add} submitLabel="Add member">
          <SelectField
            label="User to add"
            name="userId"
            value={userId}
            onChange={setUserId}
            options={[["", "Choose a user…"], ...candidates.map((u): [string, string] => [String(u.userId), u.name && u.name !== u.login ? `${u.login} (${u.name})` : u.login])]}
          />
        </ActionForm>
      )}

      {removing && (
        <Confirm
          title="Remove member"
          body={<p>Remove <strong>{removing.login}</strong> from the team <strong>{team.name}</strong>? The user stays in the organization.</p>}
          confirmLabel="Remove"
          onConfirm={async () => {
            await api(`/api/teams/${team.id}/members/${removing.userId}`, { method: "DELETE" });
            members.reload();
            props.onChanged();
          }}
          onClose={() => setRemoving(undefined)}
        />
      )}
      {deleting && (
        <Confirm
          title="Delete team"
          body={<p>Delete the team <strong>{team.name}</strong>? Its members stay in the organization, but lose what the team gave them.</p>}
          confirmLabel="Delete team"
          onConfirm={async () => {
            await api(`/api/teams/${team.id}`, { method: "DELETE" });
            props.onDeleted();
          }}
          onClose={() => setDeleting(false)}
        />
      )}
    </section>
  );
}

function NewTeamDialog(props: { onClose: () => void; onCreated: (team: Team) => void }) {
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const create = useAction(async () => {
    const r = await api<{ teamId: number; uid?: string }>("/api/teams", { method: "POST", body: { name: name.trim(), email: email.trim() || undefined } });
    props.onCreated({ id: r.teamId, uid: r.uid, name: name.trim(), email: email.trim(), memberCount: 0 });
  });
  return (
    <FormDialog title="New team" onClose={props.onClose} action={create} submitLabel="Create team">
      <TextField label="Name" name="name" value={name} onInput={setName} required autoFocus />
      <TextField label="Email" name="email" type="email" value={email} onInput={setEmail} hint="Optional." />
    </FormDialog>
  );
}
