// The stores' tokens: each with its policy, expiry and what it has sent and
// asked for since the server started; create one (its secret shown once, in
// this dialog's state only: closing it drops the secret) and revoke one.
import { useState } from "preact/hooks";
import { DataTable, type Column } from "../components/data-table.tsx";
import { ActionForm } from "../components/form-dialog.tsx";
import { Badge, Button, Confirm, CopyButton, Dialog, Empty, Loaded, SelectField, TextField } from "../components/ui.tsx";
import { TOKENS, type AccessPolicy, type AccessToken } from "../lib/access.ts";
import { api } from "../lib/api.ts";
import * as fmt from "../lib/format.ts";
import { useAction, type Load } from "../lib/hooks.ts";

const num = (label: string): Column => ({ label, class: "num" });
const COLUMNS = ["Token", "Policy", "Expires", "Last used", num("Log lines"), num("Samples"), num("Bytes written"), num("Queries"), ""];

export function TokensSection(props: { tokens: Load<AccessToken[]>; policies: AccessPolicy[]; onChanged: () => void }) {
  const [creating, setCreating] = useState(false);
  const [revoking, setRevoking] = useState<AccessToken>();
  return (
    <>
      <div class="toolbar">
        <h2>Tokens</h2>
        <Button kind="primary" onClick={() => setCreating(true)} disabled={props.policies.length === 0} title={props.policies.length === 0 ? "Create a policy first" : undefined}>
          New token
        </Button>
      </div>
      <Loaded load={props.tokens} what="The token list">
        {(list) =>
          list.length === 0 ? (
            <Empty>No tokens yet. {props.policies.length === 0 ? "Create a policy first, then a token for it." : "Create one for each client: a log shipper, Prometheus, a data source."}</Empty>
          ) : (
            <DataTable caption="Access tokens" columns={COLUMNS}>
              {list.map((t) => (
                <tr key={t.name}>
                  <th scope="row">
                    {t.name}
                    {t.display_name && <div class="muted small">{t.display_name}</div>}
                  </th>
                  <td>{t.access_policy}</td>
                  <td>
                    {t.expiration === null ? "never" : fmt.dateTime(t.expiration)} {t.status === "expired" && <Badge tone="bad">expired</Badge>}
                  </td>
                  <td title={t.usage.last_used_at ?? ""}>{fmt.ago(t.usage.last_used_at)}</td>
                  <td class="num">{fmt.number(t.usage.logs_lines)}</td>
                  <td class="num">{fmt.number(t.usage.metrics_samples)}</td>
                  <td class="num">{fmt.bytes(t.usage.logs_bytes + t.usage.metrics_bytes)}</td>
                  <td class="num" title={`${t.usage.logs_queries} log, ${t.usage.metrics_queries} metric`}>{fmt.number(t.usage.logs_queries + t.usage.metrics_queries)}</td>
                  <td class="row-actions">
                    <Button kind="danger" onClick={() => setRevoking(t)} aria-label={`Revoke ${t.name}`}>Revoke</Button>
                  </td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </Loaded>
      <p class="hint">Usage counts since the server started.</p>
      {creating && <NewTokenDialog policies={props.policies} onClose={() => setCreating(false)} onCreated={props.onChanged} />}
      {revoking && (
        <Confirm
          title={`Revoke token ${revoking.name}?`}
          body={<p>Clients using it are refused by both stores at once. A revoked token cannot be brought back: make a new one instead.</p>}
          confirmLabel="Revoke token"
          onConfirm={async () => {
            await api(`${TOKENS}/${encodeURIComponent(revoking.name)}`, { method: "DELETE" });
            props.onChanged();
          }}
          onClose={() => setRevoking(undefined)}
        />
      )}
    </>
  );
}

function NewTokenDialog(props: { policies: AccessPolicy[]; onClose: () => void; onCreated: () => void }) {
  const [name, setName] = useState("");
  const [displayName, setDisplayName] = useState("");
  const [policy, setPolicy] = useState(props.policies[0]?.name ?? "");
  const [ttl, setTtl] = useState("0");
  // the secret of the token just made: never stored anywhere else
  const [created, setCreated] = useState<{ name: string; policy: AccessPolicy | undefined; secret: string }>();
  const create = useAction(async () => {
    const expiration = ttl === "0" ? undefined : new Date(Date.now() + Number(ttl) * 1000).toISOString();
    const r = await api<AccessToken & { token: string }>(TOKENS, {
      method: "POST",
      body: { name: name.trim(), display_name: displayName, access_policy: policy, ...(expiration ? { expiration } : {}) },
    });
    setCreated({ name: r.name, policy: props.policies.find((p) => p.name === r.access_policy), secret: r.token });
    props.onCreated();
  });
  if (created) {
    const tenant = created.policy?.realms.find((r) => r.tenant !== "*")?.tenant ?? "<tenant>";
    return (
      <Dialog title={`Token ${created.name}`} onClose={props.onClose} wide>
        <div class="dialog-body">
          <p class="alert warn" role="alert">
            <strong>Copy this token now: you will not see it again.</strong> Only its hash is kept; if it is lost, revoke it and make a new one.
          </p>
          <div class="key-reveal">
            <code>{created.secret}</code>
            <CopyButton text={created.secret} label="Copy token" />
          </div>
          <p class="hint">
            Send it as the password of HTTP basic auth with the tenant as user name, for example{" "}
            <code>curl -u {tenant}:&lt;token&gt; …</code>, or as <code>Authorization: Bearer &lt;token&gt;</code> with <code>X-Scope-OrgID</code>. A data source
            takes it as its basic auth password.
          </p>
        </div>
        <div class="dialog-foot">
          <Button kind="primary" onClick={props.onClose}>Done</Button>
        </div>
      </Dialog>
    );
  }
  return (
    <Dialog title="New access token" onClose={props.onClose}>
      <ActionForm action={create} submitLabel="Create token" onCancel={props.onClose}>
        <TextField label="Token name" name="name" value={name} onInput={setName} required autoFocus autoComplete="off" hint="Lower case letters, digits, - and _." />
        <TextField label="Display name" name="display_name" value={displayName} onInput={setDisplayName} autoComplete="off" />
        <SelectField label="Access policy" name="access_policy" value={policy} onChange={setPolicy} options={props.policies.map((p) => [p.name, p.display_name ? `${p.name} (${p.display_name})` : p.name])} />
        <SelectField label="Expires" name="expiry" value={ttl} onChange={setTtl} options={fmt.TOKEN_LIFETIMES} />
      </ActionForm>
    </Dialog>
  );
}
