// The "Users" tab: every user of the server for a server admin
// (GET /api/users/search), else the current organization's members
// (GET /api/org/users); the role in the current organization, changed by
// organization admins (PATCH /api/orgs/:orgId/users/:userId); "New user"
// (POST /api/admin/users, into the current organization).
import { useEffect, useState } from "preact/hooks";
import { DataTable } from "../components/data-table.tsx";
import { FormDialog } from "../components/form-dialog.tsx";
import { RoleSelect } from "../components/role-select.tsx";
import { Badge, Button, Empty, ErrorNote, Loaded, Pager, SearchBox, TextField } from "../components/ui.tsx";
import { api, query } from "../lib/api.ts";
import { useAction, useLoad, type Load } from "../lib/hooks.ts";
import { useSession } from "../lib/session.ts";
import {
  currentOrgName, isOrgAdmin, isServerAdmin, LastSeen, ORG_ROLES, PER_PAGE, useDebounced, type OrgUser, type UserSearch,
} from "./users-shared.tsx";

interface Row {
  id: number;
  name: string;
  login: string;
  email: string;
  isAdmin?: boolean | undefined;
  isDisabled?: boolean | undefined;
  lastSeenAt?: string | null | undefined;
}

export function UsersTab() {
  const session = useSession();
  const server = isServerAdmin(session);
  const [search, setSearch] = useState("");
  const q = useDebounced(search.trim());
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState("");
  useEffect(() => setPage(1), [q]);

  const members = useLoad(() => api<OrgUser[]>("/api/org/users"), []);
  const users = useLoad(
    () => (server ? api<UserSearch>(`/api/users/search${query({ perpage: PER_PAGE, page, query: q })}`) : Promise.resolve(undefined)),
    [server, page, q],
  );
  const [busy, setBusy] = useState<number>();
  const changeRole = useAction(async (userId: number, role: string) => {
    setNotice("");
    setBusy(userId);
    try {
      await api(`/api/orgs/${session.user.orgId}/users/${userId}`, { method: "PATCH", body: { role } });
    } finally {
      setBusy(undefined);
      members.reload();
    }
  });
  const roles = { members, editable: isOrgAdmin(session), busy, onChange: (id: number, role: string) => void changeRole.run(id, role) };

  return (
    <>
      <div class="toolbar">
        <SearchBox label="Search users" value={search} onInput={setSearch} />
        {server && <Button kind="primary" onClick={() => { setNotice(""); setCreating(true); }}>New user</Button>}
      </div>
      {notice && <p class="alert ok" role="status">{notice}</p>}
      <ErrorNote error={changeRole.error} what="Changing the role" />
      {server ? (
        <Loaded load={users as Load<UserSearch>} what="The list of users">
          {(data) => (
            <>
              <UserTable rows={data.users} roles={roles} empty={q ? `No user matches “${q}”.` : "This server has no users."} />
              <Pager page={data.page || page} perPage={data.perPage || PER_PAGE} total={data.totalCount} onPage={setPage} />
            </>
          )}
        </Loaded>
      ) : (
        <>
          <p class="muted">
            Only a server administrator sees every user of the server; these are the members of {currentOrgName(session)}
          </p>
          <Loaded load={members} what="The list of organization users">
            {(list) => <OrgUserList list={list} q={q} page={page} onPage={setPage} roles={roles} />}
          </Loaded>
        </>
      )}
      {creating && (
        <NewUserDialog
          onClose={() => setCreating(false)}
          onCreated={(who) => {
            setCreating(false);
            setNotice(`User ${who} created and added to ${currentOrgName(session)} as Viewer.`);
            users.reload();
            members.reload();
          }}
        />
      )}
    </>
  );
}

interface Roles {
  members: Load<OrgUser[]>;
  editable: boolean;
  busy: number | undefined;
  onChange: (userId: number, role: string) => void;
}

function OrgUserList(props: { list: OrgUser[]; q: string; page: number; onPage: (p: number) => void; roles: Roles }) {
  const needle = props.q.toLowerCase();
  const matching = props.list.filter((u) => !needle || [u.login, u.name, u.email].some((s) => s?.toLowerCase().includes(needle)));
  const rows: Row[] = matching
    .slice((props.page - 1) * PER_PAGE, props.page * PER_PAGE)
    .map((u) => ({ id: u.userId, name: u.name, login: u.login, email: u.email, isDisabled: u.isDisabled, lastSeenAt: u.lastSeenAt }));
  return (
    <>
      <UserTable rows={rows} roles={props.roles} empty={needle ? `No user matches “${props.q}”.` : "This organization has no users."} />
      <Pager page={props.page} perPage={PER_PAGE} total={matching.length} onPage={props.onPage} />
    </>
  );
}

function UserTable(props: { rows: Row[]; roles: Roles; empty: string }) {
  const session = useSession();
  if (props.rows.length === 0) return <Empty>{props.empty}</Empty>;
  return (
    <DataTable caption="Users" columns={["Name", "Login", "Email", `Role in ${currentOrgName(session)}`, "Last seen"]}>
      {props.rows.map((u) => (
        <tr key={u.id}>
          <td>
            {u.name || <span class="muted">–</span>} {u.isAdmin && <Badge tone="warn">server admin</Badge>}{" "}
            {u.isDisabled && <Badge tone="bad">disabled</Badge>}
          </td>
          <td>{u.login}</td>
          <td>{u.email}</td>
          <td><RoleCell user={u} roles={props.roles} /></td>
          <td><LastSeen at={u.lastSeenAt} /></td>
        </tr>
      ))}
    </DataTable>
  );
}

function RoleCell(props: { user: Row; roles: Roles }) {
  const { members, editable, busy, onChange } = props.roles;
  if (!members.data) return <span class="muted">{members.loading ? "…" : "–"}</span>;
  const member = members.data.find((m) => m.userId === props.user.id);
  if (!member) return <span class="muted">not a member</span>;
  if (!editable) return <>{member.role}</>;
  return <RoleSelect label={`Role of ${member.login}`} value={member.role} roles={ORG_ROLES} busy={busy === member.userId} onChange={(role) => onChange(member.userId, role)} />;
}

function NewUserDialog(props: { onClose: () => void; onCreated: (who: string) => void }) {
  const session = useSession();
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [login, setLogin] = useState("");
  const [password, setPassword] = useState("");
  const create = useAction(async () => {
    // an empty field is left out: the server falls back from login to email and back
    const body = { name: name.trim() || undefined, email: email.trim() || undefined, login: login.trim() || undefined, password, orgId: session.user.orgId };
    await api("/api/admin/users", { method: "POST", body });
    props.onCreated(body.login ?? body.email ?? "");
  });
  return (
    <FormDialog title="New user" onClose={props.onClose} action={create} submitLabel="Create user">
      <TextField label="Name" name="name" value={name} onInput={setName} autoFocus />
      <TextField label="Email" name="email" type="email" value={email} onInput={setEmail} />
      <TextField label="Login" name="login" value={login} onInput={setLogin} hint="The email is used when left empty (and the other way round)." />
      <TextField label="Password" name="password" type="password" value={password} onInput={setPassword} autoComplete="new-password" required hint="At least 4 characters." />
      <p class="hint">The new user joins {currentOrgName(session)} as Viewer.</p>
    </FormDialog>
  );
}
