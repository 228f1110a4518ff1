// Who is calling, and in which organization: HTTP basic auth for users,
// Bearer (or basic with user "api_key") for service account tokens. Messages
// and ids are the real product's (reference §1.2, §1.3).
import { createHash, randomBytes } from "node:crypto";
import { ApiError } from "../../../../lib/errors.ts";
import type { AccessModel, Snapshot, UserRecord } from "./access-model.ts";
import type { OrgRole } from "./basic-roles.ts";
import type { LoginThrottle } from "./login-throttle.ts";
import type { SessionStore } from "./sessions.ts";
import { verifyPassword } from "./passwords.ts";
import { mustEnrolSecondFactor } from "./second-factor.ts";
import type { PermissionSet } from "./permissions.ts";
import { isWellFormedToken, sha256 } from "./tokens.ts";

export interface Identity {
  kind: "user" | "service-account";
  user: UserRecord;
  /** -1 when the requested organization is not one of the user's */
  orgId: number;
  orgRole: OrgRole | null;
  permissions: PermissionSet;
  method: "basic" | "token" | "session";
  /**
   * a page session of an admin without a second factor while security.totp_required_for_admins is on:
   * only the routes that enrol one answer (access/guard.ts)
   */
  mustEnrol?: boolean;
}

export interface Credentials {
  authorization?: string | undefined;
  /** the session cookie's value */
  session?: string | undefined;
  /** X-Svc-Org-Id, or the targetOrgId query parameter */
  orgId?: string | undefined;
}

export interface AuthenticatorOptions {
  model: AccessModel;
  throttle: LoginThrottle;
  basicAuthEnabled: boolean;
  now?: () => number;
  /** told of every request a token authenticates (to record when it was last used) */
  onTokenUsed?: (tokenId: number) => void;
  sessions: SessionStore;
  /** security.totp_required_for_admins: admins' page sessions must enrol a second factor first */
  totpRequiredForAdmins?: boolean;
}

/**
 * Sign-in against a directory (LDAP, core/identity/ldap.ts): for a login no local user with a
 * password holds, or a user of this module. signIn verifies the password there and creates or
 * updates the user (memberships, teams); undefined: refused (wrong password, unknown, not
 * allowed). The password is never stored.
 */
export interface ExternalLogin {
  /** the auth module of the users it signs in, as users.auth_module holds it ("ldap") */
  readonly module: string;
  /** may throw an ApiError 503 when the directory is saturated: answered as it is, counted as no failed sign-in */
  signIn(login: string, password: string): Promise<UserRecord | undefined>;
}

/** how long an external sign-in is trusted without asking the directory again (docs/authentication.md) */
export const EXTERNAL_VERIFIED_TTL_MS = 60_000;

/** a bcrypt hash no password matches (its plain text was random and discarded) */
const DUMMY_HASH = "$2b$10$InlAytdxSPhxRrn.SyGytOxu41HgweTIJjmYBUdG0xsPDDHqBa29G";

/** how long a verified login and password is trusted without a new bcrypt, and how many are kept */
const VERIFIED_TTL_MS = 5 * 60_000;
const VERIFIED_MAX = 10_000;

const unauthorized = () => new ApiError(401, "Unauthorized", { messageId: "auth.unauthorized" });
const badLogin = (messageId = "password-auth.failed") => new ApiError(401, "Invalid username or password", { messageId });
const invalidKey = () => new ApiError(401, "Invalid API key", { messageId: "api-key.invalid" });

export interface Authenticator {
  authenticate(credentials: Credentials): Promise<Identity>;
  /** resolves the identity of a user (sessions, tools) in the organization asked for */
  identityOfUser(snap: Snapshot, user: UserRecord, requestedOrg: string | undefined, method: Identity["method"]): Identity;
  /** checks a login and password (POST /login), with the same lock-out as basic auth */
  verifyLogin(login: string, password: string): Promise<UserRecord>;
  /**
   * checks a signed-in user's own password (PUT /api/user/password's oldPassword):
   * a wrong one counts as a failed sign-in of that user, and while the user is
   * locked out even the right one is refused with the sign-in lock-out's error
   */
  checkOwnPassword(user: UserRecord, password: string): Promise<boolean>;
  /**
   * after a write to identity tables: drops the cached session lookups (sessions may have been
   * deleted). Verified passwords stay: each is checked against the current snapshot on use.
   */
  forget(): void;
  /** turns sign-in against a directory on (or off, with undefined); its verified credentials are forgotten */
  setExternalLogin(external: ExternalLogin | undefined): void;
}

export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { model, throttle } = options;
  const now = options.now ?? (() => Date.now());
  // verified basic credentials, keyed by a keyed hash of login and password:
  // bcrypt costs ~0.1 s, far too much to pay on every request
  const cacheKey = randomBytes(32).toString("hex");
  // (insertion order is age order: the oldest entries go first when the cache is full)
  const verified = new Map<string, { userId: number; passwordHash: string; until: number }>();
  const remember = (key: string, entry: { userId: number; passwordHash: string; until: number }) => {
    verified.delete(key);
    verified.set(key, entry);
    while (verified.size > VERIFIED_MAX) verified.delete(verified.keys().next().value!);
  };

  const identityOfUser: Authenticator["identityOfUser"] = (snap, user, requestedOrg, method) => {
    const orgs = snap.memberships.get(user.id) ?? new Map<number, OrgRole>();
    const asked = requestedOrg !== undefined && /^\d+$/.test(requestedOrg) ? Number(requestedOrg) : undefined;
    const orgId = asked ?? user.currentOrgId ?? orgs.keys().next().value ?? -1;
    const role = orgs.get(orgId);
    if (role === undefined) {
      // authenticated, but no role here: every permission check answers 403,
      // except a server admin's, whose server-wide permissions hold everywhere
      const permissions = user.isServerAdmin ? model.permissionsOf(snap, user, -1, "None") : new Map();
      return { kind: "user", user, orgId: -1, orgRole: null, permissions, method };
    }
    return { kind: "user", user, orgId, orgRole: role, permissions: model.permissionsOf(snap, user, orgId, role), method };
  };

  const byToken = async (token: string, requestedOrg: string | undefined): Promise<Identity> => {
    if (!isWellFormedToken(token)) throw invalidKey();
    const snap = await model.snapshot();
    const record = snap.tokens.get(sha256(token));
    if (!record) throw invalidKey();
    if (record.isRevoked) throw new ApiError(401, "Revoked API key", { messageId: "api-key.revoked" });
    if (record.expiresAt && record.expiresAt.getTime() <= now()) {
      throw new ApiError(401, "Expired API key", { messageId: "api-key.expired" });
    }
    const account = snap.users.get(record.serviceAccountId);
    if (!account || account.isDisabled) throw invalidKey();
    // a token is bound to its organization: asking for another one finds no such key there
    if (requestedOrg !== undefined && /^\d+$/.test(requestedOrg) && Number(requestedOrg) !== record.orgId) throw invalidKey();
    // an account no longer in the token's organization authenticates no more
    const role = snap.memberships.get(account.id)?.get(record.orgId);
    if (role === undefined) throw invalidKey();
    options.onTokenUsed?.(record.id);
    return {
      kind: "service-account",
      user: account,
      orgId: record.orgId,
      orgRole: role,
      permissions: model.permissionsOf(snap, account, record.orgId, role),
      method: "token",
    };
  };

  /** one bcrypt for concurrent requests carrying the same credentials (no stampede after a cold start) */
  const pending = new Map<string, Promise<boolean>>();
  // credentials found wrong, against the hash they were checked with: a caller
  // repeating the same wrong password (a misconfigured script) pays no further
  // bcrypt, however its requests are spread in time; each repetition is still
  // counted by the lock-out below
  const refused = new Map<string, number>();
  const compareOnce = async (key: string, password: string, hash: string): Promise<boolean> => {
    const flightKey = `${key}\n${hash}`;
    const refusedUntil = refused.get(flightKey);
    if (refusedUntil !== undefined) {
      if (refusedUntil > now()) return false;
      refused.delete(flightKey);
    }
    let flight = pending.get(flightKey);
    if (!flight) {
      flight = verifyPassword(password, hash)
        .then((ok) => {
          if (!ok) {
            refused.set(flightKey, now() + VERIFIED_TTL_MS);
            while (refused.size > VERIFIED_MAX) refused.delete(refused.keys().next().value!);
          }
          return ok;
        })
        .finally(() => pending.delete(flightKey));
      pending.set(flightKey, flight);
    }
    return flight;
  };

  // sign-in against a directory: its verified credentials, kept EXTERNAL_VERIFIED_TTL_MS (so basic
  // auth on every API call costs no directory round trip), and one round trip for concurrent ones
  let external: ExternalLogin | undefined;
  const externalVerified = new Map<string, { userId: number; until: number }>();
  const externalPending = new Map<string, Promise<UserRecord | undefined>>();
  /** the user of credentials the directory verified a moment ago, still one of its users and enabled */
  const externalHit = (ext: ExternalLogin, key: string, snap: Snapshot): UserRecord | undefined => {
    const hit = externalVerified.get(key);
    const cached = hit && hit.until > now() ? snap.users.get(hit.userId) : undefined;
    return cached && !cached.isDisabled && cached.authModule === ext.module ? cached : undefined;
  };
  const viaExternal = async (ext: ExternalLogin, key: string, login: string, password: string, lockKey: string): Promise<UserRecord> => {
    let flight = externalPending.get(key);
    if (!flight) {
      flight = ext.signIn(login, password).finally(() => externalPending.delete(key));
      externalPending.set(key, flight);
    }
    const user = await flight.catch((err: unknown) => {
      // the directory is saturated (503, ldap.ts): not the caller's failure, so not counted towards the lock-out
      if (err instanceof ApiError && err.status === 503) throw err;
      return undefined;
    });
    if (!user || user.isDisabled) {
      externalVerified.delete(key);
      await throttle.recordFailure(lockKey);
      throw badLogin();
    }
    // remembered before the reset is awaited: a concurrent request with the same credentials finds them then
    externalVerified.delete(key);
    externalVerified.set(key, { userId: user.id, until: now() + EXTERNAL_VERIFIED_TTL_MS });
    while (externalVerified.size > VERIFIED_MAX) externalVerified.delete(externalVerified.keys().next().value!);
    await throttle.reset(lockKey);
    return user;
  };

  const verifyLogin = async (login: string, password: string): Promise<UserRecord> => {
    const snap = await model.snapshot();
    const user = snap.byLogin.get(login.toLowerCase());
    const lockKey = user ? `user:${user.id}` : `name:${login.toLowerCase()}`;
    const key = createHash("sha256").update(`${cacheKey}\n${login.toLowerCase()}\n${password}`).digest("hex");
    // not a local user with a password, or a user of the directory: the directory decides
    const ext = external && (!user || user.authModule === external.module || (!user.passwordHash && !user.isServiceAccount && user.authModule === "")) ? external : undefined;
    const hitOf = (): UserRecord | undefined => {
      if (ext) return externalHit(ext, key, snap);
      const hit = verified.get(key);
      // an entry holds only while the user it verified still has the password hash it was checked
      // against, in the current snapshot: a changed password misses, a deleted user misses, a
      // disabled one is refused below. So identity changes need not (and do not) drop the cache.
      return user && hit && hit.userId === user.id && hit.passwordHash === user.passwordHash && hit.until > now() ? user : undefined;
    };
    const hit = hitOf();
    // no password check follows a cache hit: the lock-out may answer from memory there (login-throttle.ts)
    if (await throttle.isLocked(lockKey, hit !== undefined)) throw badLogin("login-attempt.blocked");
    // looked up again after the check (which may have asked the database): a concurrent request may have verified them meanwhile
    const cached = hit ?? hitOf();
    if (ext) return cached ?? viaExternal(ext, key, login, password, lockKey);
    if (cached) {
      if (cached.isDisabled || cached.isServiceAccount) throw badLogin();
      return cached;
    }
    // an unknown login costs the same bcrypt as a known one: timing tells nothing
    const hash = user && !user.isServiceAccount && user.passwordHash ? user.passwordHash : DUMMY_HASH;
    const ok = (await compareOnce(key, password, hash)) && hash !== DUMMY_HASH;
    if (!ok || !user || user.isDisabled) {
      await throttle.recordFailure(lockKey);
      throw badLogin();
    }
    // remembered before the reset is awaited: a concurrent request with the same credentials finds them then
    remember(key, { userId: user.id, passwordHash: hash, until: now() + VERIFIED_TTL_MS });
    await throttle.reset(lockKey);
    return user;
  };

  const checkOwnPassword = async (user: UserRecord, password: string): Promise<boolean> => {
    const lockKey = `user:${user.id}`;
    if (await throttle.isLocked(lockKey)) throw badLogin("login-attempt.blocked");
    if (!user.passwordHash || !(await verifyPassword(password, user.passwordHash))) {
      await throttle.recordFailure(lockKey);
      return false;
    }
    await throttle.reset(lockKey);
    return true;
  };

  const byPassword = async (login: string, password: string, requestedOrg: string | undefined): Promise<Identity> => {
    if (!options.basicAuthEnabled) {
      throw new ApiError(401, "basic authentication is disabled: use a service account token", { messageId: "basic-auth.disabled" });
    }
    const user = await verifyLogin(login, password);
    const snap = await model.snapshot();
    // a password alone is not enough for a user with a second factor: scripts use service account tokens
    if (snap.secondFactor.has(user.id)) {
      throw new ApiError(401, "basic authentication is refused for a user with two-factor authentication: use a service account token", {
        messageId: "basic-auth.second-factor",
      });
    }
    return identityOfUser(snap, user, requestedOrg, "basic");
  };

  const bySession = async (token: string, requestedOrg: string | undefined): Promise<Identity> => {
    const userId = await options.sessions.lookup(token);
    const snap = await model.snapshot();
    const user = userId === undefined ? undefined : snap.users.get(userId);
    if (!user || user.isDisabled) throw unauthorized();
    const identity = identityOfUser(snap, user, requestedOrg, "session");
    if (options.totpRequiredForAdmins && mustEnrolSecondFactor(snap, user)) identity.mustEnrol = true;
    return identity;
  };

  return {
    identityOfUser,
    verifyLogin,
    checkOwnPassword,
    forget: () => options.sessions.forget(),
    setExternalLogin(next) {
      external = next;
      externalVerified.clear();
    },
    async authenticate({ authorization, session, orgId }) {
      if (!authorization) {
        if (session) return bySession(session, orgId);
        throw unauthorized();
      }
      const [scheme, value = ""] = splitOnce(authorization.trim(), " ");
      if (/^bearer$/i.test(scheme)) return byToken(value.trim(), orgId);
      if (/^basic$/i.test(scheme)) {
        const decoded = decodeBasic(value.trim());
        if (!decoded) throw new ApiError(400, "Invalid Basic Auth Header", { messageId: "basic-auth.invalid-header" });
        const [login, password] = decoded;
        if (login === "api_key") return byToken(password, orgId);
        return byPassword(login, password, orgId);
      }
      throw unauthorized();
    },
  };
}

function splitOnce(text: string, sep: string): [string, string | undefined] {
  const i = text.indexOf(sep);
  return i < 0 ? [text, undefined] : [text.slice(0, i), text.slice(i + 1)];
}

function decodeBasic(value: string): [string, string] | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(value)) return undefined;
  const text = Buffer.from(value, "base64").toString("utf8");
  const i = text.indexOf(":");
  return i < 0 ? undefined : [text.slice(0, i), text.slice(i + 1)];
}
