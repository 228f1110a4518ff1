// OpenID Connect sign-in (auth.generic_oauth) against a real OpenID provider
// (oidc-provider, started here on 127.0.0.1: discovery, code flow with PKCE
// required, ID token, userinfo, RP-initiated logout), driven over HTTP as a
// browser would (cookies kept, redirects walked, the provider's login form
// posted). docs/authentication.md, "OpenID Connect".
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, client } from "../../../helpers/api.ts";
import { freePort } from "../../../helpers/browser.ts";
import { browse, CookieJar, follow, signInAtProvider, startOidcProvider, type OidcProvider } from "../../../helpers/oidc.ts";
import { startTestServer, type TestServer } from "../../../helpers/server.ts";

const ACCOUNTS = {
  alice: { email: "alice@example.com", name: "Alice Admin", groups: ["admins", "sre"] },
  root: { email: "root@example.com", name: "Root", groups: ["root", "staff"] },
  vic: { email: "vic@example.com", name: "Vic Viewer", groups: ["staff"] },
  eve: { email: "eve@evil.test", name: "Eve", groups: ["admins"] },
  otto: { email: "otto@example.com", name: "Otto Outsider", groups: ["other"] },
  nora: { email: "nora@example.com", name: "Nora No-role", groups: ["contractors"] },
  carol: { email: "carol@example.com", name: "Carol Copy", groups: ["staff"] },
};

const ROLE_PATH = "contains(groups[*], 'root') && 'GrafanaAdmin' || contains(groups[*], 'admins') && 'Admin' || contains(groups[*], 'staff') && 'Viewer'";

describe("OpenID Connect sign-in against oidc-provider", () => {
  let provider: OidcProvider;
  let server: TestServer;
  let base = "";
  /** a second server whose client sends no PKCE (use_pkce off), for the nonce test */
  let noPkcePort = 0;
  const api = () => client(base);

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    noPkcePort = await freePort();
    provider = await startOidcProvider(await freePort(), [{
      client_id: "outpost", client_secret: "outpost-client-secret",
      redirect_uris: [`${base}/login/generic_oauth`], post_logout_redirect_uris: [`${base}/`],
    }, {
      client_id: "no-pkce", client_secret: "no-pkce-client-secret",
      redirect_uris: [`http://127.0.0.1:${noPkcePort}/login/generic_oauth`], post_logout_redirect_uris: [],
    }], ACCOUNTS);
    server = await startTestServer({
      "server.edition": "enterprise",
      "dashboard.http_port": port,
      "dashboard.root_url": `${base}/`,
      "auth.generic_oauth.enabled": true,
      "auth.generic_oauth.name": "Keycloak",
      "auth.generic_oauth.client_id": "outpost",
      "auth.generic_oauth.client_secret": "outpost-client-secret",
      "auth.generic_oauth.issuer": provider.issuer,
      "auth.generic_oauth.role_attribute_path": ROLE_PATH,
      "auth.generic_oauth.role_attribute_strict": true,
      "auth.generic_oauth.allow_assign_grafana_admin": true,
      "auth.generic_oauth.groups_attribute_path": "groups",
      "auth.generic_oauth.allowed_domains": ["example.com"],
      "auth.generic_oauth.allowed_groups": ["admins", "staff", "root", "contractors"],
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
  });

  /** the whole flow for an account: where Outpost's callback sent the browser, and the jar */
  const signIn = async (login: string) => {
    const jar = new CookieJar();
    const callback = await signInAtProvider(jar, base, provider.issuer, login);
    const res = await browse(jar, callback);
    await res.body?.cancel();
    return { jar, callback, status: res.status, location: res.headers.get("Location") ?? "" };
  };
  const sessionGet = (jar: CookieJar, path: string) => api().get(path, { headers: { Cookie: jar.header(base) } });
  const errorOf = (location: string) => new URL(location, base).searchParams.get("error") ?? "";

  it("the sign-in page learns of the provider, without secrets", async () => {
    const r = await api().get("/api/login/options");
    expect(r.status).toBe(200);
    expect(r.body.oauth).toEqual({ generic_oauth: { name: "Keycloak", url: "/login/generic_oauth", autoLogin: false } });
    expect(JSON.stringify(r.body)).not.toContain("outpost-client-secret");
    const settings = await api().get("/api/admin/settings", { auth: ADMIN });
    expect(JSON.stringify(settings.body)).not.toContain("outpost-client-secret");
    expect(server.logs.map((l) => JSON.stringify(l)).join("\n")).not.toContain("outpost-client-secret");
  });

  it("the start sets a short-lived HttpOnly, SameSite=Lax cookie and sends the browser to the provider with PKCE, state and nonce", async () => {
    const res = await fetch(`${base}/login/generic_oauth`, { redirect: "manual" });
    expect(res.status).toBe(302);
    const to = new URL(res.headers.get("Location")!);
    expect(to.origin).toBe(provider.issuer);
    expect(to.searchParams.get("code_challenge_method")).toBe("S256");
    for (const p of ["code_challenge", "state", "nonce"]) expect(to.searchParams.get(p)).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(to.searchParams.get("redirect_uri")).toBe(`${base}/login/generic_oauth`);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("svc_oauth_flow="))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
    expect(cookie).toMatch(/Path=\/login\/generic_oauth/i);
  });

  it("the full code flow ends in a session with the role from role_attribute_path and teams from the groups claim", async () => {
    const team = await api().post("/api/teams", { auth: ADMIN, body: { name: "SRE" } });
    expect(team.status).toBe(200);
    const teamId = team.body.teamId as number;
    expect((await api().post(`/api/teams/${teamId}/groups`, { auth: ADMIN, body: { groupId: "sre" } })).status).toBe(200);

    const { jar, status, location } = await signIn("alice");
    expect(status).toBe(302);
    expect(location).toBe("/");
    const me = await sessionGet(jar, "/api/user");
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ login: "alice@example.com", email: "alice@example.com", name: "Alice Admin", isSvcAdmin: false });
    const orgs = await sessionGet(jar, "/api/user/orgs");
    expect(orgs.body).toEqual([expect.objectContaining({ orgId: 1, role: "Admin" })]);
    const members = await api().get(`/api/teams/${teamId}/members`, { auth: ADMIN });
    expect(members.body).toEqual([expect.objectContaining({ login: "alice@example.com", auth_module: "oauth_generic_oauth", labels: ["OAuth"] })]);
    // no second factor is asked of a provider's user; the ID token is kept sealed only
    const sealed = await server.db.pg.query<{ owner: string; sealed: string }>("select owner, sealed from secrets where owner like 'oauth-session:%'");
    expect(sealed.rows.length).toBeGreaterThan(0);
    expect(sealed.rows.every((r) => !r.sealed.startsWith("eyJ"))).toBe(true);

    // a second sign-in finds the same user (linked by the subject) and keeps the team
    const again = await signIn("alice");
    expect(again.location).toBe("/");
    const users = await api().get("/api/users/search?query=alice", { auth: ADMIN });
    expect(users.body.totalCount).toBe(1);
    expect(users.body.users[0].authLabels).toEqual(["OAuth"]);
  }, 60_000);

  it("GrafanaAdmin from role_attribute_path makes a server admin (allow_assign_grafana_admin)", async () => {
    const { jar, location } = await signIn("root");
    expect(location).toBe("/");
    expect((await sessionGet(jar, "/api/user")).body).toMatchObject({ login: "root@example.com", isSvcAdmin: true });
  }, 60_000);

  it("refuses an email domain not in allowed_domains", async () => {
    const { jar, location } = await signIn("eve");
    expect(location.startsWith("/login?error=")).toBe(true);
    expect(errorOf(location)).toMatch(/email domain/i);
    expect(jar.get(base, "svc_session")).toBeUndefined();
  }, 60_000);

  it("refuses a user in none of allowed_groups", async () => {
    const { location } = await signIn("otto");
    expect(errorOf(location)).toBe("User not a member of one of the required groups");
  }, 60_000);

  it("role_attribute_strict: no role from role_attribute_path is refused", async () => {
    const { location } = await signIn("nora");
    expect(errorOf(location)).toMatch(/did not give a valid role/);
    expect((await api().get("/api/users/search?query=nora", { auth: ADMIN })).body.totalCount).toBe(0);
  }, 60_000);

  it("an existing local user with the same email is not taken over (oauth_allow_insecure_email_lookup off)", async () => {
    const created = await api().post("/api/admin/users", { auth: ADMIN, body: { login: "carol", email: "carol@example.com", name: "Carol", password: "carol-secret-1" } });
    expect(created.status).toBe(200);
    const { location } = await signIn("carol");
    expect(errorOf(location)).toMatch(/exists already/);
    const users = await api().get("/api/users/search?query=carol", { auth: ADMIN });
    expect(users.body.users).toEqual([expect.objectContaining({ login: "carol", authLabels: [] })]);
  }, 60_000);

  it("a tampered state is refused", async () => {
    const jar = new CookieJar();
    const callback = new URL(await signInAtProvider(jar, base, provider.issuer, "vic"));
    callback.searchParams.set("state", "forged-state-value-0123456789");
    const res = await browse(jar, callback.href);
    expect(errorOf(res.headers.get("Location") ?? "")).toMatch(/state does not match/);
    expect(jar.get(base, "svc_session")).toBeUndefined();
  }, 60_000);

  it("a replayed callback is refused (single use), and a code redeemed with another flow's PKCE verifier is refused", async () => {
    const jar = new CookieJar();
    const callback = await signInAtProvider(jar, base, provider.issuer, "vic");
    const flowCookie = jar.get(base, "svc_oauth_flow")!;
    const first = await browse(jar, callback);
    expect(first.headers.get("Location")).toBe("/");
    // the same callback again, with the flow's cookie put back: the flow is spent
    const replayJar = new CookieJar();
    replayJar.set(base, "svc_oauth_flow", flowCookie);
    const replay = await browse(replayJar, callback);
    expect(errorOf(replay.headers.get("Location") ?? "")).toMatch(/expired or was already completed/);

    // flow A's code with flow B's cookie and state: the state matches B, the verifier is B's, not A's
    const a = new CookieJar();
    const callbackA = new URL(await signInAtProvider(a, base, provider.issuer, "vic"));
    const b = new CookieJar();
    const toProvider = await follow(b, `${base}/login/generic_oauth`, (u) => u.origin === provider.issuer);
    const stateB = new URL(toProvider.url).searchParams.get("state")!;
    callbackA.searchParams.set("state", stateB);
    const mixed = await browse(b, callbackA.href);
    expect(errorOf(mixed.headers.get("Location") ?? "")).toMatch(/PKCE verifier does not match/);
    expect(b.get(base, "svc_session")).toBeUndefined();
  }, 60_000);

  it("an ID token whose nonce is another sign-in's is refused (a client without PKCE, where only the nonce binds the code)", async () => {
    const other = await startTestServer({
      "dashboard.http_port": noPkcePort,
      "dashboard.root_url": `http://127.0.0.1:${noPkcePort}/`,
      "auth.generic_oauth.enabled": true,
      "auth.generic_oauth.client_id": "no-pkce",
      "auth.generic_oauth.client_secret": "no-pkce-client-secret",
      "auth.generic_oauth.issuer": provider.issuer,
      "auth.generic_oauth.use_pkce": false,
    });
    try {
      const otherBase = `http://127.0.0.1:${noPkcePort}`;
      const a = new CookieJar();
      const callbackA = new URL(await signInAtProvider(a, otherBase, provider.issuer, "vic"));
      expect(callbackA.searchParams.get("code")).toBeTruthy();
      const b = new CookieJar();
      const toProvider = await follow(b, `${otherBase}/login/generic_oauth`, (u) => u.origin === provider.issuer);
      expect(new URL(toProvider.url).searchParams.has("code_challenge")).toBe(false);
      callbackA.searchParams.set("state", new URL(toProvider.url).searchParams.get("state")!);
      const mixed = await browse(b, callbackA.href);
      expect(new URL(mixed.headers.get("Location") ?? "", otherBase).searchParams.get("error")).toMatch(/nonce does not match/);
      expect(b.get(otherBase, "svc_session")).toBeUndefined();
    } finally {
      await other.stop();
    }
  }, 60_000);

  it("the provider's error comes back as a message, never a 500", async () => {
    const jar = new CookieJar();
    await follow(jar, `${base}/login/generic_oauth`, (u) => u.origin === provider.issuer);
    const res = await browse(jar, `${base}/login/generic_oauth?error=access_denied&error_description=the+user+said+no&state=whatever`);
    expect(res.status).toBe(302);
    expect(errorOf(res.headers.get("Location") ?? "")).toMatch(/./);
    const none = await fetch(`${base}/login/generic_oauth?code=abc&state=def`, { redirect: "manual" });
    expect(none.status).toBe(302);
    expect(errorOf(none.headers.get("Location") ?? "")).toMatch(/expired or was already completed/);
  }, 60_000);

  it("sign-out ends the session and sends the browser to the provider's end_session with the ID token", async () => {
    const { jar } = await signIn("vic");
    const out = await browse(jar, `${base}/logout`);
    expect(out.status).toBe(302);
    const to = new URL(out.headers.get("Location")!);
    expect(to.origin).toBe(provider.issuer);
    expect(to.pathname).toBe("/session/end");
    expect(to.searchParams.get("id_token_hint")).toMatch(/^eyJ/);
    expect(to.searchParams.get("post_logout_redirect_uri")).toBe(`${base}/`);
    expect((await sessionGet(jar, "/api/user")).status).toBe(401);
    // the provider accepts it (its confirmation page)
    const page = await browse(jar, to.href);
    expect(page.status).toBe(200);
    // a password session signs out locally
    const local = await fetch(`${base}/logout`, { redirect: "manual" });
    expect(local.headers.get("Location")).toBe("/");
  }, 60_000);
});
