// A real OpenID provider for the OAuth sign-in tests: the oidc-provider
// package as a standard issuer on 127.0.0.1 (discovery, authorization code,
// PKCE required, ID tokens, userinfo, RP-initiated logout), its development
// login form (any password; the login names the account), consent granted
// without asking; PKCE required of every client but one named "no-pkce". And a cookie-keeping fetch that walks a browser's redirects
// through it, for the tests that use no browser.
import { createServer, type Server } from "node:http";
import Provider from "oidc-provider";

export interface OidcAccount {
  /** usually a string: the tests of hostile claims give other types */
  email?: unknown;
  name?: unknown;
  groups?: unknown;
  /** claims given only by the userinfo endpoint, not in the ID token */
  userinfoOnly?: Record<string, unknown>;
  /** any further claims (given in the ID token and userinfo; names beyond the standard ones are listed in startOidcProvider's extraClaims) */
  [claim: string]: unknown;
}

export interface OidcProvider {
  issuer: string;
  stop(): Promise<void>;
}

export interface OidcClientSpec {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
}

/**
 * starts the provider on the port; accounts by login (the devInteractions login is the account id),
 * read at each sign-in (a test may change an account's claims between sign-ins); extraClaims: the
 * names of further claims released with the profile scope
 */
export async function startOidcProvider(port: number, clients: OidcClientSpec[], accounts: Record<string, OidcAccount>, extraClaims: string[] = []): Promise<OidcProvider> {
  const issuer = `http://127.0.0.1:${port}`;
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({ ...c, response_types: ["code"], grant_types: ["authorization_code"], token_endpoint_auth_method: "client_secret_post" })),
    // required of every client but one named "no-pkce" (the nonce test's)
    pkce: { required: (_ctx: unknown, client: { clientId: string }) => client.clientId !== "no-pkce" },
    ttl: { Interaction: 600, Grant: 3600, Session: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    cookies: { keys: ["outpost-test-cookie-key-0123456789"] },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "groups", "login", ...extraClaims] },
    conformIdTokenClaims: false,
    features: { devInteractions: { enabled: true }, rpInitiatedLogout: { enabled: true } },
    async findAccount(_ctx: unknown, id: string) {
      const account = accounts[id];
      if (!account) return undefined;
      const { userinfoOnly, ...claims } = account;
      // use: "id_token" or "userinfo"
      return { accountId: id, claims: async (use: string) => ({ sub: id, email_verified: true, ...claims, ...(use === "userinfo" ? userinfoOnly : {}) }) };
    },
    // consent is granted without a prompt (the tests sign in, they do not authorize scopes)
    async loadExistingGrant(ctx: { oidc: { client: { clientId: string }; session: { accountId: string; grantIdFor(c: string): string | undefined }; result?: { consent?: { grantId?: string } }; provider: { Grant: { new (o: object): Grant; find(id: string): Promise<Grant> } } } }) {
      const existing = ctx.oidc.result?.consent?.grantId ?? ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (existing) return ctx.oidc.provider.Grant.find(existing);
      const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
      grant.addOIDCScope("openid email profile");
      await grant.save();
      return grant;
    },
  });
  const server: Server = createServer(provider.callback());
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return {
    issuer,
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

interface Grant {
  addOIDCScope(scope: string): void;
  save(): Promise<string>;
}

/** a browser's cookies, per host:port (enough for the provider and Outpost on 127.0.0.1) */
export class CookieJar {
  private readonly cookies = new Map<string, Map<string, string>>();
  header(url: string): string {
    const jar = this.cookies.get(new URL(url).host);
    return jar ? [...jar].map(([k, v]) => `${k}=${v}`).join("; ") : "";
  }
  store(url: string, res: Response): void {
    const host = new URL(url).host;
    const jar = this.cookies.get(host) ?? new Map<string, string>();
    for (const line of res.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const i = pair.indexOf("=");
      const name = pair.slice(0, i).trim();
      const value = pair.slice(i + 1).trim();
      if (!value || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    this.cookies.set(host, jar);
  }
  get(url: string, name: string): string | undefined {
    return this.cookies.get(new URL(url).host)?.get(name);
  }
  set(url: string, name: string, value: string): void {
    const host = new URL(url).host;
    const jar = this.cookies.get(host) ?? new Map<string, string>();
    jar.set(name, value);
    this.cookies.set(host, jar);
  }
}

/** one request as a browser sends it with the jar's cookies; the redirect is not followed */
export async function browse(jar: CookieJar, url: string, init: { method?: string; form?: Record<string, string> } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  const cookie = jar.header(url);
  if (cookie) headers.Cookie = cookie;
  let body: string | undefined;
  if (init.form) {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(init.form).toString();
  }
  const res = await fetch(url, { method: init.method ?? "GET", headers, body, redirect: "manual" });
  jar.store(url, res);
  return res;
}

/** follows redirects (GET) until one leaves for a URL matching stop, or a page answers; returns that URL or the last response */
export async function follow(jar: CookieJar, url: string, stop: (u: URL) => boolean, max = 10): Promise<{ url: string; res: Response | undefined }> {
  let at = url;
  for (let i = 0; i < max; i++) {
    if (stop(new URL(at))) return { url: at, res: undefined };
    const res = await browse(jar, at);
    const location = res.headers.get("Location");
    if (res.status < 300 || res.status >= 400 || !location) return { url: at, res };
    await res.body?.cancel();
    at = new URL(location, at).href;
  }
  throw new Error(`too many redirects from ${url}`);
}

/**
 * Signs in at the provider as a browser would: Outpost's GET /login/generic_oauth, the provider's
 * authorization endpoint, its development login form (the login names the account), back to
 * Outpost's callback. Returns the callback URL (not yet requested) so a test can alter it.
 */
export async function signInAtProvider(jar: CookieJar, outpost: string, issuer: string, login: string): Promise<string> {
  const toProvider = await follow(jar, `${outpost}/login/generic_oauth`, (u) => u.origin === issuer);
  const atForm = await follow(jar, toProvider.url, (u) => u.origin !== issuer);
  if (!atForm.res) throw new Error(`the provider sent the browser on at once: ${atForm.url}`);
  const page = await atForm.res.text();
  const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
  if (!action) throw new Error(`no login form at ${atForm.url}: ${page.slice(0, 300)}`);
  const posted = await browse(jar, new URL(action.replace(/&amp;/g, "&"), atForm.url).href, { method: "POST", form: { prompt: "login", login, password: "any" } });
  const next = posted.headers.get("Location");
  await posted.body?.cancel();
  if (!next) throw new Error(`the login form answered ${posted.status}`);
  const back = await follow(jar, new URL(next, atForm.url).href, (u) => u.origin === outpost);
  return back.url;
}
