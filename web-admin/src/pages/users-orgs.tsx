// The "Organizations" tab: every organization for a server admin
// (GET /api/orgs, "New organization" → POST /api/orgs), else the user's own
// (from the session); "Switch" → POST /api/user/using/:orgId.
import { useState } from "preact/hooks";
import { DataTable } from "../components/data-table.tsx";
import { FormDialog } from "../components/form-dialog.tsx";
import { Badge, Button, Empty, ErrorNote, Loaded, TextField } from "../components/ui.tsx";
import { api } from "../lib/api.ts";
import { useAction, useLoad, type Load } from "../lib/hooks.ts";
import { useSession } from "../lib/session.ts";
import { forgetTopology } from "../lib/stores.ts";
import { isServerAdmin, type Org } from "./users-shared.tsx";

export function OrgsTab() {
  const session = useSession();
  const server = isServerAdmin(session);
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState("");
  const orgs = useLoad(() => (server ? api<Org[]>("/api/orgs") : Promise.resolve(undefined)), [server]);
  const switchTo = useAction(async (orgId: number) => {
    await api(`/api/user/using/${orgId}`, { method: "POST" });
    forgetTopology();
    await session.refresh();
  });
  const [switching, setSwitching] = useState<number>();
  const onSwitch = (orgId: number) => {
    setNotice("");
    setSwitching(orgId);
    void switchTo.run(orgId).finally(() => setSwitching(undefined));
  };
  const mine = new Map(session.orgs.map((o) => [o.orgId, o]));

  const table = (rows: { id: number; name: string }[]) => (
    <DataTable caption="Organizations" columns={[{ label: "ID", class: "num" }, "Name", "Your role", ""]}>
      {rows.map((o) => {
        const membership = mine.get(o.id);
        const isCurrent = o.id === session.user.orgId;
        return (
          <tr key={o.id}>
            <td class="num">{o.id}</td>
            <td>
              {o.name} {isCurrent && <Badge tone="ok">current</Badge>}
            </td>
            <td>{membership ? membership.role : <span class="muted">not a member</span>}</td>
            <td class="row-actions">
              {membership && !isCurrent && (
                <Button title={`Switch to ${o.name}`} pending={switching === o.id} onClick={() => onSwitch(o.id)}>Switch</Button>
              )}
            </td>
          </tr>
        );
      })}
    </DataTable>
  );

  return (
    <>
      {server && (
        <div class="toolbar">
          <span />
          <Button kind="primary" onClick={() => { setNotice(""); setCreating(true); }}>New organization</Button>
        </div>
      )}
      {notice && <p class="alert ok" role="status">{notice}</p>}
      <ErrorNote error={switchTo.error} what="Switching organization" />
      {server ? (
        <Loaded load={orgs as Load<Org[]>} what="The list of organizations">
          {(list) => (list.length === 0 ? <Empty>This server has no organizations.</Empty> : table(list))}
        </Loaded>
      ) : (
        <>
          <p class="muted">The organizations you belong to. Only a server administrator sees and creates every organization.</p>
          {session.orgs.length === 0 ? <Empty>You belong to no organization.</Empty> : table(session.orgs.map((o) => ({ id: o.orgId, name: o.name })))}
        </>
      )}
      {creating && (
        <NewOrgDialog
          onClose={() => setCreating(false)}
          onCreated={async (name) => {
            setCreating(false);
            setNotice(`Organization ${name} created. You are its administrator: switch to it to manage it.`);
            orgs.reload();
            // the creator is now a member: the session's organizations change
            await session.refresh();
          }}
        />
      )}
    </>
  );
}

function NewOrgDialog(props: { onClose: () => void; onCreated: (name: string) => Promise<void> }) {
  const [name, setName] = useState("");
  const create = useAction(async () => {
    await api<{ orgId: number }>("/api/orgs", { method: "POST", body: { name: name.trim() } });
    await props.onCreated(name.trim());
  });
  return (
    <FormDialog title="New organization" onClose={props.onClose} action={create} submitLabel="Create organization">
      <TextField label="Name" name="name" value={name} onInput={setName} required autoFocus hint="You become the administrator (Admin role) of the new organization." />
    </FormDialog>
  );
}
