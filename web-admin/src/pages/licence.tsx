// The enterprise licence (/licence): whether a valid licence is installed
// (GET /api/licensing/check), what the server's settings say about it
// (licenseInfo), and installing (POST /api/licensing/token), re-checking
// (POST /api/licensing/token/renew) and removing (DELETE /api/licensing/token)
// the token. These endpoints answer only a server administrator signed in
// with a password; a 403 shows the server's reason.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { DataTable } from "../components/data-table.tsx";
import { ActionForm } from "../components/form-dialog.tsx";
import { Badge, Button, Confirm, ErrorNote, Field, Loaded, PageHeader, TextField } from "../components/ui.tsx";
import { api } from "../lib/api.ts";
import { dateTime } from "../lib/format.ts";
import { useAction, useLoad } from "../lib/hooks.ts";
import { editionOf, useSession } from "../lib/session.ts";

/** readable names of the licence object's fields (core/licence.ts LICENCE_FIELDS) and of the settings' licenseInfo */
const LABELS: Record<string, string> = {
  status: "Status",
  hasLicense: "Licence installed",
  hasValidLicense: "Valid licence",
  stateInfo: "State",
  edition: "Edition",
  company: "Company",
  account: "Account",
  slug: "Account slug",
  prod: "Products",
  products: "Products",
  sub: "Instance URL (subject)",
  appSubUrl: "Instance sub-path",
  included_users: "Licensed users",
  limit_by: "Limited by",
  max_concurrent_user_sessions: "Concurrent sessions per user",
  anonymousRatio: "Anonymous users per licensed user",
  lexp: "Licence expires",
  exp: "Token expires",
  expiry: "Expires",
  nbf: "Valid from",
  iat: "Issued",
  trial: "Trial",
  trial_exp: "Trial ends",
  trialExpiry: "Trial ends",
  usage_billing: "Usage billing",
  lic_exp_warn_days: "Warn before the licence expires (days)",
  tok_exp_warn_days: "Warn before the token expires (days)",
  update_days: "Token update interval (days)",
  lid: "Licence ID",
  jti: "Token ID",
  iss: "Issuer",
  details_url: "Details",
  licenseUrl: "Licence page",
  appUrl: "Instance URL",
  enabledFeatures: "Enabled features",
  valid: "Valid",
  checkedAt: "Checked at",
};
const ORDER = Object.keys(LABELS);
/** epoch seconds; 0 means "not set" */
const EPOCH_FIELDS = new Set(["lexp", "exp", "expiry", "nbf", "iat", "trial_exp", "trialExpiry"]);
const TIME_FIELDS = new Set(["checkedAt"]);

function show(key: string, value: unknown): ComponentChildren {
  if (value === null || value === undefined || value === "") return <span class="muted">–</span>;
  if (key === "status" && typeof value === "number") return value === 1 ? <Badge tone="ok">valid</Badge> : <Badge tone="bad">not valid ({value})</Badge>;
  if (EPOCH_FIELDS.has(key) && typeof value === "number") return value > 0 ? dateTime(new Date(value * 1000).toISOString()) : <span class="muted">not set</span>;
  if (TIME_FIELDS.has(key) && typeof value === "string") return dateTime(value);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (typeof value === "string" && /^https?:\/\//.test(value)) return <a href={value} rel="noreferrer noopener" target="_blank">{value}</a>;
  if (Array.isArray(value)) return value.length ? value.map(String).join(", ") : <span class="muted">none</span>;
  if (typeof value === "object") {
    const on = Object.entries(value as Record<string, unknown>);
    if (on.every(([, v]) => typeof v === "boolean")) return on.filter(([, v]) => v).map(([k]) => k).join(", ") || <span class="muted">none</span>;
    return <code>{JSON.stringify(value)}</code>;
  }
  return String(value);
}

function LicenceFields(props: { licence: Record<string, unknown>; caption: string }) {
  const keys = Object.keys(props.licence).sort((a, b) => rank(a) - rank(b));
  return (
    <DataTable caption={props.caption}>
      {keys.map((k) => (
        <tr key={k}>
          <th scope="row">{LABELS[k] ?? k}</th>
          <td>{show(k, props.licence[k])}</td>
        </tr>
      ))}
    </DataTable>
  );
}

function rank(key: string): number {
  const i = ORDER.indexOf(key);
  return i < 0 ? ORDER.length : i;
}

export function LicencePage() {
  const session = useSession();
  const check = useLoad(() => api<boolean>("/api/licensing/check"), []);
  const [token, setToken] = useState("");
  const [result, setResult] = useState<{ title: string; licence: Record<string, unknown> }>();
  const [notice, setNotice] = useState("");
  const [removing, setRemoving] = useState(false);
  const [instance, setInstance] = useState("");
  const hint = `${location.origin}/`;
  // the server's own root URL (licenseInfo.appUrl) is what the removal is checked against
  const appUrl = session.settings.licenseInfo?.appUrl;
  const instanceUrl = typeof appUrl === "string" && appUrl ? appUrl : hint;

  const install = useAction(async () => {
    const licence = await api<Record<string, unknown>>("/api/licensing/token", { method: "POST", body: { token: token.trim() } });
    setToken("");
    setResult({ title: "Installed licence", licence });
    setNotice("Licence installed.");
    check.reload();
    await session.refresh();
  });
  const renew = useAction(async () => {
    const licence = await api<Record<string, unknown>>("/api/licensing/token/renew", { method: "POST", body: {} });
    setResult({ title: "Result of the check", licence });
    setNotice("The installed licence token is valid.");
    check.reload();
  });
  const start = () => {
    setNotice("");
    install.clearError();
    renew.clearError();
  };
  const info = session.settings.licenseInfo;

  return (
    <section>
      <PageHeader title="Licence" description="The enterprise licence of this Outpost: its state, and installing, checking or removing the licence token." />
      {editionOf(session) !== "enterprise" && <p class="alert info">Licensing is part of the enterprise edition; this server runs the {editionOf(session)} edition.</p>}
      <p class="hint">Changing the licence needs a server administrator signed in with a password (not a service account token).</p>
      {notice && <p class="alert ok" role="status">{notice}</p>}

      <div class="card">
        <h2>State</h2>
        <Loaded load={check} what="The licence check">
          {(valid) => (
            <p>
              {valid ? <Badge tone="ok">valid licence installed</Badge> : <Badge tone="bad">no valid licence</Badge>}{" "}
              {valid ? "A valid licence token is installed." : "No valid licence token is installed."}
            </p>
          )}
        </Loaded>
        <div class="form-actions">
          <Button pending={renew.pending} onClick={() => { start(); void renew.run(); }}>Check again</Button>
          <Button kind="danger" onClick={() => { start(); setInstance(""); setRemoving(true); }}>Remove licence</Button>
        </div>
        <ErrorNote error={renew.error} what="Checking the licence" />
      </div>

      {result && (
        <div class="card">
          <h2>{result.title}</h2>
          <LicenceFields licence={result.licence} caption={result.title} />
        </div>
      )}

      <div class="card">
        <h2>Licence information</h2>
        {info && Object.keys(info).length > 0 ? (
          <LicenceFields licence={info} caption="Licence information from the server's settings" />
        ) : (
          <p class="muted">The server's settings carry no licence information.</p>
        )}
      </div>

      <ActionForm
        class="card"
        action={{ ...install, run: () => { start(); return install.run(); } }}
        submitLabel="Install licence"
        head={<h2>Upload a licence token</h2>}
        what="Installing a licence"
      >
        <Field label="Licence token" hint="Paste the licence token (a JWT) issued for this instance. It replaces the installed one." wide>
          {(id) => (
            <textarea
              id={id}
              name="token"
              rows={6}
              required
              spellcheck={false}
              autoComplete="off"
              value={token}
              onInput={(e) => setToken((e.target as HTMLTextAreaElement).value)}
            />
          )}
        </Field>
      </ActionForm>

      {removing && (
        <Confirm
          title="Remove licence"
          body={
            <>
              <p>Removing the licence token turns off the enterprise features that need it. To confirm, type this instance's URL.</p>
              <TextField label="Instance URL" name="instance" value={instance} onInput={setInstance} placeholder={hint} hint={<>This instance: <code>{instanceUrl}</code></>} autoComplete="off" />
            </>
          }
          confirmLabel="Remove licence"
          onConfirm={async () => {
            await api("/api/licensing/token", { method: "DELETE", body: { instance: instance.trim() } });
            setResult(undefined);
            setNotice("Licence removed.");
            check.reload();
            await session.refresh();
          }}
          onClose={() => setRemoving(false)}
        />
      )}
    </section>
  );
}
