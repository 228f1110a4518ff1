// Create or edit an access policy: POST /api/admin/access-policies, or PUT
// /api/admin/access-policies/:name (a full replacement of what may change).
// Tenants are a list, or every tenant; scopes are checkboxes.
import { useState } from "preact/hooks";
import { FormDialog } from "../components/form-dialog.tsx";
import { Button, SelectField, TextField } from "../components/ui.tsx";
import { ALL_TENANTS, POLICIES, reachesAll, SCOPES, type AccessPolicy } from "../lib/access.ts";
import { api } from "../lib/api.ts";
import { useAction } from "../lib/hooks.ts";

export function PolicyForm(props: { policy?: AccessPolicy; onClose: () => void; onSaved: () => void }) {
  const p = props.policy;
  const [name, setName] = useState(p?.name ?? "");
  const [displayName, setDisplayName] = useState(p?.display_name ?? "");
  const [allTenants, setAllTenants] = useState(p ? reachesAll(p) : false);
  const [tenants, setTenants] = useState<string[]>(() => {
    const named = p?.realms.map((r) => r.tenant).filter((t) => t !== ALL_TENANTS) ?? [];
    return named.length ? named : [""];
  });
  const [scopes, setScopes] = useState<string[]>(p?.scopes ?? []);
  const [status, setStatus] = useState<string>(p?.status ?? "active");

  const setTenant = (i: number, v: string) => setTenants(tenants.map((t, j) => (j === i ? v : t)));
  const toggleScope = (scope: string, on: boolean) => setScopes(on ? [...scopes, scope] : scopes.filter((s) => s !== scope));

  const save = useAction(async () => {
    const named = [...new Set(tenants.map((t) => t.trim()).filter(Boolean))];
    if (!allTenants && named.length === 0) throw new Error("Name at least one tenant, or choose all tenants.");
    if (scopes.length === 0) throw new Error("Choose at least one scope: what the policy's tokens may do.");
    const body = {
      display_name: displayName,
      realms: (allTenants ? [ALL_TENANTS] : named).map((tenant) => ({ tenant })),
      // in the server's order, whatever order they were ticked in
      scopes: SCOPES.map(([s]) => s).filter((s) => scopes.includes(s)),
      status,
    };
    if (p) await api(`${POLICIES}/${encodeURIComponent(p.name)}`, { method: "PUT", body });
    else await api(POLICIES, { method: "POST", body: { name: name.trim(), ...body } });
    props.onSaved();
    props.onClose();
  });

  return (
    <FormDialog title={p ? `Edit policy ${p.name}` : "New access policy"} onClose={props.onClose} wide action={save} submitLabel={p ? "Save policy" : "Create policy"} errorBelow>
      <div class="form-grid">
        {!p && (
          <TextField label="Policy name" name="name" value={name} onInput={setName} required autoFocus autoComplete="off" hint="Lower case letters, digits, - and _; it cannot change." />
        )}
        <TextField label="Display name" name="display_name" value={displayName} onInput={setDisplayName} />
        <SelectField label="Status" name="status" value={status} onChange={setStatus} options={[["active", "active"], ["inactive", "inactive (its tokens are refused)"]]} />
      </div>
      <fieldset>
        <legend>Tenants</legend>
        <label class="check">
          <input type="checkbox" name="all_tenants" checked={allTenants} onChange={(e) => setAllTenants((e.target as HTMLInputElement).checked)} /> All tenants
          (<code>*</code>), including tenants created later
        </label>
        {!allTenants && (
          <>
            {tenants.map((t, i) => (
              <div class="tenant-row">
                <TextField label={`Tenant ${i + 1}`} name={`tenant_${i}`} value={t} onInput={(v) => setTenant(i, v)} autoComplete="off" />
                {tenants.length > 1 && (
                  <Button onClick={() => setTenants(tenants.filter((_, j) => j !== i))} aria-label={`Remove tenant ${i + 1}`}>Remove</Button>
                )}
              </div>
            ))}
            <div>
              <Button onClick={() => setTenants([...tenants, ""])}>Add tenant</Button>
            </div>
            <p class="hint">The tenant a client names: the basic auth user name, or <code>X-Scope-OrgID</code> with a Bearer token.</p>
          </>
        )}
      </fieldset>
      <fieldset>
        <legend>Scopes</legend>
        <div class="scopes">
          {SCOPES.map(([scope, what]) => (
            <label class="check">
              <input type="checkbox" name="scopes" value={scope} checked={scopes.includes(scope)} onChange={(e) => toggleScope(scope, (e.target as HTMLInputElement).checked)} />
              <span><code>{scope}</code> <span class="muted small">{what}</span></span>
            </label>
          ))}
        </div>
      </fieldset>
    </FormDialog>
  );
}
