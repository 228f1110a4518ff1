// Authentication (/authentication, server administrators): how users sign in.
// The providers' settings from GET /api/admin/settings (the `auth` and
// `security` sections, secrets masked by the server), what the sign-in page
// offers (GET /api/login/options), and the real product's LDAP debug view:
// each server's reachability (GET /api/admin/ldap/status), a user's mapping
// (GET /api/admin/ldap/:username), syncing one user (POST
// /api/admin/ldap/sync/:id) and reading ldap.toml again (POST
// /api/admin/ldap/reload). With LDAP off the debug API answers 400 "LDAP is
// not enabled", which the page says plainly.
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { ActionForm } from "../components/form-dialog.tsx";
import { DataTable } from "../components/data-table.tsx";
import { Badge, Button, Empty, ErrorNote, Loaded, Loading, PageHeader, TextField } from "../components/ui.tsx";
import { api, ApiFailure, query } from "../lib/api.ts";
import { useAction, useLoad } from "../lib/hooks.ts";
import { useSession } from "../lib/session.ts";
import type { Settings } from "../lib/stores.ts";

interface LoginOptions {
  passwordLogin: boolean;
  oauth: Record<string, { name: string; url: string; autoLogin?: boolean }>;
}

interface LdapServerStatus {
  host: string;
  port: number;
  available: boolean;
  error: string;
}

interface LdapAttribute {
  cfgAttrValue: string;
  ldapValue: string;
}

interface LdapUser {
  name: LdapAttribute;
  surname: LdapAttribute;
  email: LdapAttribute;
  login: LdapAttribute;
  isGrafanaAdmin: boolean | null;
  isDisabled: boolean;
  roles: Array<{ orgId: number; orgName: string; orgRole: string; groupDN: string }>;
  teams: Array<{ teamName: string; orgName: string; groupDN: string }>;
}

interface LocalUser {
  id: number;
  login: string;
  authLabels?: string[];
}

const NOT_ENABLED = "LDAP is not enabled";

export function AuthenticationPage() {
  const serverAdmin = useSession().user.isSvcAdmin;
  return (
    <section>
      <PageHeader title="Authentication" description="How users sign in: the configured providers, the second factor, and LDAP's connection and user mapping checks." />
      {serverAdmin ? <Authentication /> : <p class="alert info">The sign-in configuration is for server administrators.</p>}
    </section>
  );
}

function Authentication() {
  const settings = useLoad(() => api<Settings>("/api/admin/settings"));
  const options = useLoad(() => api<LoginOptions>("/api/login/options"));
  return (
    <Loaded load={settings} what="The authentication settings">
      {(s) => {
        const auth = s.auth ?? {};
        const security = s.security ?? {};
        return (
          <>
            <div class="grid two">
              <SignInCard auth={auth} security={security} options={options.data} />
              <OidcCard auth={auth} />
            </div>
            <LdapSection auth={auth} />
          </>
        );
      }}
    </Loaded>
  );
}

const on = (v: string | undefined) => v === "true";
const list = (v: string | undefined) => (v ? v.split(",").map((x) => x.trim()).filter(Boolean) : []);

function State(props: { enabled: boolean; off?: string }) {
  return props.enabled ? <Badge tone="ok">enabled</Badge> : <Badge>{props.off ?? "not enabled"}</Badge>;
}

/** a fact's value, or a muted dash when it is empty */
function Value(props: { children: ComponentChildren }) {
  const empty = props.children === "" || props.children === undefined || (Array.isArray(props.children) && props.children.length === 0);
  return <dd>{empty ? <span class="muted">–</span> : props.children}</dd>;
}

function Facts(props: { label: string; rows: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="facts" aria-label={props.label}>
      {props.rows.map(([k, v]) => (
        <>
          <dt>{k}</dt>
          <Value>{v}</Value>
        </>
      ))}
    </dl>
  );
}

function SignInCard(props: { auth: Record<string, string>; security: Record<string, string>; options: LoginOptions | undefined }) {
  const { auth, security, options } = props;
  const totp = on(security.totp_enabled);
  return (
    <section class="card" aria-labelledby="auth-sign-in">
      <div class="card-head"><h2 id="auth-sign-in">Sign-in and second factor</h2></div>
      <Facts
        label="Sign-in settings"
        rows={[
          ["Password sign-in", options ? <State enabled={options.passwordLogin} off="turned off" /> : ""],
          ["LDAP", <State enabled={on(auth["ldap.enabled"])} />],
          ["OpenID Connect", <State enabled={on(auth["generic_oauth.enabled"])} />],
          ["Two-factor (TOTP)", <State enabled={totp} off="turned off" />],
          ["Required for administrators", on(security.totp_required_for_admins) ? <Badge tone="ok">required</Badge> : <Badge>not required</Badge>],
        ]}
      />
      <p class="muted small">
        {totp
          ? "Local users can enrol an authenticator app on their Change password page; LDAP and OpenID Connect users use their provider's own second factor."
          : "security.totp_enabled is off: no new enrolments; second factors already enabled stay in force."}
      </p>
    </section>
  );
}

function OidcCard(props: { auth: Record<string, string> }) {
  const a = (k: string) => props.auth[`generic_oauth.${k}`] ?? "";
  const enabled = on(a("enabled"));
  return (
    <section class="card" aria-labelledby="auth-oidc">
      <div class="card-head">
        <h2 id="auth-oidc">OpenID Connect</h2>
        <State enabled={enabled} />
      </div>
      {!enabled ? (
        <p class="muted">Turn it on with <code>auth.generic_oauth.enabled</code>, a client id and the provider's issuer (see docs/authentication.md).</p>
      ) : (
        <Facts
          label="OpenID Connect settings"
          rows={[
            ["Name", a("name")],
            ["Issuer", a("issuer") || (a("auth_url") && `${a("auth_url")} (no discovery)`)],
            ["Client id", a("client_id")],
            ["Client secret", a("client_secret") || a("client_secret_file") ? "configured" : "none (public client)"],
            ["Scopes", list(a("scopes")).join(" ")],
            ["Allowed domains", list(a("allowed_domains")).join(", ") || "any"],
            ["Allowed groups", list(a("allowed_groups")).join(", ") || "any"],
            ["Role attribute path", a("role_attribute_path") ? <code>{a("role_attribute_path")}</code> : "none: Viewer"],
            ["Groups attribute path", a("groups_attribute_path") ? <code>{a("groups_attribute_path")}</code> : ""],
            ["Sign-up", on(a("allow_sign_up")) ? "new users are created" : "known users only"],
            ["Automatic sign-in", on(a("auto_login")) ? "yes" : "no"],
          ]}
        />
      )}
    </section>
  );
}

function LdapSection(props: { auth: Record<string, string> }) {
  const a = (k: string) => props.auth[`ldap.${k}`] ?? "";
  const enabled = on(a("enabled"));
  return (
    <section class="card" aria-labelledby="auth-ldap">
      <div class="card-head">
        <h2 id="auth-ldap">LDAP</h2>
        <State enabled={enabled} />
      </div>
      <Facts
        label="LDAP settings"
        rows={[
          ["Configuration file", a("config_file") ? <code>{a("config_file")}</code> : ""],
          ["Sign-up", on(a("allow_sign_up")) ? "new users are created at their first sign-in" : "known users only"],
          ["Organization roles", on(a("skip_org_role_sync")) ? "set by hand (skip_org_role_sync)" : "from the group mappings at every sign-in"],
        ]}
      />
      {enabled ? (
        <LdapDebug />
      ) : (
        <p class="alert info" role="status">{NOT_ENABLED} on this server: <code>auth.ldap.enabled</code> turns it on.</p>
      )}
    </section>
  );
}

/** the API's own "LDAP is not enabled" (400) told as a state, not as an error */
function LdapError(props: { error: Error | undefined; what: string }) {
  if (props.error instanceof ApiFailure && props.error.status === 400 && props.error.message === NOT_ENABLED) {
    return <p class="alert info" role="status">{NOT_ENABLED} on this server.</p>;
  }
  return <ErrorNote error={props.error} what={props.what} />;
}

function LdapDebug() {
  const status = useLoad(() => api<LdapServerStatus[]>("/api/admin/ldap/status"));
  const [reloaded, setReloaded] = useState("");
  const reload = useAction(async () => {
    setReloaded("");
    const r = await api<{ message: string }>("/api/admin/ldap/reload", { method: "POST" });
    setReloaded(r.message);
    status.reload();
  });
  return (
    <>
      <div class="toolbar">
        <h3>Servers</h3>
        <div class="actions">
          <Button onClick={status.reload} pending={status.loading}>Test connection</Button>
          <Button onClick={() => void reload.run()} pending={reload.pending}>Reload configuration</Button>
        </div>
      </div>
      {reloaded && <p class="alert ok" role="status">{reloaded}.</p>}
      <LdapError error={reload.error} what="Reloading the LDAP configuration" />
      {status.error ? (
        <LdapError error={status.error} what="The LDAP status" />
      ) : status.data === undefined ? (
        <Loading label="Asking the LDAP servers…" />
      ) : status.data.length === 0 ? (
        <Empty>The configuration file lists no servers.</Empty>
      ) : (
        <DataTable caption="LDAP servers" columns={["Host", { label: "Port", class: "num" }, "State", "Error"]}>
          {status.data.map((s) => (
            <tr key={`${s.host}:${s.port}`}>
              <th scope="row">{s.host}</th>
              <td class="num">{s.port}</td>
              <td>{s.available ? <Badge tone="ok">reachable</Badge> : <Badge tone="bad">unreachable</Badge>}</td>
              <td class="small">{s.error || <span class="muted">–</span>}</td>
            </tr>
          ))}
        </DataTable>
      )}
      <UserMapping />
    </>
  );
}

function UserMapping() {
  const [username, setUsername] = useState("");
  const [result, setResult] = useState<{ username: string; user: LdapUser; local: LocalUser | undefined }>();
  const test = useAction(async () => {
    const name = username.trim();
    if (!name) throw new Error("enter a user name");
    setResult(undefined);
    const user = await api<LdapUser>(`/api/admin/ldap/${encodeURIComponent(name)}`).catch((err: unknown) => {
      // "No user was found in the LDAP server(s) with that username" is an answer, not a missing API
      throw err instanceof ApiFailure && err.status === 404 && /LDAP/.test(err.message) ? new Error(err.message) : err;
    });
    // a local user of that login: the one "Sync user" updates
    const local = await api<LocalUser>(`/api/users/lookup${query({ loginOrEmail: user.login.ldapValue || name })}`).catch((err: unknown) => {
      if (err instanceof ApiFailure && err.status === 404) return undefined;
      throw err;
    });
    setResult({ username: name, user, local });
  });
  return (
    <>
      <h3>Test user mapping</h3>
      <p class="muted small">Looks the user up in the directory (without a password) and shows what the configuration makes of it: attributes, organization roles and teams.</p>
      <ActionForm action={{ ...test, error: undefined }} submitLabel="Test user mapping" class="narrow">
        <TextField label="LDAP user name" name="ldap-username" value={username} onInput={setUsername} required autoComplete="off" />
      </ActionForm>
      <LdapError error={test.error} what="The user lookup" />
      {result && <MappingResult key={result.username} {...result} />}
    </>
  );
}

function MappingResult(props: { username: string; user: LdapUser; local: LocalUser | undefined }) {
  const { user, local } = props;
  const [synced, setSynced] = useState("");
  const sync = useAction(async () => {
    setSynced("");
    const r = await api<{ message: string }>(`/api/admin/ldap/sync/${local!.id}`, { method: "POST" });
    setSynced(r.message);
  });
  const attr = (a: LdapAttribute) => (
    <>
      {a.ldapValue || <span class="muted">–</span>} <span class="muted small">({a.cfgAttrValue})</span>
    </>
  );
  const mapped = user.roles.filter((r) => r.orgRole);
  const unmapped = user.roles.filter((r) => !r.orgRole);
  return (
    <section aria-label={`LDAP mapping of ${props.username}`} class="ldap-mapping">
      <h4>Attributes of {user.login.ldapValue || props.username}</h4>
      <Facts
        label="LDAP attributes"
        rows={[
          ["Name", attr(user.name)],
          ["Surname", attr(user.surname)],
          ["Email", attr(user.email)],
          ["Login", attr(user.login)],
          ["Server admin", user.isGrafanaAdmin === null ? "left as it is" : user.isGrafanaAdmin ? "yes" : "no"],
          ["Local user", local ? <>{local.login} {(local.authLabels ?? []).map((l) => <Badge>{l}</Badge>)}</> : "none yet: created at the first sign-in when sign-up is allowed"],
        ]}
      />
      <h4>Organization roles</h4>
      {mapped.length === 0 ? (
        <p class="alert warn">No group mapping matches this user: the sign-in is refused.</p>
      ) : (
        <DataTable caption="Organization roles from the group mappings" columns={["Organization", "Role", "Group"]}>
          {mapped.map((r) => (
            <tr>
              <td>{r.orgName || `organization ${r.orgId}`}</td>
              <td>{r.orgRole}</td>
              <td class="small"><code>{r.groupDN}</code></td>
            </tr>
          ))}
        </DataTable>
      )}
      {unmapped.length > 0 && (
        <p class="muted small">Other groups (no mapping): {unmapped.map((r) => r.groupDN).join("; ")}</p>
      )}
      <h4>Teams</h4>
      {user.teams.length === 0 ? (
        <Empty>No team's external groups match this user's groups.</Empty>
      ) : (
        <DataTable caption="Teams team sync would join" columns={["Team", "Organization", "Group"]}>
          {user.teams.map((t) => (
            <tr>
              <td>{t.teamName}</td>
              <td>{t.orgName}</td>
              <td class="small"><code>{t.groupDN}</code></td>
            </tr>
          ))}
        </DataTable>
      )}
      {local && (
        <div class="form-actions">
          <Button kind="primary" pending={sync.pending} onClick={() => void sync.run()}>Sync user</Button>
        </div>
      )}
      {synced && <p class="alert ok" role="status">{synced}.</p>}
      <ErrorNote error={sync.error} what="Syncing the user" />
    </section>
  );
}
