// Create or edit one data source (POST /api/datasources, PUT
// /api/datasources/uid/:uid with the version read), then test it (GET
// .../uid/:uid/health). Secrets are write-only: a configured password shows as
// "configured" and is sent only when the user resets or types it.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { Button, Confirm, Dialog, ErrorNote, Loaded, SelectField, TextField } from "../components/ui.tsx";
import { topology, type Topology } from "../lib/stores.ts";
import { api } from "../lib/api.ts";
import { useAction, useLoad } from "../lib/hooks.ts";

export interface DataSource {
  id: number;
  uid: string;
  name: string;
  type: string;
  access: string;
  url: string;
  user: string;
  database: string;
  basicAuth: boolean;
  basicAuthUser: string;
  withCredentials: boolean;
  isDefault: boolean;
  jsonData: Record<string, unknown> | null;
  secureJsonFields: Record<string, boolean>;
  version: number;
  readOnly: boolean;
}

interface Saved {
  datasource: DataSource;
  message: string;
}

interface Health {
  ok: boolean;
  message: string;
  afterSave: boolean;
}

const TYPES: [string, string][] = [
  ["loki", "Logs (bundled log store or Loki)"],
  ["prometheus", "Metrics (bundled metrics store or Prometheus)"],
];
const PORTS: Record<string, number> = { loki: 3100, prometheus: 9009 };
const placeholderOf = (type: string) => (PORTS[type] ? `http://127.0.0.1:${PORTS[type]}` : undefined);
/** the bundled stores of this Outpost (their real ports and schemes), as the server reaches them: the server queries a data source */
type DefaultUrls = (type: string) => string;
const bundledUrls = (t: Topology): DefaultUrls => (type) => (type === "prometheus" ? t.metrics.serverUrl : t.logs.serverUrl);
const BASIC_AUTH_HINT = "For Outpost's own stores in tokens mode: the tenant as user, an access policy token (Access page) as password.";
const pathOf = (uid: string) => `/api/datasources/uid/${encodeURIComponent(uid)}`;

/** the dialog: uid undefined creates a data source */
export function DataSourceDialog(props: { uid?: string | undefined; onClose: () => void; onChanged: () => void; onDeleted: () => void }) {
  const load = useLoad(
    async () => ({ ds: props.uid ? await api<DataSource>(pathOf(props.uid)) : null, defaults: bundledUrls(await topology()) }),
    [props.uid],
  );
  const [created, setCreated] = useState(false);
  const [deleting, setDeleting] = useState<DataSource | undefined>();
  return (
    <>
      <Dialog title={props.uid || created ? "Edit data source" : "New data source"} onClose={props.onClose} wide>
        <Loaded load={load} what="This data source">
          {({ ds, defaults }) => (
            <DataSourceForm
              initial={ds ?? undefined}
              defaultUrlOf={defaults}
              onSaved={() => {
                setCreated(true);
                props.onChanged();
              }}
              onDelete={setDeleting}
              onCancel={props.onClose}
            />
          )}
        </Loaded>
      </Dialog>
      {deleting && (
        <Confirm
          title={`Delete data source ${deleting.name}?`}
          body={<p>Dashboard panels and alert rules that query it stop working. The data in the store itself is not touched.</p>}
          confirmLabel="Delete data source"
          onConfirm={async () => {
            await api(pathOf(deleting.uid), { method: "DELETE" });
            props.onDeleted();
          }}
          onClose={() => setDeleting(undefined)}
        />
      )}
    </>
  );
}

function DataSourceForm(props: { initial: DataSource | undefined; defaultUrlOf: DefaultUrls; onSaved: (ds: DataSource) => void; onDelete: (ds: DataSource) => void; onCancel: () => void }) {
  const { defaultUrlOf } = props;
  const [saved, setSaved] = useState(props.initial);
  const [type, setType] = useState(props.initial?.type ?? "loki");
  const [name, setName] = useState(props.initial?.name ?? "");
  const [url, setUrl] = useState(props.initial?.url ?? defaultUrlOf("loki"));
  const [tenant, setTenant] = useState(typeof props.initial?.jsonData?.tenantId === "string" ? props.initial.jsonData.tenantId : "");
  const [isDefault, setIsDefault] = useState(props.initial?.isDefault ?? false);
  const [basicAuth, setBasicAuth] = useState(props.initial?.basicAuth ?? false);
  const [basicAuthUser, setUser] = useState(props.initial?.basicAuthUser ?? "");
  const [password, setPassword] = useState("");
  const [reset, setReset] = useState(false);
  const [health, setHealth] = useState<Health | undefined>();

  const readOnly = saved?.readOnly ?? false;
  const configured = saved?.secureJsonFields?.basicAuthPassword === true && !reset;

  const chooseType = (next: string) => {
    // a URL still at the previous type's default follows the type
    if (!url.trim() || url === defaultUrlOf(type)) setUrl(defaultUrlOf(next));
    setType(next);
  };

  const test = async (uid: string, afterSave: boolean) => {
    try {
      const h = await api<{ status: string; message: string }>(`${pathOf(uid)}/health`);
      setHealth({ ok: h.status === "OK", message: h.message, afterSave });
    } catch (err) {
      // an unhealthy data source is a 400 whose message is the check's
      setHealth({ ok: false, message: (err as Error).message, afterSave });
    }
  };

  const save = useAction(async () => {
    setHealth(undefined);
    const jsonData: Record<string, unknown> = { ...(saved?.jsonData ?? {}) };
    if (tenant.trim()) jsonData.tenantId = tenant.trim();
    else delete jsonData.tenantId;
    const common = { name: name.trim(), url: url.trim(), basicAuth, basicAuthUser, isDefault, jsonData };
    const body: Record<string, unknown> = saved
      ? { ...common, type: saved.type, access: saved.access, user: saved.user, database: saved.database, withCredentials: saved.withCredentials, version: saved.version }
      : { ...common, type, access: "proxy" };
    // not sent: the configured secret is kept; "" after a reset clears it
    const secret = configured ? undefined : reset ? password : password || undefined;
    if (secret !== undefined) body.secureJsonData = { basicAuthPassword: secret };
    const r = saved
      ? await api<Saved>(pathOf(saved.uid), { method: "PUT", body })
      : await api<Saved>("/api/datasources", { method: "POST", body });
    setSaved(r.datasource);
    setPassword("");
    setReset(false);
    props.onSaved(r.datasource);
    await test(r.datasource.uid, true);
  });

  const testOnly = useAction(async () => {
    setHealth(undefined);
    if (saved) await test(saved.uid, false);
  });

  const builtIn = PORTS[saved?.type ?? type] !== undefined;
  return (
    <form
      class="form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!readOnly) void save.run();
      }}
    >
      {readOnly && (
        <p class="alert info">
          This data source is provisioned from the config file (its <code>datasources</code> block) and is read-only here. Change it in the config file; Outpost
          applies it at startup.
        </p>
      )}
      <ErrorNote error={save.error} />
      {saved ? (
        <p class="muted">
          Type <code>{saved.type}</code>
          {!builtIn && " (only the common fields are edited here; the others are kept)"} · uid <code>{saved.uid}</code>
        </p>
      ) : (
        <SelectField label="Type" name="type" value={type} onChange={chooseType} options={TYPES} />
      )}
      <div class="form-grid">
        <TextField label="Name" name="name" value={name} onInput={setName} required disabled={readOnly} autoComplete="off" autoFocus={!saved} />
        <TextField label="URL" name="url" value={url} onInput={setUrl} placeholder={placeholderOf(saved?.type ?? type)} disabled={readOnly} autoComplete="off" />
        <TextField
          label="Tenant"
          name="tenantId"
          value={tenant}
          onInput={setTenant}
          disabled={readOnly}
          autoComplete="off"
          hint={<>Sent as <code>X-Scope-OrgID</code>; leave empty for a single-tenant store.</>}
        />
      </div>
      <CheckField label="Default" name="isDefault" checked={isDefault} onChange={setIsDefault} disabled={readOnly} hint="Used when a query names no data source." />
      <CheckField label="Basic auth" name="basicAuth" checked={basicAuth} onChange={setBasicAuth} disabled={readOnly} hint={BASIC_AUTH_HINT} />
      <div class="form-grid">
        <TextField label="User" name="basicAuthUser" value={basicAuthUser} onInput={setUser} disabled={readOnly} autoComplete="off" />
        {configured ? (
          <div class="field">
            <span style={{ fontWeight: 560, fontSize: "0.9rem" }}>Password</span>
            <div class="secret">
              <span>configured</span>
              <Button disabled={readOnly} onClick={() => setReset(true)}>Reset</Button>
            </div>
          </div>
        ) : (
          <TextField
            label="Password"
            name="basicAuthPassword"
            type="password"
            value={password}
            onInput={setPassword}
            disabled={readOnly}
            autoComplete="new-password"
            autoFocus={reset}
            hint={reset ? <ResetHint onUndo={() => { setReset(false); setPassword(""); }} /> : "Stored encrypted; it is never shown again."}
          />
        )}
      </div>
      {health && (
        <p class={`alert ${health.ok ? "ok" : "error"}`} role="status">
          <strong>{health.afterSave ? (health.ok ? "Saved and tested: " : "Saved, but the test failed: ") : health.ok ? "Test passed: " : "Test failed: "}</strong>
          {health.message}
        </p>
      )}
      <div class="form-actions">
        {saved && !readOnly && (
          <Button kind="danger" onClick={() => props.onDelete(saved)}>Delete</Button>
        )}
        <Button onClick={props.onCancel}>Cancel</Button>
        {readOnly ? (
          <Button kind="primary" pending={testOnly.pending} onClick={() => void testOnly.run()}>Test</Button>
        ) : (
          <Button kind="primary" type="submit" pending={save.pending}>Save &amp; test</Button>
        )}
      </div>
    </form>
  );
}

function ResetHint(props: { onUndo: () => void }) {
  return (
    <>
      The configured password is removed on save unless you type a new one.{" "}
      <Button onClick={props.onUndo}>Keep configured password</Button>
    </>
  );
}

function CheckField(props: { label: string; name: string; checked: boolean; onChange: (v: boolean) => void; disabled?: boolean; hint?: ComponentChildren }) {
  return (
    <div>
      <label class="check">
        <input type="checkbox" name={props.name} checked={props.checked} disabled={props.disabled} onChange={(e) => props.onChange((e.target as HTMLInputElement).checked)} />{" "}
        {props.label}
      </label>
      {props.hint && <p class="hint">{props.hint}</p>}
    </div>
  );
}
