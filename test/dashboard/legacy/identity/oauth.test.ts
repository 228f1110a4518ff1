// OpenID Connect sign-in (auth.generic_oauth) against a real OpenID provider
// (oidc-provider, started here on 127.0.0.1: discovery, code flow with PKCE
// required, ID token, userinfo, RP-initiated logout), driven over HTTP as a
// browser would (cookies kept, redirects walked, the provider's login form
// posted). docs/authentication.md, "OpenID Connect".
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../../../src/config/load.ts";
import { ADMIN, basic, client } from "../../../helpers/api.ts";
import { freePort } from "../../../helpers/browser.ts";
import { browse, CookieJar, follow, signInAtProvider, startOidcProvider, type OidcAccount, type OidcProvider } from "../../../helpers/oidc.ts";
import { startTestServer, type TestServer } from "../../../helpers/server.ts";

const ACCOUNTS: Record<string, OidcAccount> = {
  alice: { email: "alice@example.com", name: "Alice Admin", groups: ["admins", "sre"] },
  root: { email: "root@example.com", name: "Root", groups: ["root", "staff"] },
  vic: { email: "vic@example.com", name: "Vic Viewer", groups: ["staff"] },
  eve: { email: "eve@evil.test", name: "Eve", groups: ["admins"] },
  otto: { email: "otto@example.com", name: "Otto Outsider", groups: ["other"] },
  nora: { email: "nora@example.com", name: "Nora No-role", groups: ["contractors"] },
  carol: { email: "carol@example.com", name: "Carol Copy", groups: ["staff"] },
  // the login and email follow the provider: the tests change these between sign-ins
  dave: { email: "dave@example.com", name: "Dave", groups: ["staff"] },
  hal: { email: "hal@example.com", name: "Hal", groups: ["staff"], login: "frank@example.com" },
  // hostile claims
  huge: { email: "huge@example.com", groups: ["staff", ...Array.from({ length: 20_000 }, (_, i) => `group-${i}`)] },
  typed: { email: 12345, name: { first: "T" }, groups: ["staff"] },
  oddgroups: { email: "oddgroups@example.com", groups: "staff" },
  nul: { email: "nul@example.com", groups: ["staff"], login: "bad\u0000login" },
  objects: { email: "objects@example.com", name: ["not", "a", "name"], login: 42, groups: ["staff", 7, null, { g: "admins" }] },
};

/** the sign-in flow against one Outpost and provider, as a browser walks it */
function flows(base: () => string, issuer: () => string) {
  const api = () => client(base());
  const signIn = async (login: string) => {
    const jar = new CookieJar();
    const callback = await signInAtProvider(jar, base(), issuer(), login);
    const res = await browse(jar, callback);
    await res.body?.cancel();
    return { jar, callback, status: res.status, location: res.headers.get("Location") ?? "" };
  };
  const sessionGet = (jar: CookieJar, path: string) => api().get(path, { headers: { Cookie: jar.header(base()) } });
  const errorOf = (location: string) => new URL(location, base()).searchParams.get("error") ?? "";
  /** a user by login or email, as the admin sees it */
  const lookup = async (loginOrEmail: string) => {
    const r = await api().get(`/api/users/lookup?loginOrEmail=${encodeURIComponent(loginOrEmail)}`, { auth: ADMIN });
    return r.status === 200 ? (r.body as { id: number; login: string; email: string; name: string; isSvcAdmin: boolean; authLabels: string[] }) : undefined;
  };
  /** a user's organizations as "<name>:<role>", sorted */
  const orgsOf = async (userId: number) =>
    ((await api().get(`/api/users/${userId}/orgs`, { auth: ADMIN })).body as Array<{ name: string; role: string }>).map((o) => `${o.name}:${o.role}`).sort();
  const localUser = async (login: string, email: string) => {
    const r = await api().post("/api/admin/users", { auth: ADMIN, body: { login, email, name: login, password: `pw-${login}-secret` } });
    expect(r.status).toBe(200);
    return { id: r.body.id as number, auth: basic(login, `pw-${login}-secret`), password: `pw-${login}-secret` };
  };
  const newOrg = async (name: string) => {
    const r = await api().post("/api/orgs", { auth: ADMIN, body: { name } });
    expect(r.status).toBe(200);
    return r.body.orgId as number;
  };
  return { api, signIn, sessionGet, errorOf, lookup, orgsOf, localUser, newOrg };
}

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

  describe("the login and email follow the provider, never onto another user's login or email", () => {
    const f = flows(() => base, () => provider.issuer);

    it("a returning user whose new login is another user's email, or whose new email is another user's login, is refused and nothing changes", async () => {
      await f.localUser("frank", "frank@example.com");
      // a login that looks like an email, with another email
      await f.localUser("gina@example.com", "gina.real@example.com");
      expect((await f.signIn("dave")).location).toBe("/");
      const dave = (await f.lookup("dave@example.com"))!;
      expect(dave).toMatchObject({ login: "dave@example.com", email: "dave@example.com" });

      // the login claim becomes frank's email (in other case): refused, dave unchanged
      ACCOUNTS.dave!.login = "Frank@Example.com";
      const byLogin = await f.signIn("dave");
      expect(f.errorOf(byLogin.location)).toBe("The login or email Keycloak now gives for you belongs to another user here: the sign-in is refused; ask an administrator");
      expect(byLogin.jar.get(base, "svc_session")).toBeUndefined();
      expect(await f.lookup("dave@example.com")).toMatchObject({ id: dave.id, login: "dave@example.com", email: "dave@example.com" });
      expect((await f.lookup("frank"))!.login).toBe("frank");

      // the email claim becomes gina's login: refused, dave unchanged
      delete ACCOUNTS.dave!.login;
      ACCOUNTS.dave!.email = "GINA@example.com";
      const byEmail = await f.signIn("dave");
      expect(f.errorOf(byEmail.location)).toMatch(/belongs to another user here/);
      expect(await f.lookup("dave@example.com")).toMatchObject({ id: dave.id, login: "dave@example.com", email: "dave@example.com" });
      expect((await f.lookup("gina.real@example.com"))!.login).toBe("gina@example.com");

      // a change onto nobody's login or email is followed; a change of case only is too
      ACCOUNTS.dave!.email = "dave@example.com";
      ACCOUNTS.dave!.login = "dave.new";
      expect((await f.signIn("dave")).location).toBe("/");
      expect(await f.lookup("dave.new")).toMatchObject({ id: dave.id, login: "dave.new", email: "dave@example.com" });
      ACCOUNTS.dave!.login = "Dave.New";
      expect((await f.signIn("dave")).location).toBe("/");
      expect((await f.lookup("dave.new"))!.login).toBe("Dave.New");
    }, 60_000);

    it("a sign-up whose login claim is another user's email is refused", async () => {
      const { location } = await f.signIn("hal");
      expect(f.errorOf(location)).toMatch(/exists already/);
      expect(await f.lookup("hal@example.com")).toBeUndefined();
    }, 60_000);
  });

  describe("hostile claims are refused with a message, never a 500", () => {
    const f = flows(() => base, () => provider.issuer);

    it("a list claim longer than 10000 entries", async () => {
      const { status, location } = await f.signIn("huge");
      expect(status).toBe(302);
      expect(f.errorOf(location)).toBe("Keycloak gave more than 10000 groups for the user: ask an administrator");
      expect(await f.lookup("huge@example.com")).toBeUndefined();
    }, 60_000);

    it("an email that is not a string", async () => {
      expect(f.errorOf((await f.signIn("typed")).location)).toMatch(/gave no email address/);
    }, 60_000);

    it("a claim of a type that makes role_attribute_path fail gives no role (refused here: role_attribute_strict), with a warning", async () => {
      // groups is a string: contains(groups[*], …) has no list to look in
      const { location } = await f.signIn("oddgroups");
      expect(f.errorOf(location)).toMatch(/did not give a valid role/);
      expect(server.logs.some((l) => l.msg === "OAuth claims: a JMESPath setting failed over the provider's claims: no value" && l.setting === "role_attribute_path")).toBe(true);
      expect(await f.lookup("oddgroups@example.com")).toBeUndefined();
    }, 60_000);

    it("a login with a control character", async () => {
      expect(f.errorOf((await f.signIn("nul")).location)).toMatch(/gave a login that is not valid here/);
      expect(await f.lookup("nul@example.com")).toBeUndefined();
    }, 60_000);

    it("values of other types are passed over: the name and login fall back, only the string groups count", async () => {
      const { location, jar } = await f.signIn("objects");
      expect(location).toBe("/");
      expect((await f.sessionGet(jar, "/api/user")).body).toMatchObject({ login: "objects@example.com", name: "objects@example.com" });
      // the server still answers
      expect((await f.api().get("/api/health")).status).toBe(200);
    }, 60_000);

    it("a JMESPath setting that does not parse stops the start, naming the key", () => {
      expect(() => loadConfig({ flags: {
        "storage.in_memory": true, "auth.generic_oauth.enabled": true, "auth.generic_oauth.client_id": "x", "auth.generic_oauth.issuer": "https://sso.example.com",
        "auth.generic_oauth.org_attribute_path": "orgs[",
      } })).toThrow(/auth\.generic_oauth\.org_attribute_path \(from --oauth-org-attribute-path\): not a valid JMESPath expression/);
    });
  });
});

/** a second provider and server: org_attribute_path with org_mapping, the attribute paths, oauth_allow_insecure_email_lookup */
describe("OpenID Connect: org mapping, attribute paths, and the insecure email lookup", () => {
  const accounts: Record<string, OidcAccount> = {
    erin: { email: "erin@example.com", name: "Erin", orgs: ["eng"], groups: [] },
    olga: { email: "olga@example.com", name: "Olga", orgs: ["ops"], groups: ["leads"] },
    gus: { email: "gus@example.com", name: "Gus", orgs: ["ghost", "404"] },
    // org_attribute_path cannot sort an object: the sign-in is refused
    mallory: { email: "mallory@example.com", name: "Mallory", orgs: { eng: true } },
    // no email claim: email_attribute_path over a claim only userinfo gives; the login and name by their paths
    pat: { name: "Pat Name", preferred_username: "pat.p", profile_info: { display: "Pat P." }, userinfoOnly: { contact: { work: "pat@example.com" } } },
    // the email from the attributes claim (email_attribute_name), else a claim of that name
    quinn: { name: "Quinn", attributes: { mail: ["quinn@example.com"] } },
    rita: { name: "Rita", mail: "rita@example.com" },
    // oauth_allow_insecure_email_lookup: the provider's email is a local user's
    boss: { email: "boss@example.com", name: "Not The Boss" },
    tina: { email: "tina@example.com", name: "Not Tina" },
    uma: { email: "uma@example.com", name: "Uma", orgs: ["eng"] },
  };
  let provider: OidcProvider;
  let server: TestServer;
  let base = "";
  const f = flows(() => base, () => provider.issuer);
  const orgIds: Record<string, number> = {};

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider(await freePort(), [{
      client_id: "mapping", client_secret: "mapping-client-secret", redirect_uris: [`${base}/login/generic_oauth`], post_logout_redirect_uris: [],
    }], accounts, ["orgs", "preferred_username", "profile_info", "contact", "attributes", "mail"]);
    server = await startTestServer({
      "dashboard.http_port": port,
      "dashboard.root_url": `${base}/`,
      "auth.oauth_allow_insecure_email_lookup": true,
      "auth.generic_oauth.enabled": true,
      "auth.generic_oauth.name": "Dex",
      "auth.generic_oauth.client_id": "mapping",
      "auth.generic_oauth.client_secret": "mapping-client-secret",
      "auth.generic_oauth.issuer": provider.issuer,
      "auth.generic_oauth.role_attribute_path": "contains(groups[*], 'leads') && 'Admin' || 'Viewer'",
      "auth.generic_oauth.groups_attribute_path": "groups",
      "auth.generic_oauth.org_attribute_path": "sort(not_null(orgs, `[]`))",
      // spaces and commas both separate entries; an organization by name or id; * matches every user; unknown organizations are skipped
      "auth.generic_oauth.org_mapping": ["eng:Engineering:Editor ops:Operations", "*:Everyone:None,ghost:Nowhere:Admin", "404:999:Admin"],
      "auth.generic_oauth.email_attribute_path": "contact.work",
      "auth.generic_oauth.email_attribute_name": "mail",
      "auth.generic_oauth.login_attribute_path": "preferred_username",
      "auth.generic_oauth.name_attribute_path": "profile_info.display",
    });
    for (const name of ["Engineering", "Operations", "Everyone"]) orgIds[name] = await f.newOrg(name);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
  });

  it("org_mapping: the mapped organizations only, each with the higher of its mapped role and role_attribute_path's", async () => {
    expect((await f.signIn("erin")).location).toBe("/");
    const erin = (await f.lookup("erin@example.com"))!;
    // eng -> Engineering Editor (above role_attribute_path's Viewer); * -> Everyone (None, raised to Viewer); not the main organization
    expect(await f.orgsOf(erin.id)).toEqual(["Engineering:Editor", "Everyone:Viewer"]);

    expect((await f.signIn("olga")).location).toBe("/");
    const olga = (await f.lookup("olga@example.com"))!;
    // role_attribute_path gives Admin: above the mapping's Viewer (no role named) and None
    expect(await f.orgsOf(olga.id)).toEqual(["Everyone:Admin", "Operations:Admin"]);
    expect(olga.isSvcAdmin).toBe(false);
  }, 60_000);

  it("org_mapping: the memberships follow the mapping at every sign-in (added by hand or no longer mapped: removed)", async () => {
    const erin = (await f.lookup("erin@example.com"))!;
    expect((await f.api().post("/api/orgs/1/users", { auth: ADMIN, body: { loginOrEmail: "erin@example.com", role: "Admin" } })).status).toBe(200);
    expect((await f.api().patch(`/api/orgs/${orgIds.Engineering}/users/${erin.id}`, { auth: ADMIN, body: { role: "Viewer" } })).status).toBe(200);
    accounts.erin!.orgs = ["ops"];
    const { jar, location } = await f.signIn("erin");
    expect(location).toBe("/");
    expect(await f.orgsOf(erin.id)).toEqual(["Everyone:Viewer", "Operations:Viewer"]);
    // the current organization is one the user belongs to
    const me = (await f.sessionGet(jar, "/api/user")).body as { orgId: number };
    expect([orgIds.Everyone, orgIds.Operations]).toContain(me.orgId);
  }, 60_000);

  it("org_mapping: an organization that does not exist is skipped with a warning, never a failure", async () => {
    const { location } = await f.signIn("gus");
    expect(location).toBe("/");
    const gus = (await f.lookup("gus@example.com"))!;
    // gus has no groups claim: role_attribute_path gives no role, the mapped role stands as it is
    expect(await f.orgsOf(gus.id)).toEqual(["Everyone:None"]);
    const warnings = server.logs.filter((l) => l.msg === "org_mapping names an organization that does not exist: entry skipped").map((l) => l.entry);
    expect(warnings).toEqual(expect.arrayContaining(["ghost:Nowhere:Admin", "404:999:Admin"]));
  }, 60_000);

  it("org_attribute_path failing over the claims refuses the sign-in, naming the setting", async () => {
    const { status, location } = await f.signIn("mallory");
    expect(status).toBe(302);
    expect(f.errorOf(location)).toBe("The claims Dex gave could not be read with auth.generic_oauth.org_attribute_path: ask an administrator");
    expect(await f.lookup("mallory@example.com")).toBeUndefined();
  }, 60_000);

  it("email_attribute_path over the userinfo claims, login_attribute_path and name_attribute_path", async () => {
    const { jar, location } = await f.signIn("pat");
    expect(location).toBe("/");
    expect((await f.sessionGet(jar, "/api/user")).body).toMatchObject({ login: "pat.p", email: "pat@example.com", name: "Pat P." });
  }, 60_000);

  it("email_attribute_name: the key of the attributes claim, else a claim of that name", async () => {
    const quinn = await f.signIn("quinn");
    expect(quinn.location).toBe("/");
    expect((await f.sessionGet(quinn.jar, "/api/user")).body).toMatchObject({ login: "quinn@example.com", email: "quinn@example.com", name: "Quinn" });
    const rita = await f.signIn("rita");
    expect(rita.location).toBe("/");
    expect((await f.sessionGet(rita.jar, "/api/user")).body).toMatchObject({ email: "rita@example.com" });
  }, 60_000);

  it("oauth_allow_insecure_email_lookup links a plain local user by email", async () => {
    const uma = await f.localUser("uma", "uma@example.com");
    const { jar, location } = await f.signIn("uma");
    expect(location).toBe("/");
    expect((await f.sessionGet(jar, "/api/user")).body).toMatchObject({ id: uma.id, login: "uma", email: "uma@example.com" });
  }, 60_000);

  it("oauth_allow_insecure_email_lookup never links a server admin or a user with a second factor", async () => {
    const message = "The user with this email is a server administrator or has a second factor: such a user is never linked to a provider by email; ask an administrator";
    const boss = await f.localUser("boss", "boss@example.com");
    expect((await f.api().put(`/api/admin/users/${boss.id}/permissions`, { auth: ADMIN, body: { isGrafanaAdmin: true } })).status).toBe(200);
    const refusedBoss = await f.signIn("boss");
    expect(f.errorOf(refusedBoss.location)).toBe(message);
    expect(refusedBoss.jar.get(base, "svc_session")).toBeUndefined();
    expect(await f.lookup("boss")).toMatchObject({ id: boss.id, login: "boss", name: "boss", isSvcAdmin: true, authLabels: [] });

    const tina = await f.localUser("tina", "tina@example.com");
    const enrol = await f.api().post("/api/user/2fa/enrol", { auth: tina.auth, body: { password: tina.password } });
    expect(enrol.status).toBe(200);
    const code = new TOTP({ secret: Secret.fromBase32(enrol.body.secret as string) }).generate();
    expect((await f.api().post("/api/user/2fa/confirm", { auth: tina.auth, body: { code } })).status).toBe(200);
    const refusedTina = await f.signIn("tina");
    expect(f.errorOf(refusedTina.location)).toBe(message);
    expect(await f.lookup("tina")).toMatchObject({ id: tina.id, login: "tina", name: "tina", authLabels: [] });
    // neither was linked to the provider's subject
    const links = await server.db.pg.query<{ user_id: number }>("select user_id from user_auth where user_id = any($1::int[])", [[boss.id, tina.id]]);
    expect(links.rows).toEqual([]);
  }, 60_000);
});

/** a third provider and server: skip_org_role_sync with allow_assign_grafana_admin and org_mapping */
describe("OpenID Connect: skip_org_role_sync", () => {
  const accounts: Record<string, OidcAccount> = {
    sam: { email: "sam@example.com", name: "Sam", groups: ["admins"], orgs: ["eng"] },
    nia: { email: "nia@example.com", name: "Nia", groups: [], orgs: [] },
    ron: { email: "ron@example.com", name: "Ron", groups: ["root"], orgs: [] },
  };
  let provider: OidcProvider;
  let server: TestServer;
  let base = "";
  const f = flows(() => base, () => provider.issuer);
  let engineering = 0;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    provider = await startOidcProvider(await freePort(), [{
      client_id: "skip", client_secret: "skip-client-secret", redirect_uris: [`${base}/login/generic_oauth`], post_logout_redirect_uris: [],
    }], accounts, ["orgs"]);
    server = await startTestServer({
      "dashboard.http_port": port,
      "dashboard.root_url": `${base}/`,
      "auth.generic_oauth.enabled": true,
      "auth.generic_oauth.client_id": "skip",
      "auth.generic_oauth.client_secret": "skip-client-secret",
      "auth.generic_oauth.issuer": provider.issuer,
      "auth.generic_oauth.skip_org_role_sync": true,
      "auth.generic_oauth.allow_assign_grafana_admin": true,
      "auth.generic_oauth.role_attribute_path": "contains(groups[*], 'root') && 'GrafanaAdmin' || contains(groups[*], 'admins') && 'Admin' || 'Viewer'",
      "auth.generic_oauth.groups_attribute_path": "groups",
      "auth.generic_oauth.org_attribute_path": "orgs",
      "auth.generic_oauth.org_mapping": ["eng:Engineering:Editor"],
    });
    engineering = await f.newOrg("Engineering");
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await provider?.stop();
  });

  it("a new user gets its organizations and role from the claims once; later sign-ins leave them as an administrator set them", async () => {
    expect((await f.signIn("sam")).location).toBe("/");
    const sam = (await f.lookup("sam@example.com"))!;
    // mapped: Engineering, Editor raised to role_attribute_path's Admin
    expect(await f.orgsOf(sam.id)).toEqual(["Engineering:Admin"]);
    // nothing mapped: the main organization with role_attribute_path's role (the default otherwise)
    expect((await f.signIn("nia")).location).toBe("/");
    expect(await f.orgsOf((await f.lookup("nia@example.com"))!.id)).toEqual(["Main Org.:Viewer"]);

    // set by hand: Viewer in Engineering, Editor in the main organization
    expect((await f.api().patch(`/api/orgs/${engineering}/users/${sam.id}`, { auth: ADMIN, body: { role: "Viewer" } })).status).toBe(200);
    expect((await f.api().post("/api/orgs/1/users", { auth: ADMIN, body: { loginOrEmail: "sam@example.com", role: "Editor" } })).status).toBe(200);
    // the claims now say GrafanaAdmin, and map no organization: nothing changes
    accounts.sam!.groups = ["root"];
    accounts.sam!.orgs = [];
    accounts.sam!.name = "Sam Renamed";
    const { jar, location } = await f.signIn("sam");
    expect(location).toBe("/");
    expect(await f.orgsOf(sam.id)).toEqual(["Engineering:Viewer", "Main Org.:Editor"]);
    // the profile still follows the provider
    expect((await f.sessionGet(jar, "/api/user")).body).toMatchObject({ id: sam.id, name: "Sam Renamed", isSvcAdmin: false });
  }, 60_000);

  it("allow_assign_grafana_admin neither gives nor takes the server admin flag", async () => {
    // a new user whose claims say GrafanaAdmin: not a server admin
    expect((await f.signIn("ron")).location).toBe("/");
    const ron = (await f.lookup("ron@example.com"))!;
    expect(ron.isSvcAdmin).toBe(false);
    // made one by hand, then claims without GrafanaAdmin: it stays
    expect((await f.api().put(`/api/admin/users/${ron.id}/permissions`, { auth: ADMIN, body: { isGrafanaAdmin: true } })).status).toBe(200);
    accounts.ron!.groups = [];
    expect((await f.signIn("ron")).location).toBe("/");
    expect((await f.lookup("ron@example.com"))!.isSvcAdmin).toBe(true);
  }, 60_000);
});

/**
 * What answers at the issuer is no provider: a status no Response can carry (999), an endless answer
 * (5 MiB, chunked). With tls_skip_verify_insecure the requests go through oauth-tls.ts's client,
 * which must refuse both (a message on the sign-in page, the reason in the log), never throw from
 * an event handler (an uncaught exception ends the process) nor hold the whole answer.
 */
describe("OpenID Connect: answers the provider's HTTP client must refuse (oauth-tls.ts)", () => {
  let mode: "status" | "huge" = "status";
  let bad: Server;
  let server: TestServer;
  let base = "";
  const uncaught: unknown[] = [];
  const record = (err: unknown) => void uncaught.push(err);

  beforeAll(async () => {
    process.on("uncaughtException", record);
    bad = createServer((req, res) => {
      req.socket.on("error", () => {});
      res.on("error", () => {});
      if (mode === "status") {
        res.writeHead(999, { "Content-Type": "application/json" });
        res.end("{}");
        return;
      }
      // 5 MiB without a Content-Length: the client has to stop reading by itself
      res.writeHead(200, { "Content-Type": "application/json" });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let left = 80;
      const write = () => {
        while (left > 0 && !res.destroyed) {
          left--;
          if (!res.write(chunk)) return void res.once("drain", write);
        }
        res.end();
      };
      write();
    });
    await new Promise<void>((resolve) => bad.listen(0, "127.0.0.1", resolve));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = await startTestServer({
      "dashboard.http_port": port,
      "dashboard.root_url": `${base}/`,
      "auth.generic_oauth.enabled": true,
      "auth.generic_oauth.name": "Broken",
      "auth.generic_oauth.client_id": "outpost",
      "auth.generic_oauth.client_secret": "outpost-client-secret",
      "auth.generic_oauth.issuer": `http://127.0.0.1:${(bad.address() as AddressInfo).port}`,
      "auth.generic_oauth.tls_skip_verify_insecure": true,
    });
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    bad?.closeAllConnections();
    await new Promise((resolve) => bad?.close(resolve));
    process.off("uncaughtException", record);
  });

  /** GET /login/generic_oauth: where it sends the browser, and the message it carries */
  const start = async () => {
    // a deadline only so that a request that never ends fails this test rather than the whole run
    const res = await fetch(`${base}/login/generic_oauth`, { redirect: "manual", signal: AbortSignal.timeout(30_000) });
    await res.body?.cancel();
    const location = res.headers.get("Location") ?? "";
    return { status: res.status, location, error: new URL(location, base).searchParams.get("error") ?? "" };
  };
  const logged = (from: number, text: string) => server.logs.slice(from).some((l) => JSON.stringify(l).includes(text));

  it("a status outside 200-599 (999) refuses the sign-in with a message; the server goes on", async () => {
    mode = "status";
    const before = server.logs.length;
    const r = await start();
    expect(r.status).toBe(302);
    expect(r.location).toMatch(/^\/login\?error=/);
    expect(r.error).toBe("Sign-in with Broken failed: the provider's answer was not valid");
    expect(logged(before, "HTTP status 999"), JSON.stringify(server.logs.slice(before))).toBe(true);
    expect(uncaught).toEqual([]);
    // still serving, and asked again at the next sign-in (a failed discovery is not kept)
    expect((await client(base).get("/api/user", { auth: ADMIN })).status).toBe(200);
    expect((await start()).error).toBe("Sign-in with Broken failed: the provider's answer was not valid");
    expect(uncaught).toEqual([]);
  }, 60_000);

  it("an answer larger than 1 MiB is refused, not read to its end; the server goes on", async () => {
    mode = "huge";
    const before = server.logs.length;
    const r = await start();
    expect(r.status).toBe(302);
    expect(r.error).toBe("Sign-in with Broken failed: the provider's answer was not valid");
    expect(logged(before, "is larger than 1 MiB"), JSON.stringify(server.logs.slice(before))).toBe(true);
    expect(uncaught).toEqual([]);
    expect((await client(base).get("/api/user", { auth: ADMIN })).status).toBe(200);
  }, 60_000);
});
