// A second factor for local users: TOTP (RFC 6238: SHA-1, six digits, 30-second
// steps, the authenticator apps' default) with ten single-use recovery codes
// (docs/authentication.md, "Second factor (TOTP)"). The TOTP secret is sealed
// at rest in the secrets table (owner "user:<id>", field "totp") and is shown
// only by the enrolment that made it; recovery codes are kept only as digests.
// A code is accepted within one step either side of the server's clock, and a
// step once used is never accepted again. Wrong codes count towards the login
// lock-out under their own key (a right password does not clear them).
import type { Sql, SqlTx } from "../../../../db/sql.ts";
import { randomInt } from "node:crypto";
import { Secret, TOTP } from "otpauth";
import { ApiError, badRequest, conflict, forbidden } from "../../../../lib/errors.ts";
import type { Snapshot, UserRecord } from "./access-model.ts";
import { createAuthTickets } from "./auth-tickets.ts";
import { changed, type IdentityDeps } from "./identity-deps.ts";
import type { LoginThrottle } from "./login-throttle.ts";
import { sha256 } from "./tokens.ts";

/** what a second factor needs of the secrets service (core/secrets' Secrets has it; identity imports no other folder) */
export interface SecretSealer {
  seal(owner: string, field: string, plaintext: string): Promise<{ field: string; sealed: string }>;
  write(db: Sql | SqlTx, owner: string, sealed: ReadonlyArray<{ field: string; sealed: string }>): Promise<void>;
  open(owner: string): Promise<Record<string, string>>;
}

export const TOTP_PERIOD_S = 30;
export const RECOVERY_CODE_COUNT = 10;
/** how long the step between a right password and the code may take */
export const PENDING_LOGIN_MS = 5 * 60_000;
/** how many sign-ins may wait for a code in one process (the oldest are dropped first) */
const PENDING_LOGINS_MAX = 10_000;

const FIELD = "totp";
const ownerOf = (userId: number) => `user:${userId}`;
const lockKeyOf = (userId: number) => `second-factor:${userId}`;
// no 0/o, 1/l/i: a code read off paper is typed back right
const RECOVERY_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789";

export const lockedOut = () => new ApiError(401, "Too many failed attempts", { messageId: "login-attempt.blocked" });

/** whether the user must enrol a second factor before using a page session (security.totp_required_for_admins) */
export function mustEnrolSecondFactor(snap: Snapshot, user: UserRecord): boolean {
  // a user without a password (LDAP, OAuth) cannot enrol: never asked to
  if (user.isServiceAccount || user.passwordHash === null || snap.secondFactor.has(user.id)) return false;
  if (user.isServerAdmin) return true;
  for (const role of snap.memberships.get(user.id)?.values() ?? []) if (role === "Admin") return true;
  return false;
}

export interface SecondFactorStatus {
  enabled: boolean;
  recoveryCodesLeft: number;
  /** the user must enrol before the page lets them do anything else */
  enrolmentRequired: boolean;
}

export interface SecondFactor {
  status(user: UserRecord): Promise<SecondFactorStatus>;
  /** a new secret, pending until confirm(); refused while a second factor is enabled */
  enrol(user: UserRecord): Promise<{ secret: string; otpauthUrl: string }>;
  /**
   * the pending secret's first code enables it; answers the recovery codes
   * (shown once); the user's other sessions end (`keepSession`: the one that
   * confirmed)
   */
  confirm(user: UserRecord, code: string, keepSession?: string): Promise<string[]>;
  /** a TOTP code or an unused recovery code of an enabled second factor (throttled; a lock-out throws) */
  verify(user: UserRecord, code: string): Promise<boolean>;
  /** removes the user's second factor (its secret and recovery codes) and ends their sessions but `keepSession` */
  remove(userId: number, keepSession?: string): Promise<void>;
}

export interface SecondFactorOptions {
  throttle: LoginThrottle;
  sealer: SecretSealer;
  /** security.totp_enabled: new enrolments allowed */
  enrolmentEnabled: boolean;
  /** security.totp_required_for_admins */
  requiredForAdmins: boolean;
  /** the issuer authenticator apps show beside the account */
  issuer?: string;
}

export function createSecondFactor(deps: IdentityDeps, o: SecondFactorOptions): SecondFactor {
  const issuer = o.issuer ?? "Outpost";
  const totpOf = (user: UserRecord, secret: string) =>
    new TOTP({ issuer, label: user.login, algorithm: "SHA1", digits: 6, period: TOTP_PERIOD_S, secret: Secret.fromBase32(secret) });

  /** the step a code is valid for (±1 step of now), or undefined */
  const stepOf = (user: UserRecord, secret: string, code: string): number | undefined => {
    const totp = totpOf(user, secret);
    const timestamp = deps.now();
    const delta = totp.validate({ token: code, timestamp, window: 1 });
    return delta === null ? undefined : totp.counter({ timestamp }) + delta;
  };

  const secretOf = async (userId: number): Promise<string | undefined> => (await o.sealer.open(ownerOf(userId)))[FIELD];

  const ENROLMENT = "(extract(epoch from created_at) * 1000000)::int8::text";
  const row = async (userId: number) =>
        // the enrolment's time to the microsecond, as the server keeps it (a JavaScript Date has milliseconds only)
    (await deps.pg.query<{ enabled: boolean; enrolment: string }>(`select enabled, ${ENROLMENT} as enrolment from user_second_factor where user_id = $1`, [userId])).rows[0];

  /** the user's sessions end but one (a second factor turned on, off or reset) */
  const endSessions = (db: Pick<Sql, "query"> | SqlTx, userId: number, keepSession?: string) =>
    db.query("delete from sessions where user_id = $1 and token_hash <> $2", [userId, keepSession ? sha256(keepSession) : ""]);

  /**
   * a code attempt counted before it is checked (and the count cleared when it
   * is right): parallel guesses cannot all pass the lock check while the first
   * ones wait on the database
   */
  const attempt = async <T>(userId: number, check: () => Promise<T | undefined>): Promise<T | undefined> => {
    const key = lockKeyOf(userId);
    if (!(await o.throttle.tryAttempt(key))) throw lockedOut();
    const result = await check();
    if (result !== undefined) await o.throttle.reset(key);
    return result;
  };

  const newRecoveryCodes = () =>
    Array.from({ length: RECOVERY_CODE_COUNT }, () => {
      const chars = Array.from({ length: 12 }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join("");
      return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8)}`;
    });

  const verifyTotp = async (user: UserRecord, code: string): Promise<boolean> => {
    const secret = await secretOf(user.id);
    if (!secret) return false;
    const step = stepOf(user, secret, code);
    if (step === undefined) return false;
    // one use per step, atomically: of two requests with the same code one wins
    const r = await deps.pg.query(
      "update user_second_factor set last_counter = $2 where user_id = $1 and enabled and (last_counter is null or last_counter < $2)",
      [user.id, step],
    );
    return (r.affectedRows ?? 0) === 1;
  };

  const useRecoveryCode = async (user: UserRecord, code: string): Promise<boolean> => {
    const r = await deps.pg.query(
      "update user_recovery_codes set used_at = now() where user_id = $1 and code_hash = $2 and used_at is null",
      [user.id, recoveryHash(user.id, code)],
    );
    return (r.affectedRows ?? 0) === 1;
  };

  return {
    async status(user) {
      const snap = await deps.model.snapshot();
      const enabled = snap.secondFactor.has(user.id);
      const left = enabled
        ? (await deps.pg.query<{ n: number }>("select count(*)::int as n from user_recovery_codes where user_id = $1 and used_at is null", [user.id])).rows[0]!.n
        : 0;
      return { enabled, recoveryCodesLeft: left, enrolmentRequired: o.requiredForAdmins && mustEnrolSecondFactor(snap, user) };
    },

    async enrol(user) {
      if (!o.enrolmentEnabled) throw forbidden("two-factor authentication is turned off on this server (security.totp_enabled)");
      if (user.isServiceAccount || user.passwordHash === null) throw badRequest("only users with a password can enrol a second factor");
      if ((await row(user.id))?.enabled) throw conflict("two-factor authentication is already enabled: disable it first");
      const secret = new Secret({ size: 20 }).base32;
      const sealed = await o.sealer.seal(ownerOf(user.id), FIELD, secret);
      await deps.pg.transaction(async (tx) => {
        // never over an enabled factor, even when a confirm lands between the check above and this
        const done = await tx.query(
          `insert into user_second_factor (user_id, enabled) values ($1, false)
           on conflict (user_id) do update set enabled = false, last_counter = null, created_at = clock_timestamp(), enabled_at = null
           where not user_second_factor.enabled`,
          [user.id],
        );
        if (!done.affectedRows) throw conflict("two-factor authentication is already enabled: disable it first");
        await o.sealer.write(tx, ownerOf(user.id), [sealed]);
      });
      return { secret, otpauthUrl: totpOf(user, secret).toString() };
    },

    async confirm(user, code, keepSession) {
      const r = await row(user.id);
      if (!r) throw badRequest("no enrolment is pending: enrol first");
      if (r.enabled) throw conflict("two-factor authentication is already enabled");
      const step = await attempt(user.id, async () => {
        const secret = await secretOf(user.id);
        return secret === undefined ? undefined : stepOf(user, secret, normalize(code));
      });
      if (step === undefined) {
        throw badRequest("Invalid two-factor code: check the authenticator app's clock", { messageId: "second-factor.invalid-code" });
      }
      const codes = newRecoveryCodes();
      await deps.pg.transaction(async (tx) => {
        // the enrolment whose secret was read: a new enrol meanwhile made another secret, which the user never saw
        const done = await tx.query(
          `update user_second_factor set enabled = true, enabled_at = now(), last_counter = $2 where user_id = $1 and not enabled and ${ENROLMENT} = $3`,
          [user.id, step, r.enrolment],
        );
        if (!done.affectedRows) throw conflict("the enrolment changed meanwhile: enrol again");
        await tx.query("delete from user_recovery_codes where user_id = $1", [user.id]);
        for (const c of codes) await tx.query("insert into user_recovery_codes (user_id, code_hash) values ($1, $2)", [user.id, recoveryHash(user.id, c)]);
        await endSessions(tx, user.id, keepSession);
      });
      changed(deps);
      return codes;
    },

    async verify(user, code) {
      const text = normalize(code);
      const ok = await attempt(user.id, async () =>
        ((/^\d{6}$/.test(text) ? await verifyTotp(user, text) : text.length === 12 && (await useRecoveryCode(user, text))) ? true : undefined),
      );
      return ok === true;
    },

    async remove(userId, keepSession) {
      await deps.pg.transaction(async (tx) => {
        // the row's trigger removes the sealed secret
        await tx.query("delete from user_second_factor where user_id = $1", [userId]);
        await tx.query("delete from user_recovery_codes where user_id = $1", [userId]);
        await endSessions(tx, userId, keepSession);
      });
      changed(deps);
    },
  };
}

/** a code as typed: spaces and dashes dropped, lower case */
function normalize(code: string): string {
  return code.replace(/[\s-]/g, "").toLowerCase().slice(0, 64);
}

function recoveryHash(userId: number, code: string): string {
  return sha256(`${userId}:${normalize(code)}`);
}

/**
 * The step between a right password and the code: a short-lived ticket
 * (auth-tickets.ts: in memory, or in the database when several nodes share
 * it, as the code may be sent to another node than the password) naming the
 * user and bound to their password hash (a changed password voids it). It is
 * no session: it only lets its holder send a code. Each ticket completes one
 * sign-in at most.
 */
export interface PendingLogins {
  issue(user: UserRecord): Promise<{ token: string; expiresAt: Date }>;
  /** the user a live, unused token names (checked against the current snapshot), or undefined */
  open(token: string, snap: Snapshot): Promise<UserRecord | undefined>;
  /** uses the token up: false when it was used meanwhile (on another node) or has expired */
  consume(token: string): Promise<boolean>;
}

interface PendingLogin {
  userId: number;
  /** the digest of the user's password hash when the password was right */
  password: string;
}

export function createPendingLogins(pg: Sql, now: () => number, lifetimeMs = PENDING_LOGIN_MS): PendingLogins {
  const tickets = createAuthTickets<PendingLogin>(pg, "pending-login", now, PENDING_LOGINS_MAX);
  const passwordOf = (user: UserRecord) => sha256(user.passwordHash ?? "");
  return {
    async issue(user) {
      const expires = now() + lifetimeMs;
      const token = await tickets.issue({ userId: user.id, password: passwordOf(user) }, expires);
      return { token, expiresAt: new Date(expires) };
    },
    async open(token, snap) {
      const pending = await tickets.peek(token);
      const user = pending && snap.users.get(pending.userId);
      if (!user || user.isDisabled || user.isServiceAccount) return undefined;
      return passwordOf(user) === pending.password ? user : undefined;
    },
    consume: async (token) => (await tickets.take(token)) !== undefined,
  };
}
