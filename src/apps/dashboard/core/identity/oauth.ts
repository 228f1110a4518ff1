// OpenID Connect / OAuth2 sign-in for the admin page, in the real product's
// [auth.generic_oauth] model (docs/authentication.md, "OpenID Connect"):
// authorization code with PKCE, state and nonce through openid-client; the
// claims of the ID token and userinfo (oauth-claims.ts); allowed domains and
// groups; the organizations and roles from role_attribute_path, org_attribute_path
// and org_mapping (oauth-orgs.ts), left alone for a returning user with
// skip_org_role_sync; the user created or updated (linked by the provider's
// subject, user_auth), its login and email never another user's; team sync
// from the groups. A flow's state, nonce and PKCE verifier are kept under an
// opaque id the browser's cookie holds (auth-tickets.ts: in memory, or in the
// database when several nodes share it, as the provider's redirect back may
// reach another node than the start): single use, ten minutes. Tokens from
// the provider are never stored in plain text: only the ID token, sealed, for
// the provider's sign-out (id_token_hint).
import { readFileSync } from "node:fs";
import * as oidc from "openid-client";
import { isUniqueViolation } from "../../../../db/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import type { Logger } from "../../../../lib/logger.ts";
import type { Snapshot, UserRecord } from "./access-model.ts";
import { createAuthTickets } from "./auth-tickets.ts";
import type { OrgRole } from "./basic-roles.ts";
import { keepCurrentOrg, setOrgRole } from "./external-users.ts";
import { changed, type IdentityDeps } from "./identity-deps.ts";
import { createClaimReader, OAuthRefusal, type ClaimReader, type Claims, type ClaimSettings } from "./oauth-claims.ts";
import { createOrgMapper, parseOrgMapping, type OrgMapper } from "./oauth-orgs.ts";
import { tlsFetch } from "./oauth-tls.ts";
import { syncTeams } from "./team-sync.ts";
import { sha256 } from "./tokens.ts";
import { holderOf } from "./users.ts";

export { OAuthRefusal } from "./oauth-claims.ts";

/** users.auth_module of users this provider signed in (the real product's module name) */
export const OAUTH_AUTH_MODULE = "oauth_generic_oauth";

/** how long a started sign-in waits for the provider's redirect back */
export const OAUTH_FLOW_TTL_MS = 10 * 60_000;
const FLOWS_MAX = 10_000;

/** auth.generic_oauth (config/schema.ts), with auth.oauth_allow_insecure_email_lookup */
export interface OAuthSettings extends ClaimSettings {
  name: string;
  client_id: string;
  client_secret: string;
  client_secret_file: string;
  scopes: readonly string[];
  issuer: string;
  auth_url: string;
  token_url: string;
  api_url: string;
  use_pkce: boolean;
  skip_org_role_sync: boolean;
  org_mapping: readonly string[];
  allowed_domains: readonly string[];
  allowed_groups: readonly string[];
  allow_sign_up: boolean;
  auto_login: boolean;
  signout_redirect_url: string;
  tls_skip_verify_insecure: boolean;
  tls_client_ca: string;
  allowInsecureEmailLookup: boolean;
}

/** what seals the ID token kept for the provider's sign-out (core/secrets' service) */
export interface TokenSealer {
  seal(owner: string, field: string, plaintext: string): Promise<{ field: string; sealed: string }>;
  write(db: IdentityDeps["pg"], owner: string, sealed: ReadonlyArray<{ field: string; sealed: string }>): Promise<void>;
  open(owner: string): Promise<Record<string, string>>;
  remove(db: IdentityDeps["pg"], owner: string, fields?: readonly string[]): Promise<void>;
}

export interface OAuthService {
  readonly name: string;
  readonly autoLogin: boolean;
  /** starts a sign-in: the provider's authorization URL, and the flow id for the browser's cookie */
  begin(redirectUri: string): Promise<{ url: string; flowId: string; expiresAt: Date }>;
  /**
   * completes a sign-in from the provider's redirect (the callback URL with its query): the user,
   * created or updated, and its teams synced. OAuthRefusal when refused (state, nonce, PKCE, the
   * provider's error, domain, group, role, sign-up).
   */
  complete(flowId: string | undefined, callbackUrl: URL): Promise<{ user: UserRecord; idToken: string | undefined }>;
  /** keeps the ID token, sealed, for the session's sign-out at the provider */
  rememberIdToken(sessionToken: string, idToken: string): Promise<void>;
  /** where GET /logout sends the browser after ending the session (and forgets the sealed ID token); undefined: nowhere */
  signOutUrl(sessionToken: string | undefined, postLogoutRedirectUri: string): Promise<string | undefined>;
}

/** a started sign-in (JSON: it may be kept in the database) */
interface Flow {
  state: string;
  nonce: string;
  verifier?: string;
  redirectUri: string;
}

/** the sealed ID token of a session: owner by the session token's hash (the token itself is never stored) */
const ownerOf = (sessionToken: string) => `oauth-session:${sha256(sessionToken)}`;

/** the client secret: client_secret, or the file's content (trailing white space dropped); read at start */
export function clientSecretOf(s: Pick<OAuthSettings, "client_secret" | "client_secret_file">): string {
  if (s.client_secret || !s.client_secret_file) return s.client_secret;
  try {
    return readFileSync(s.client_secret_file, "utf8").trimEnd();
  } catch (err) {
    throw new Error(`auth.generic_oauth.client_secret_file: cannot read ${s.client_secret_file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** entries of a list setting, also split on spaces (the real product accepts both separators) */
const words = (list: readonly string[]) => list.flatMap((s) => s.split(/[\s,]+/)).filter((s) => s !== "");

export function createOAuth(deps: IdentityDeps, s: OAuthSettings, sealer: TokenSealer, logger: Logger): OAuthService {
  const log = logger.child({ logger: "oauth.generic_oauth" });
  const secret = clientSecretOf(s);
  const fetcher = tlsFetch(s);
  const flows = createAuthTickets<Flow>(deps.pg, "oauth-flow", deps.now, FLOWS_MAX);
  const allowedDomains = words(s.allowed_domains).map((d) => d.toLowerCase());
  const allowedGroups = words(s.allowed_groups);
  const scopes = words(s.scopes);
  const reader: ClaimReader = createClaimReader(s, (msg, fields) => log.warn(msg, fields));
  const mapping = parseOrgMapping(s.org_mapping, s.role_attribute_strict);
  for (const problem of mapping.problems) log.warn("auth.generic_oauth.org_mapping: entry not used as written", { problem });
  const orgMapper: OrgMapper = createOrgMapper(mapping.entries, s.role_attribute_strict, (msg, fields) => log.warn(msg, fields));

  let configuration: Promise<oidc.Configuration> | undefined;
  /** discovered once (again after a failure): a provider down at start does not stop the server */
  const config = (): Promise<oidc.Configuration> => {
    configuration ??= discover().catch((err: unknown) => {
      configuration = undefined;
      throw err;
    });
    return configuration;
  };
  const discover = async (): Promise<oidc.Configuration> => {
    const insecure = [s.issuer, s.auth_url, s.token_url, s.api_url].some((u) => /^http:/i.test(u));
    const execute = insecure ? [oidc.allowInsecureRequests] : [];
    const clientMeta = secret ? { client_secret: secret } : {};
    const clientAuth = secret ? oidc.ClientSecretPost(secret) : oidc.None();
    let c: oidc.Configuration;
    if (s.issuer) {
      c = await oidc.discovery(new URL(s.issuer), s.client_id, clientMeta, clientAuth, { execute, ...(fetcher ? { [oidc.customFetch]: fetcher } : {}) });
      if (s.auth_url || s.token_url || s.api_url) {
        const { supportsPKCE: _, ...m } = c.serverMetadata();
        c = new oidc.Configuration({
          ...(m as oidc.ServerMetadata),
          ...(s.auth_url ? { authorization_endpoint: s.auth_url } : {}),
          ...(s.token_url ? { token_endpoint: s.token_url } : {}),
          ...(s.api_url ? { userinfo_endpoint: s.api_url } : {}),
        }, s.client_id, clientMeta, clientAuth);
        for (const f of execute) f(c);
      }
    } else {
      // no discovery: the endpoints as configured; the ID token's issuer is expected to be the authorization endpoint's origin
      c = new oidc.Configuration({
        issuer: new URL(s.auth_url).origin,
        authorization_endpoint: s.auth_url,
        token_endpoint: s.token_url,
        ...(s.api_url ? { userinfo_endpoint: s.api_url } : {}),
      }, s.client_id, clientMeta, clientAuth);
      for (const f of execute) f(c);
    }
    if (fetcher) c[oidc.customFetch] = fetcher;
    if (insecure) log.warn("the OAuth provider is reached over plain http: use https outside tests", { issuer: s.issuer || s.auth_url });
    return c;
  };

  /** the provider's error, or an openid-client check that failed, as a message for the sign-in page */
  const refusalOf = (err: unknown): OAuthRefusal => {
    if (err instanceof OAuthRefusal) return err;
    if (err instanceof oidc.AuthorizationResponseError) {
      return new OAuthRefusal(`${s.name} refused the sign-in: ${err.error_description || err.error}`);
    }
    if (err instanceof oidc.ResponseBodyError) {
      log.warn("OAuth token request refused", { error: err.error, description: err.error_description ?? "" });
      if (err.error === "invalid_grant") {
        return new OAuthRefusal(`${s.name} refused the authorization code (already used, expired, or its PKCE verifier does not match): sign in again`);
      }
      return new OAuthRefusal(`${s.name} refused the sign-in: ${err.error_description || err.error}`);
    }
    // openid-client wraps the check that failed: its cause names it ('unexpected "state" response parameter value')
    const cause = (err as { cause?: unknown }).cause;
    const message = `${(err as Error).message ?? String(err)}${cause instanceof Error ? `: ${cause.message}` : ""}`;
    if (/"state"/.test(message)) return new OAuthRefusal("The sign-in's state does not match (a forged or stale redirect): sign in again");
    if (/"nonce"/.test(message)) return new OAuthRefusal("The ID token's nonce does not match this sign-in: sign in again");
    log.warn("OAuth sign-in failed", { error: message });
    return new OAuthRefusal(`Sign-in with ${s.name} failed: ${/fetch failed|ECONNREFUSED|ENOTFOUND|timed out/i.test(message) ? "the provider cannot be reached" : "the provider's answer was not valid"}`);
  };

  const existsAlready = () => new OAuthRefusal("A user with this email or login exists already and is not linked to this provider: ask an administrator");

  /**
   * The user the provider's subject is linked to; else, with oauth_allow_insecure_email_lookup, the
   * user with the email (never a server admin or a user with a second factor: stricter than the real
   * product, docs/choices.md); else none (a new user). OAuthRefusal when it may not sign in.
   */
  const findUser = async (snap: Snapshot, sub: string, login: string, email: string): Promise<UserRecord | undefined> => {
    const linked = await deps.pg.query<{ user_id: number }>("select user_id from user_auth where auth_module = $1 and auth_id = $2", [OAUTH_AUTH_MODULE, sub]);
    const user = linked.rows[0] ? snap.users.get(linked.rows[0].user_id) : undefined;
    if (user) return user;
    const byEmail = [...snap.users.values()].find((u) => !u.isServiceAccount && u.email.toLowerCase() === email.toLowerCase());
    if (s.allowInsecureEmailLookup && byEmail) {
      const secondFactor = await deps.pg.query("select 1 from user_second_factor where user_id = $1", [byEmail.id]);
      if (byEmail.isServerAdmin || secondFactor.rows.length > 0) {
        // one message for both: the sign-in page does not tell which the account is
        log.warn("OAuth sign-in refused: the user with this email is a server admin or has a second factor, and is never linked by email", { login: byEmail.login });
        throw new OAuthRefusal("The user with this email is a server administrator or has a second factor: such a user is never linked to a provider by email; ask an administrator");
      }
      log.info("OAuth user linked to an existing user by email (auth.oauth_allow_insecure_email_lookup)", { login: byEmail.login });
      return byEmail;
    }
    if (byEmail || holderOf(snap, [login, email])) {
      log.warn("OAuth sign-in refused: another user holds the email or login", { login });
      throw existsAlready();
    }
    if (!s.allow_sign_up) {
      log.info("OAuth sign-in refused: unknown user and auth.generic_oauth.allow_sign_up is off", { login });
      throw new OAuthRefusal("Sign up is disabled: ask an administrator to create your user");
    }
    return undefined;
  };

  /**
   * The organizations and roles, and the server admin flag, the claims give; undefined: left as
   * they are (a returning user with skip_org_role_sync: the real product evaluates nothing then).
   * A new user with skip_org_role_sync gets them once, without the server admin flag.
   */
  const rolesFor = (claims: Claims, user: UserRecord | undefined, snap: Snapshot): { orgRoles: Map<number, OrgRole>; serverAdmin: boolean | undefined } | undefined => {
    if (user && s.skip_org_role_sync) return undefined;
    const direct = reader.role(claims);
    const orgRoles = orgMapper.map(orgMapper.active ? reader.externalOrgs(claims) : [], direct.role, snap.orgs);
    if (!orgRoles) {
      log.info("OAuth sign-in refused: role_attribute_path and org_mapping gave no valid role and role_attribute_strict is on", { login: user?.login ?? "" });
      throw new OAuthRefusal(`${s.name} did not give a valid role (Admin, Editor, Viewer or None) and a role is required to sign in`);
    }
    return { orgRoles, serverAdmin: s.skip_org_role_sync ? undefined : direct.serverAdmin };
  };

  /** creates, links or updates the user; OAuthRefusal when it may not sign in (nothing is written then) */
  const upsert = async (claims: Claims, sub: string, login: string, email: string, name: string): Promise<{ userId: number; orgs: number }> => {
    const snap = await deps.model.snapshot();
    const existing = await findUser(snap, sub, login, email);
    if (existing?.isServiceAccount) throw new OAuthRefusal("This account cannot sign in");
    if (existing?.isDisabled) throw new OAuthRefusal("The user is disabled");
    // a linked local user keeps its login and password (the provider only vouches for the email)
    const external = !existing || existing.authModule === OAUTH_AUTH_MODULE || !existing.passwordHash;
    const newLogin = external ? login : existing.login;
    if (existing) {
      // the login and email follow the provider: never onto another user's login or email (either column)
      const moved = [newLogin, email].filter((k, i) => k.toLowerCase() !== [existing.login, existing.email][i]!.toLowerCase());
      if (holderOf(snap, moved, existing.id)) {
        log.warn("OAuth sign-in refused: the provider's login or email for the user is another user's", { login: existing.login });
        throw new OAuthRefusal(`The login or email ${s.name} now gives for you belongs to another user here: the sign-in is refused; ask an administrator`);
      }
    }
    const roles = rolesFor(claims, existing, snap);
    return deps.pg
      .transaction(async (tx) => {
        let userId: number;
        if (!existing) {
          const row = await tx.query<{ id: number }>(
            `insert into users (uid, login, email, name, password_hash, is_server_admin, auth_module)
             values ($1, $2, $3, $4, null, $5, $6) returning id`,
            [newUid(), login, email, name, roles?.serverAdmin ?? false, OAUTH_AUTH_MODULE],
          );
          userId = row.rows[0]!.id;
        } else {
          userId = existing.id;
          await tx.query(
            `update users set login = $2, email = $3, name = $4, auth_module = $5, is_server_admin = coalesce($6, is_server_admin), updated_at = now() where id = $1`,
            [userId, newLogin, email, name || existing.name, external ? OAUTH_AUTH_MODULE : existing.authModule, roles?.serverAdmin ?? null],
          );
        }
        await tx.query("insert into user_auth (user_id, auth_module, auth_id) values ($1, $2, $3) on conflict do nothing", [userId, OAUTH_AUTH_MODULE, sub]);
        if (roles) {
          // with org_mapping the memberships follow it; without, only the main organization's role is set
          if (orgMapper.active) await tx.query("delete from org_members where user_id = $1 and not (org_id = any($2::int[]))", [userId, [...roles.orgRoles.keys()]]);
          for (const [orgId, role] of roles.orgRoles) await setOrgRole(tx, orgId, userId, role);
        }
        await keepCurrentOrg(tx, userId);
        return { userId, orgs: roles?.orgRoles.size ?? -1 };
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, "users_login_key", "users_email_key")) {
          log.warn("OAuth sign-in refused: the login or email is another user's", { login });
          throw existsAlready();
        }
        throw err;
      });
  };

  return {
    name: s.name,
    autoLogin: s.auto_login,

    async begin(redirectUri) {
      const c = await config().catch((err: unknown) => {
        throw refusalOf(err);
      });
      const flow: Flow = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        ...(s.use_pkce ? { verifier: oidc.randomPKCECodeVerifier() } : {}),
        redirectUri,
      };
      const params: Record<string, string> = { redirect_uri: redirectUri, scope: scopes.join(" "), state: flow.state, nonce: flow.nonce, response_type: "code" };
      if (flow.verifier) {
        params.code_challenge = await oidc.calculatePKCECodeChallenge(flow.verifier);
        params.code_challenge_method = "S256";
      }
      const until = deps.now() + OAUTH_FLOW_TTL_MS;
      const flowId = await flows.issue(flow, until);
      return { url: oidc.buildAuthorizationUrl(c, params).href, flowId, expiresAt: new Date(until) };
    },

    async complete(flowId, callbackUrl) {
      // single use: a replayed callback finds no flow
      const flow = flowId ? await flows.take(flowId) : undefined;
      if (!flow) {
        throw new OAuthRefusal("The sign-in has expired or was already completed: sign in again");
      }
      let claims: Record<string, unknown>;
      let idToken: string | undefined;
      try {
        const c = await config();
        const current = new URL(flow.redirectUri);
        current.search = callbackUrl.search;
        const tokens = await oidc.authorizationCodeGrant(c, current, {
          expectedState: flow.state,
          expectedNonce: flow.nonce,
          idTokenExpected: scopes.includes("openid"),
          ...(flow.verifier ? { pkceCodeVerifier: flow.verifier } : {}),
        });
        idToken = tokens.id_token;
        const fromIdToken = (tokens.claims() ?? {}) as Record<string, unknown>;
        claims = { ...fromIdToken };
        if (c.serverMetadata().userinfo_endpoint && tokens.access_token) {
          const sub = typeof fromIdToken.sub === "string" ? fromIdToken.sub : oidc.skipSubjectCheck;
          try {
            claims = { ...(await oidc.fetchUserInfo(c, tokens.access_token, sub)), ...fromIdToken };
          } catch (err) {
            if (typeof fromIdToken.sub !== "string") throw err;
            log.warn("OAuth userinfo request failed: the ID token's claims are used alone", { error: (err as Error).message });
          }
        }
      } catch (err) {
        throw refusalOf(err);
      }
      const sub = reader.sub(claims);
      const email = reader.email(claims);
      const domain = email.slice(email.lastIndexOf("@") + 1).toLowerCase();
      if (allowedDomains.length && !allowedDomains.includes(domain)) {
        log.info("OAuth sign-in refused: email domain not allowed", { domain });
        throw new OAuthRefusal("Required email domain not fulfilled: your email domain may not sign in here");
      }
      const groups = reader.groups(claims);
      if (allowedGroups.length && !groups.some((g) => allowedGroups.includes(g))) {
        log.info("OAuth sign-in refused: not a member of an allowed group", { email });
        throw new OAuthRefusal("User not a member of one of the required groups");
      }
      const login = reader.login(claims, email);
      const { userId, orgs } = await upsert(claims, sub, login, email, reader.name(claims, login));
      changed(deps);
      await syncTeams(deps, { userId, groups, authModule: OAUTH_AUTH_MODULE });
      const user = (await deps.model.snapshot()).users.get(userId);
      if (!user) throw new OAuthRefusal("The user could not be signed in");
      log.info("OAuth sign-in", { login: user.login, orgs: orgs < 0 ? "kept (skip_org_role_sync)" : orgs, groups: groups.length });
      return { user, idToken };
    },

    async rememberIdToken(sessionToken, idToken) {
      const owner = ownerOf(sessionToken);
      await sealer.write(deps.pg, owner, [await sealer.seal(owner, "id_token", idToken)]);
      // the sealed ID tokens of sessions that ended without GET /logout (expired, revoked)
      await deps.pg.query(
        "delete from secrets where owner like 'oauth-session:%' and substr(owner, 15) not in (select token_hash from sessions)",
      );
    },

    async signOutUrl(sessionToken, postLogoutRedirectUri) {
      let idToken: string | undefined;
      if (sessionToken) {
        const owner = ownerOf(sessionToken);
        idToken = (await sealer.open(owner).catch(() => ({}) as Record<string, string>)).id_token;
        if (idToken !== undefined) await sealer.remove(deps.pg, owner);
      }
      if (s.signout_redirect_url) return s.signout_redirect_url;
      // only a session this provider signed in leaves through it
      if (idToken === undefined) return undefined;
      const c = await config().catch(() => undefined);
      if (!c?.serverMetadata().end_session_endpoint) return undefined;
      return oidc.buildEndSessionUrl(c, { id_token_hint: idToken, post_logout_redirect_uri: postLogoutRedirectUri, client_id: s.client_id }).href;
    },
  };
}
