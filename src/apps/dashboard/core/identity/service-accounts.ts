// Service accounts (users with is_service_account, one organization each) and
// their tokens. Shapes and messages follow the real product (reference §3).
import { ApiError, badRequest } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import { roleRank, type OrgRole } from "./basic-roles.ts";
import { changed, type IdentityDeps } from "./identity-deps.ts";
import { hasPermission, type PermissionSet } from "./permissions.ts";
import { newToken, sha256 } from "./tokens.ts";
import { avatarUrl } from "./users.ts";
import { isUniqueViolation } from "../../../../db/errors.ts";
import { NAME_LIMITS, requireMaxLength } from "./name-limits.ts";

export const saNotFound = () =>
  new ApiError(404, "service account not found", { messageId: "serviceaccounts.ErrNotFound" });
const saExists = () => new ApiError(400, "service account already exists", { messageId: "serviceaccounts.ErrAlreadyExists" });
const tokenNotFound = () =>
  new ApiError(404, "service account token not found", { messageId: "serviceaccounts.ErrTokenNotFound" });

export interface Caller {
  orgId: number;
  orgRole: OrgRole | null;
  isServerAdmin: boolean;
  permissions: PermissionSet;
}

interface AccountRow {
  id: number;
  uid: string;
  name: string;
  login: string;
  email: string;
  is_disabled: boolean;
  role: OrgRole;
  created_at: string;
  updated_at: string;
  tokens: number;
}

const selectAccounts = `
  select u.id, u.uid, u.name, u.login, u.email, u.is_disabled, m.role, u.created_at, u.updated_at,
         (select count(*)::int from api_tokens t where t.service_account_id = u.id) as tokens
    from users u join org_members m on m.user_id = u.id
   where u.is_service_account and m.org_id = $1`;

/** a caller may not hand out a role above their own (server admins may) */
function checkRoleAllowed(caller: Caller, role: OrgRole) {
  if (caller.isServerAdmin) return;
  if (!caller.orgRole || roleRank(role) > roleRank(caller.orgRole)) {
    throw new ApiError(403, "can not assign a role higher than user's role", { messageId: "serviceaccounts.ErrRoleForbidden" });
  }
}

export function loginFor(orgId: number, name: string): string {
  const slug = name.trim().toLowerCase().replace(/\s+/g, "-").replace(/[^a-z0-9._@-]/g, "");
  return `sa-${orgId}-${slug || "account"}`;
}

function summary(row: AccountRow, orgId: number) {
  return {
    id: row.id,
    uid: row.uid,
    name: row.name,
    login: row.login,
    orgId,
    isDisabled: row.is_disabled,
    role: row.role,
    tokens: row.tokens,
    avatarUrl: avatarUrl(row.email),
  };
}

function profile(row: AccountRow, orgId: number) {
  return {
    ...summary(row, orgId),
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
    teams: [] as string[],
  };
}

function accessControl(caller: Caller, id: number) {
  const scope = [`serviceaccounts:id:${id}`];
  return Object.fromEntries(
    ["serviceaccounts:delete", "serviceaccounts:read", "serviceaccounts:write"].map((a) => [a, hasPermission(caller.permissions, a, scope)]),
  );
}

async function findAccount(deps: IdentityDeps, orgId: number, id: number): Promise<AccountRow> {
  const r = await deps.pg.query<AccountRow>(`${selectAccounts} and u.id = $2`, [orgId, id]);
  if (!r.rows[0]) throw saNotFound();
  return r.rows[0];
}

export async function createServiceAccount(deps: IdentityDeps, caller: Caller, input: { name: string; role?: OrgRole | undefined; isDisabled?: boolean | undefined }) {
  const name = input.name.trim();
  if (!name) throw badRequest("bad request data: name must be non-empty");
  requireMaxLength("name", name, NAME_LIMITS.serviceAccountName);
  const role = input.role ?? "Viewer";
  checkRoleAllowed(caller, role);
  const login = loginFor(caller.orgId, name);
  const taken = await deps.pg.query(
    `select 1 from users u join org_members m on m.user_id = u.id
      where u.is_service_account and m.org_id = $1 and (lower(u.name) = lower($2) or lower(u.login) = lower($3))`,
    [caller.orgId, name, login],
  );
  if (taken.rows.length) throw saExists();
  const id = await deps.pg
    .transaction(async (tx) => {
      const r = await tx.query<{ id: number }>(
        `insert into users (uid, login, email, name, is_service_account, is_disabled, current_org_id)
         values ($1, $2, $2, $3, true, $4, $5) returning id`,
        [newUid(), login, name, input.isDisabled ?? false, caller.orgId],
      );
      await tx.query("insert into org_members (org_id, user_id, role) values ($1, $2, $3)", [caller.orgId, r.rows[0]!.id, role]);
      return r.rows[0]!.id;
    })
    .catch((err: unknown) => {
      if (isUniqueViolation(err, "users_login_key", "users_email_key")) throw saExists();
      throw err;
    });
  changed(deps);
  return summary(await findAccount(deps, caller.orgId, id), caller.orgId);
}

export async function getServiceAccount(deps: IdentityDeps, caller: Caller, id: number) {
  const row = await findAccount(deps, caller.orgId, id);
  return { ...profile(row, caller.orgId), accessControl: accessControl(caller, id) };
}

export interface SearchQuery {
  query: string;
  page: number;
  perPage: number;
  disabled: boolean;
  expiredTokens: boolean;
}

export async function searchServiceAccounts(deps: IdentityDeps, caller: Caller, q: SearchQuery) {
  const filters = [
    "(lower(u.name) like $2 or lower(u.login) like $2 or lower(u.email) like $2)",
    q.disabled ? "u.is_disabled" : "true",
    q.expiredTokens
      ? "exists (select 1 from api_tokens t where t.service_account_id = u.id and t.expires_at is not null and t.expires_at <= now())"
      : "true",
  ].join(" and ");
  const like = `%${q.query.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
  const total = await deps.pg.query<{ n: number }>(
    `select count(*)::int as n from users u join org_members m on m.user_id = u.id
      where u.is_service_account and m.org_id = $1 and ${filters}`,
    [caller.orgId, like],
  );
  const rows = await deps.pg.query<AccountRow>(
    `${selectAccounts} and ${filters} order by lower(u.login) limit $3 offset $4`,
    [caller.orgId, like, q.perPage, (q.page - 1) * q.perPage],
  );
  return {
    totalCount: total.rows[0]!.n,
    serviceAccounts: rows.rows.map((row) => ({ ...summary(row, caller.orgId), accessControl: accessControl(caller, row.id) })),
    page: q.page,
    perPage: q.perPage,
  };
}

/** an account above the caller's own role is out of the caller's reach (its tokens would be an escalation) */
async function reachableAccount(deps: IdentityDeps, caller: Caller, id: number): Promise<AccountRow> {
  const row = await findAccount(deps, caller.orgId, id);
  checkRoleAllowed(caller, row.role);
  return row;
}

export async function updateServiceAccount(
  deps: IdentityDeps,
  caller: Caller,
  id: number,
  input: { name?: string | undefined; role?: OrgRole | undefined; isDisabled?: boolean | undefined },
) {
  await reachableAccount(deps, caller, id);
  if (input.role !== undefined) checkRoleAllowed(caller, input.role);
  const name = input.name?.trim();
  if (name !== undefined) {
    if (!name) throw badRequest("bad request data: name must be non-empty");
    requireMaxLength("name", name, NAME_LIMITS.serviceAccountName);
    const taken = await deps.pg.query(
      `select 1 from users u join org_members m on m.user_id = u.id
        where u.is_service_account and m.org_id = $1 and lower(u.name) = lower($2) and u.id <> $3`,
      [caller.orgId, name, id],
    );
    if (taken.rows.length) throw saExists();
  }
  await deps.pg.transaction(async (tx) => {
    await tx.query(
      `update users set name = coalesce($2, name), is_disabled = coalesce($3, is_disabled), updated_at = now() where id = $1`,
      [id, name ?? null, input.isDisabled ?? null],
    );
    if (input.role !== undefined) {
      await tx.query("update org_members set role = $3, updated_at = now() where org_id = $1 and user_id = $2", [caller.orgId, id, input.role]);
    }
  });
  changed(deps);
  const row = await findAccount(deps, caller.orgId, id);
  return { message: "Service account updated", id, name: row.name, serviceaccount: profile(row, caller.orgId) };
}

export async function deleteServiceAccount(deps: IdentityDeps, caller: Caller, id: number): Promise<void> {
  await reachableAccount(deps, caller, id);
  await deps.pg.query("delete from users where id = $1 and is_service_account", [id]);
  changed(deps);
}

/** secondsUntilExpiration is only reported when the token expires within 7 days (the real product) */
const SOON_MS = 7 * 24 * 3600 * 1000;

export async function listTokens(deps: IdentityDeps, caller: Caller, id: number) {
  const now = deps.now();
  const r = await deps.pg.query<{ id: number; name: string; created_at: string; expires_at: string | null; last_used_at: string | null; is_revoked: boolean; role: OrgRole }>(
    `select t.id, t.name, t.created_at, t.expires_at, t.last_used_at, t.is_revoked, m.role
       from api_tokens t join org_members m on m.user_id = t.service_account_id and m.org_id = t.org_id
      where t.org_id = $1 and t.service_account_id = $2 order by t.id`,
    [caller.orgId, id],
  );
  return r.rows.map((t) => {
    const expires = t.expires_at ? new Date(t.expires_at).getTime() : null;
    const left = expires === null ? 0 : Math.max(0, Math.floor((expires - now) / 1000));
    return {
      id: t.id,
      name: t.name,
      role: t.role,
      created: new Date(t.created_at).toISOString(),
      lastUsedAt: t.last_used_at ? new Date(t.last_used_at).toISOString() : null,
      expiration: expires === null ? null : new Date(expires).toISOString(),
      secondsUntilExpiration: expires !== null && expires - now <= SOON_MS ? left : 0,
      hasExpired: expires !== null && expires <= now,
      isRevoked: t.is_revoked,
    };
  });
}

export async function createToken(deps: IdentityDeps, caller: Caller, id: number, input: { name: string; secondsToLive?: number | undefined }) {
  const now = deps.now();
  const ttl = input.secondsToLive ?? 0;
  // negative, or beyond any date the database can hold (100 years is plenty)
  if (ttl < 0 || ttl > 100 * 365 * 86400) throw new ApiError(400, "invalid SecondsToLive value", { messageId: "serviceaccounts.ErrInvalidInput" });
  const name = input.name.trim();
  if (!name) throw badRequest("bad request data: name must be non-empty");
  requireMaxLength("name", name, NAME_LIMITS.tokenName);
  await reachableAccount(deps, caller, id);
  const key = newToken();
  const expires = ttl > 0 ? new Date(now + ttl * 1000) : null;
  const r = await deps.pg
    .query<{ id: number }>(
      "insert into api_tokens (org_id, service_account_id, name, hash, expires_at) values ($1, $2, $3, $4, $5) returning id",
      [caller.orgId, id, name, sha256(key), expires],
    )
    .catch((err: unknown) => {
      if (isUniqueViolation(err, "api_tokens_org_name_key")) {
        throw new ApiError(400, "service account token with given name already exists in the organization", {
          messageId: "serviceaccounts.ErrTokenAlreadyExists",
        });
      }
      throw err;
    });
  changed(deps);
  return { id: r.rows[0]!.id, name, key };
}

export async function deleteToken(deps: IdentityDeps, caller: Caller, id: number, tokenId: number): Promise<void> {
  await reachableAccount(deps, caller, id);
  const r = await deps.pg.query("delete from api_tokens where id = $1 and service_account_id = $2 and org_id = $3", [tokenId, id, caller.orgId]);
  if (!r.affectedRows) throw tokenNotFound();
  changed(deps);
}
