// Access (/access): the log and metrics stores' access policies and their
// tokens, through the dashboard's /api/admin/access-policies and
// /api/admin/access-tokens (server administrators). A policy names tenants
// and scopes; a token belongs to one policy, its secret shown once when it is
// made (access-tokens.tsx). Deleting a policy or a token is refused by both
// stores at once.
import { useState } from "preact/hooks";
import { DataTable } from "../components/data-table.tsx";
import { Badge, Button, Confirm, Empty, Loaded, PageHeader } from "../components/ui.tsx";
import { loadPolicies, loadTokens, POLICIES, reachesAll, type AccessPolicy, type AccessToken } from "../lib/access.ts";
import { api } from "../lib/api.ts";
import { useLoad, usePolledLoad, type Load } from "../lib/hooks.ts";
import { useSession } from "../lib/session.ts";
import { topology, type Listener } from "../lib/stores.ts";
import { PolicyForm } from "./access-policy-form.tsx";
import { TokensSection } from "./access-tokens.tsx";

export function AccessPage() {
  const serverAdmin = useSession().user.isSvcAdmin;
  return (
    <section>
      <PageHeader
        title="Access policies"
        description="Who may write to and read from the log and metrics stores. A policy names tenants and what it may do; its tokens are sent as basic auth, the tenant as user name and the token as password."
      />
      {!serverAdmin ? (
        <p class="alert info">Access policies and tokens reach every tenant's data, so they are managed by server administrators. Ask one for a token.</p>
      ) : (
        <Access />
      )}
    </section>
  );
}

function Access() {
  const topo = useLoad(topology);
  // read again every 10 s: the tokens' usage moves
  const policies = usePolledLoad(loadPolicies, 10_000);
  const tokens = usePolledLoad(loadTokens, 10_000);
  const reload = () => {
    policies.reload();
    tokens.reload();
  };
  return (
    <>
      {topo.data && (
        <ul class="inline-list modes" aria-label="How the stores use tokens">
          {[topo.data.logs, topo.data.metrics].map((l) => <li><ModeOf store={l} /></li>)}
        </ul>
      )}
      <Policies policies={policies} tokens={tokens.data} onChanged={reload} />
      <TokensSection tokens={tokens} policies={policies.data ?? []} onChanged={reload} />
    </>
  );
}

function ModeOf({ store }: { store: Listener }) {
  if (!store.enabled) return <>{store.title}: <Badge>turned off</Badge></>;
  return store.tokens ? (
    <>{store.title}: <Badge tone="ok">tokens required</Badge></>
  ) : (
    <span title={`${store.name}.auth.type: tokens turns them on`}>{store.title}: <Badge tone="warn">header mode, tokens not checked</Badge></span>
  );
}

type Open = { kind: "new" } | { kind: "edit"; policy: AccessPolicy } | { kind: "delete"; policy: AccessPolicy };

function Policies(props: { policies: Load<AccessPolicy[]>; tokens: AccessToken[] | undefined; onChanged: () => void }) {
  const [open, setOpen] = useState<Open>();
  const countOf = (p: AccessPolicy) => props.tokens?.filter((t) => t.access_policy === p.name).length;
  return (
    <>
      <div class="toolbar">
        <h2>Policies</h2>
        <Button kind="primary" onClick={() => setOpen({ kind: "new" })}>New policy</Button>
      </div>
      <Loaded load={props.policies} what="The policy list">
        {(list) =>
          list.length === 0 ? (
            <Empty>No access policies yet. Create one for a tenant, then a token for each client that writes or reads it.</Empty>
          ) : (
            <DataTable caption="Access policies" columns={["Policy", "Tenants", "Scopes", "Status", { label: "Tokens", class: "num" }, ""]}>
              {list.map((p) => (
                <tr key={p.name}>
                  <th scope="row">
                    {p.name}
                    {p.display_name && <div class="muted small">{p.display_name}</div>}
                  </th>
                  <td>{reachesAll(p) ? <Badge>all tenants</Badge> : p.realms.map((r) => r.tenant).join(", ")}</td>
                  <td class="small">{p.scopes.join(", ")}</td>
                  <td><Badge tone={p.status === "active" ? "ok" : "warn"}>{p.status}</Badge></td>
                  <td class="num">{countOf(p) ?? "–"}</td>
                  <td class="row-actions">
                    <Button onClick={() => setOpen({ kind: "edit", policy: p })} aria-label={`Edit ${p.name}`}>Edit</Button>
                    <Button kind="danger" onClick={() => setOpen({ kind: "delete", policy: p })} aria-label={`Delete ${p.name}`}>Delete</Button>
                  </td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </Loaded>
      {(open?.kind === "new" || open?.kind === "edit") && (
        <PolicyForm policy={open.kind === "edit" ? open.policy : undefined} onClose={() => setOpen(undefined)} onSaved={props.onChanged} />
      )}
      {open?.kind === "delete" && (
        <Confirm
          title={`Delete policy ${open.policy.name}?`}
          body={
            <p>
              {countOf(open.policy)
                ? `Its ${countOf(open.policy) === 1 ? "token is" : `${countOf(open.policy)} tokens are`} deleted with it: clients using them are refused by both stores at once.`
                : "The policy is deleted for good."}
            </p>
          }
          confirmLabel="Delete policy"
          onConfirm={async () => {
            await api(`${POLICIES}/${encodeURIComponent(open.policy.name)}`, { method: "DELETE" });
            props.onChanged();
          }}
          onClose={() => setOpen(undefined)}
        />
      )}
    </>
  );
}
