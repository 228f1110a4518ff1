// The access policies that reach a tenant, for the stores' tenant pages: a
// link to the Access page per policy, inactive ones marked. And the note a
// store in header mode needs: there, policies are not checked at all.
import type { Load } from "../lib/hooks.ts";
import { reaching, reachesAll, type AccessPolicy } from "../lib/access.ts";
import type { Listener } from "../lib/stores.ts";
import { Badge } from "./ui.tsx";

export function TenantPolicies(props: { policies: Load<AccessPolicy[]>; tenant: string }) {
  const all = props.policies.data;
  if (!all) return <span class="muted">{props.policies.error ? "–" : "…"}</span>;
  const list = reaching(all, props.tenant);
  if (list.length === 0) return <span class="muted">none</span>;
  return (
    <ul class="inline-list" aria-label={`Access policies reaching ${props.tenant}`}>
      {list.map((p) => (
        <li>
          <a href="/access" title={reachesAll(p) ? "reaches every tenant" : undefined}>{p.name}</a>
          {reachesAll(p) && <span class="muted small"> (all)</span>}
          {p.status !== "active" && <> <Badge tone="warn">inactive</Badge></>}
        </li>
      ))}
    </ul>
  );
}

/** what the store does with tokens: required (tokens mode) or never looked at (header mode) */
export function AuthModeNote(props: { store: Listener }) {
  const { store } = props;
  return store.tokens ? (
    <p class="muted small">Tokens mode: clients need an access policy token reaching the tenant.</p>
  ) : (
    <p class="muted small">
      Header mode: the store trusts <code>X-Scope-OrgID</code> as sent and checks no token (<code>{store.name}.auth.type: tokens</code> turns
      access policies on).
    </p>
  );
}
