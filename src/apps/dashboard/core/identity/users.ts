// Users: creation by a server admin, the signed-in user's profile, password
// and current organization. Messages follow the real product (reference §7.4).
import { sha256 } from "./tokens.ts";
import { createHash } from "node:crypto";
import { ApiError, badRequest, notFound } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import { toUser, type Snapshot, type UserRecord } from "./access-model.ts";
import type { OrgRole } from "./basic-roles.ts";
import { changed, type IdentityDeps } from "./identity-deps.ts";
import { hashPassword, MIN_PASSWORD_LENGTH } from "./passwords.ts";
import { isUniqueViolation } from "../../../../db/errors.ts";
import { NAME_LIMITS, requireMaxLength } from "./name-limits.ts";

export interface NewUser {
  login?: string | undefined;
  email?: string | undefined;
  name?: string | undefined;
  password: string;
  orgId?: number | undefined;
  role?: OrgRole | undefined;
  isServerAdmin?: boolean | undefined;
}

/**
 * The user (or service account), other than `except`, whose login or email is one of the keys,
 * without regard to case: logins and emails share one namespace (a login may not be another
 * user's email, nor an email another user's login), which the users table's two unique indexes
 * alone do not hold. Every path that writes a login or email asks this first: creation, the
 * profile update, the external sign-ins.
 */
export function holderOf(snap: Snapshot, keys: readonly string[], except?: number): UserRecord | undefined {
  for (const key of keys) {
    if (!key) continue;
    const other = snap.byLogin.get(key.toLowerCase());
    if (other && other.id !== except) return other;
  }
  return undefined;
}

export async function createUser(deps: IdentityDeps, input: NewUser): Promise<UserRecord> {
  const login = (input.login ?? input.email ?? "").trim();
  const email = (input.email ?? input.login ?? "").trim();
  if (!login) throw badRequest("Need to specify either username or email");
  requireMaxLength("login", login, NAME_LIMITS.userLogin);
  requireMaxLength("email", email, NAME_LIMITS.userEmail);
  requireMaxLength("name", input.name, NAME_LIMITS.userName);
  if (input.password.length < MIN_PASSWORD_LENGTH) throw badRequest("New password is too short");
  const orgId = input.orgId ?? 1;
  const org = await deps.pg.query("select 1 from orgs where id = $1", [orgId]);
  if (!org.rows.length) throw badRequest("organization not found");
  if (holderOf(await deps.model.snapshot(), [login, email])) {
    throw new ApiError(412, `User with email '${email}' or username '${login}' already exists`);
  }
  const hash = await hashPassword(input.password);
  const user = await deps.pg.transaction(async (tx) => {
    const row = await tx.query<Record<string, unknown>>(
      `insert into users (uid, login, email, name, password_hash, is_server_admin, current_org_id)
       values ($1, $2, $3, $4, $5, $6, $7) returning *`,
      [newUid(), login, email, input.name ?? "", hash, input.isServerAdmin ?? false, orgId],
    );
    const created = toUser(row.rows[0]!);
    await tx.query("insert into org_members (org_id, user_id, role) values ($1, $2, $3)", [orgId, created.id, input.role ?? "Viewer"]);
    return created;
  }).catch((err: unknown) => {
    if (isUniqueViolation(err, "users_login_key", "users_email_key")) {
      throw new ApiError(412, `User with email '${email}' or username '${login}' already exists`);
    }
    throw err;
  });
  changed(deps);
  return user;
}

/** the caller's own session (the one that asked) stays signed in; every other session of the user ends */
export async function changePassword(deps: IdentityDeps, user: UserRecord, oldPassword: string, newPassword: string, currentSession?: string): Promise<void> {
  // throttled like sign-in: a stolen session must not be a way to guess the password
  if (!(await deps.auth.checkOwnPassword(user, oldPassword))) throw badRequest("Invalid old password");
  if (newPassword.length < MIN_PASSWORD_LENGTH) throw badRequest("New password is too short");
  await setPassword(deps, user.id, newPassword, currentSession);
}

export async function setPassword(deps: IdentityDeps, userId: number, password: string, keepSession?: string): Promise<void> {
  const hash = await hashPassword(password);
  const r = await deps.pg.query("update users set password_hash = $1, updated_at = now() where id = $2 and not is_service_account", [hash, userId]);
  if (!r.affectedRows) throw notFound("User not found");
  // sessions of the user end with the old password, except the one that changed it
  await deps.pg.query("delete from sessions where user_id = $1 and token_hash <> $2", [userId, keepSession ? sha256(keepSession) : ""]);
  changed(deps);
}

/** a user (not a service account) by id, from the read model; 404 "user not found" as the real product says it */
export async function requireUser(deps: IdentityDeps, userId: number): Promise<UserRecord> {
  const user = (await deps.model.snapshot()).users.get(userId);
  if (!user || user.isServiceAccount) throw notFound("user not found");
  return user;
}

/** GET /api/users/lookup?loginOrEmail=: a user by login or email, without regard to case */
export async function lookupUser(deps: IdentityDeps, loginOrEmail: string): Promise<UserRecord> {
  const user = (await deps.model.snapshot()).byLogin.get(loginOrEmail.trim().toLowerCase());
  if (!user || user.isServiceAccount) throw notFound("user not found");
  return user;
}

/** the profile of another user (GET /api/users/:id): as GET /api/user shows one's own, in the user's current organization */
export function userProfile(user: UserRecord) {
  return profileOf(user, user.currentOrgId ?? 0);
}

/** POST /api/admin/users/:id/disable and /enable; a disabled user's sessions end (it can no longer sign in) */
export async function setUserDisabled(deps: IdentityDeps, userId: number, disabled: boolean): Promise<void> {
  const r = await deps.pg.query("update users set is_disabled = $2, disabled_by_directory = false, updated_at = now() where id = $1 and not is_service_account", [userId, disabled]);
  if (!r.affectedRows) throw notFound("user not found");
  if (disabled) await deps.pg.query("delete from sessions where user_id = $1", [userId]);
  changed(deps);
}

/** PUT /api/admin/users/:id/password: a server admin sets another user's password (every session of the user ends) */
export async function adminSetPassword(deps: IdentityDeps, userId: number, password: string): Promise<void> {
  if (password.length < MIN_PASSWORD_LENGTH) throw badRequest("New password is too short");
  await requireUser(deps, userId);
  await setPassword(deps, userId, password);
}

/** PUT /api/users/:id: login, email, name and theme (absent fields stay); a login or email another user has -> 409 */
export async function updateUser(deps: IdentityDeps, userId: number, input: { login?: string | undefined; email?: string | undefined; name?: string | undefined; theme?: string | undefined }): Promise<void> {
  const user = await requireUser(deps, userId);
  const login = (input.login ?? user.login).trim();
  const email = (input.email ?? user.email).trim();
  if (!login && !email) throw badRequest("Need to specify either username or email");
  requireMaxLength("login", login, NAME_LIMITS.userLogin);
  requireMaxLength("email", email, NAME_LIMITS.userEmail);
  requireMaxLength("name", input.name, NAME_LIMITS.userName);
  if (holderOf(await deps.model.snapshot(), [login, email], userId)) throw new ApiError(409, "Update would result in user login conflict");
  await deps.pg.query("update users set login = $2, email = $3, name = $4, theme = $5, updated_at = now() where id = $1", [
    userId, login || email, email || login, input.name ?? user.name, input.theme ?? user.theme,
  ]).catch((err: unknown) => {
    if (isUniqueViolation(err, "users_login_key", "users_email_key")) throw new ApiError(409, "Update would result in user login conflict");
    throw err;
  });
  changed(deps);
}

/** the number of server admins (users, not service accounts) */
async function serverAdmins(deps: IdentityDeps): Promise<number> {
  let n = 0;
  for (const u of (await deps.model.snapshot()).users.values()) if (u.isServerAdmin && !u.isServiceAccount) n++;
  return n;
}

/** PUT /api/admin/users/:id/permissions: server admin or not; the last server admin stays one */
export async function setServerAdmin(deps: IdentityDeps, userId: number, isServerAdmin: boolean): Promise<void> {
  const user = await requireUser(deps, userId);
  if (user.isServerAdmin && !isServerAdmin && (await serverAdmins(deps)) <= 1) throw badRequest("cannot remove last svc admin");
  await deps.pg.query("update users set is_server_admin = $2, updated_at = now() where id = $1", [userId, isServerAdmin]);
  changed(deps);
}

/** DELETE /api/admin/users/:id: the user and what is theirs (memberships, sessions, roles, stars: the tables' cascades); the last server admin stays */
export async function deleteUser(deps: IdentityDeps, userId: number): Promise<void> {
  const user = await requireUser(deps, userId);
  if (user.isServerAdmin && (await serverAdmins(deps)) <= 1) throw badRequest("cannot remove last svc admin");
  await deps.pg.transaction(async (tx) => {
    await tx.query("delete from preferences where user_id = $1", [userId]);
    await tx.query("delete from users where id = $1 and not is_service_account", [userId]);
  });
  changed(deps);
}

export async function switchOrg(deps: IdentityDeps, user: UserRecord, orgId: number): Promise<void> {
  const snap = await deps.model.snapshot();
  if (!snap.memberships.get(user.id)?.has(orgId)) throw new ApiError(401, "Not a valid organization");
  await deps.pg.query("update users set current_org_id = $1, updated_at = now() where id = $2", [orgId, user.id]);
  changed(deps);
}

/** the real product's label of an auth module, as lists of users show it ("ldap" -> ["LDAP"], "oauth_generic_oauth" -> ["OAuth"]; none for local users) */
export function authLabelsOf(authModule: string): string[] {
  if (!authModule) return [];
  if (authModule.startsWith("oauth_")) return ["OAuth"];
  return [authModule === "ldap" ? "LDAP" : authModule.toUpperCase()];
}

export function avatarUrl(email: string): string {
  return `/avatar/${createHash("md5").update(email.trim().toLowerCase()).digest("hex")}`;
}

/** GET /api/user: the real product's fields, with the server-admin flag named neutrally */
/** per user record (a snapshot's records are replaced when it is rebuilt): GET /api/user runs on every page */
const derived = new WeakMap<UserRecord, { updatedAt: string; createdAt: string; avatarUrl: string }>();

export function profileOf(user: UserRecord, orgId: number) {
  let d = derived.get(user);
  if (!d) derived.set(user, (d = { updatedAt: user.updatedAt.toISOString(), createdAt: user.createdAt.toISOString(), avatarUrl: avatarUrl(user.email) }));
  return {
    id: user.id,
    uid: user.uid,
    email: user.email,
    name: user.name,
    login: user.login,
    theme: user.theme,
    orgId,
    isSvcAdmin: user.isServerAdmin,
    isDisabled: user.isDisabled,
    isExternal: user.authModule !== "",
    isExternallySynced: user.authModule !== "",
    isSvcAdminExternallySynced: false,
    authLabels: authLabelsOf(user.authModule),
    updatedAt: d.updatedAt,
    createdAt: d.createdAt,
    avatarUrl: d.avatarUrl,
    isProvisioned: false,
  };
}
