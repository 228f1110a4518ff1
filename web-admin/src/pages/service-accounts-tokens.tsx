// The tokens of one service account: GET/POST /api/serviceaccounts/:id/tokens
// and DELETE .../tokens/:tokenId. A new token's key is shown once, in this
// dialog's state only: adding another token or closing the dialog drops it.
import { useState } from "preact/hooks";
import { DataTable } from "../components/data-table.tsx";
import { ActionForm } from "../components/form-dialog.tsx";
import { Badge, Button, Confirm, CopyButton, Dialog, Empty, Loaded, SelectField, TextField } from "../components/ui.tsx";
import { api } from "../lib/api.ts";
import { ago, dateTime, TOKEN_LIFETIMES } from "../lib/format.ts";
import { useAction, useLoad } from "../lib/hooks.ts";
import type { ServiceAccount } from "./service-accounts.tsx";

interface Token {
  id: number;
  name: string;
  role?: string;
  created: string;
  expiration: string | null;
  secondsUntilExpiration?: number;
  hasExpired: boolean;
  lastUsedAt?: string | null;
  isRevoked?: boolean;
}


export function TokensDialog(props: { account: ServiceAccount; onClose: () => void; onChanged: () => void }) {
  const { account } = props;
  const base = `/api/serviceaccounts/${account.id}/tokens`;
  const load = useLoad(() => api<Token[]>(base), [account.id]);
  const [name, setName] = useState("");
  const [ttl, setTtl] = useState("0");
  // the key of the token just added: never stored anywhere else
  const [created, setCreated] = useState<{ name: string; key: string } | undefined>();
  const [removing, setRemoving] = useState<Token | undefined>();

  const add = useAction(async () => {
    setCreated(undefined);
    const r = await api<{ id: number; name: string; key: string }>(base, { method: "POST", body: { name: name.trim(), secondsToLive: Number(ttl) } });
    setCreated({ name: r.name, key: r.key });
    setName("");
    load.reload();
    props.onChanged();
  });

  return (
    <>
      <Dialog title={`Tokens of ${account.name}`} onClose={props.onClose} wide>
        <div class="dialog-body">
          {account.isDisabled && <p class="alert warn">This service account is disabled: its tokens do not work until it is enabled.</p>}
          {created && (
            <>
              <p class="alert warn" role="alert">
                <strong>Copy this token now: it will not be shown again.</strong> Token “{created.name}” was added.
              </p>
              <div class="key-reveal">
                <code>{created.key}</code>
                <CopyButton text={created.key} label="Copy token" />
              </div>
            </>
          )}
          <Loaded load={load} what="The token list">
            {(tokens) =>
              tokens.length === 0 ? (
                <Empty>No tokens yet.</Empty>
              ) : (
                <DataTable caption="Tokens" columns={["Name", "Created", "Expires", "Last used", ""]}>
                  {tokens.map((t) => (
                    <tr key={t.id}>
                      <td>{t.name}</td>
                      <td>{dateTime(t.created)}</td>
                      <td>
                        {t.expiration === null ? "never" : dateTime(t.expiration)}{" "}
                        {t.hasExpired ? <Badge tone="bad">expired</Badge> : t.secondsUntilExpiration ? <Badge tone="warn">expires soon</Badge> : null}
                        {t.isRevoked && <Badge tone="bad">revoked</Badge>}
                      </td>
                      <td>{t.lastUsedAt ? ago(t.lastUsedAt) : "never"}</td>
                      <td class="row-actions">
                        <Button kind="danger" onClick={() => setRemoving(t)}>Delete</Button>
                      </td>
                    </tr>
                  ))}
                </DataTable>
              )
            }
          </Loaded>
          <h3>Add a token</h3>
          <ActionForm action={add} submitLabel="Add token">
            <div class="form-grid">
              <TextField label="Token name" name="name" value={name} onInput={setName} required autoComplete="off" />
              <SelectField label="Expiry" name="secondsToLive" value={ttl} onChange={setTtl} options={TOKEN_LIFETIMES} />
            </div>
          </ActionForm>
        </div>
      </Dialog>
      {removing && (
        <Confirm
          title={`Delete token ${removing.name}?`}
          body={<p>Scripts using this token stop working at once.</p>}
          confirmLabel="Delete token"
          onConfirm={async () => {
            await api(`${base}/${removing.id}`, { method: "DELETE" });
            if (created?.name === removing.name) setCreated(undefined);
            load.reload();
            props.onChanged();
          }}
          onClose={() => setRemoving(undefined)}
        />
      )}
    </>
  );
}
