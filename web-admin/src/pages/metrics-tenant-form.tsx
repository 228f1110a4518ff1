// Create or edit a metrics tenant through the admin API: POST or PUT
// /admin/api/v2/tenants. Limits left empty take the global default (shown as
// the placeholder); without "own limits" the tenant has none (runtime
// configuration or global defaults apply).
import { useState } from "preact/hooks";
import { FormDialog } from "../components/form-dialog.tsx";
import { SelectField, TextField } from "../components/ui.tsx";
import { useAction } from "../lib/hooks.ts";
import { LIMIT_LABELS, LIMIT_NAMES, type Limits, type Tenant } from "../lib/metrics-tenants.ts";
import { adminRequest, type Listener } from "../lib/stores.ts";

export function TenantForm(props: { store: Listener; tenant?: Tenant; defaults: Partial<Limits>; cluster: string; retention: string; onClose: () => void; onSaved: () => void }) {
  const t = props.tenant;
  const [name, setName] = useState(t?.name ?? "");
  const [displayName, setDisplayName] = useState(t?.display_name ?? "");
  const [status, setStatus] = useState<string>(t?.status ?? "active");
  const [cluster, setCluster] = useState(t?.cluster ?? props.cluster);
  const [own, setOwn] = useState(t ? t.limits !== undefined : true);
  const [limits, setLimits] = useState<Record<string, string>>(() =>
    Object.fromEntries(LIMIT_NAMES.map((n) => [n, t?.limits && t.limits[n] !== props.defaults[n] ? String(t.limits[n]) : ""])),
  );
  // a duration text; kept through an edit (a PUT replaces every limit: one left out would fall back to the default)
  const ownRetention = t?.limits?.compactor_blocks_retention_period;
  const [retention, setRetention] = useState(ownRetention !== undefined && ownRetention !== props.retention ? ownRetention : "");
  const save = useAction(async () => {
    const body: Record<string, unknown> = { display_name: displayName, status, cluster };
    if (own) {
      const l: Record<string, number | string> = {};
      for (const n of LIMIT_NAMES) {
        const raw = limits[n]!.trim();
        if (raw === "") continue;
        const v = Number(raw);
        if (!Number.isInteger(v) || v < 0) throw new Error(`${LIMIT_LABELS[n]} (${n}) must be a whole number, 0 or more`);
        l[n] = v;
      }
      if (retention.trim() !== "") l.compactor_blocks_retention_period = retention.trim();
      body.limits = l;
    }
    if (t) await adminRequest(props.store, `/admin/api/v2/tenants/${encodeURIComponent(t.name)}`, { method: "PUT", body });
    else await adminRequest(props.store, "/admin/api/v2/tenants", { method: "POST", body: { name, ...body } });
    props.onSaved();
    props.onClose();
  });
  return (
    <FormDialog title={t ? `Edit tenant ${t.name}` : "New metrics tenant"} onClose={props.onClose} wide action={save} submitLabel={t ? "Save tenant" : "Create tenant"} errorBelow>
      <div class="form-grid">
        {!t && <TextField label="Tenant name" name="name" value={name} onInput={setName} required autoFocus hint="The X-Scope-OrgID clients send." />}
        <TextField label="Display name" name="display_name" value={displayName} onInput={setDisplayName} />
        <SelectField label="Status" name="status" value={status} onChange={setStatus} options={[["active", "active"], ["inactive", "inactive (writes and queries refused)"]]} />
        <TextField label="Cluster" name="cluster" value={cluster} onInput={setCluster} />
      </div>
      <fieldset class="limits">
        <legend>Limits</legend>
        <label class="check">
          <input type="checkbox" name="own_limits" checked={own} onChange={(e) => setOwn((e.target as HTMLInputElement).checked)} /> Set limits for this tenant
          through the admin API
        </label>
        <p class="hint">
          {own
            ? "Empty fields take the global default shown in grey. 0 turns a limit off."
            : "Without its own limits the tenant uses the runtime configuration file, or else the global defaults."}
        </p>
        {own && (
          <div class="form-grid">
            {LIMIT_NAMES.map((n) => (
              <TextField
                label={LIMIT_LABELS[n]}
                name={n}
                type="number"
                value={limits[n]!}
                placeholder={props.defaults[n] !== undefined ? String(props.defaults[n]) : "global default"}
                onInput={(v) => setLimits({ ...limits, [n]: v })}
                hint={<code>{n}</code>}
              />
            ))}
            <TextField
              label="Retention"
              name="compactor_blocks_retention_period"
              value={retention}
              placeholder={props.retention || "global default"}
              onInput={setRetention}
              hint={<><code>compactor_blocks_retention_period</code>: a duration such as 744h or 1y; 0s keeps everything</>}
            />
          </div>
        )}
      </fieldset>
    </FormDialog>
  );
}
