// User lists for the admin pages: GET /api/users and /api/users/search, and
// the pieces the organization member lists share with them (the search
// filter, paging, "last seen"). Service accounts are users in the table but
// never in these lists, as in the real product.
import type { Sql } from "../../../../db/sql.ts";
import type { IdentityDeps } from "./identity-deps.ts";
import { authLabelsOf, avatarUrl } from "./users.ts";

export interface PageQuery {
  /** part of the login, email or name, any case; "" matches everyone */
  query: string;
  page: number;
  perPage: number;
}

/** a LIKE pattern holding `text` literally, lower-cased (match against lower(column)) */
export function likePattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
}

/** `u` is a person (not a service account) whose login, email or name contains the pattern in parameter `$n` */
export const personMatches = (n: number) =>
  `not u.is_service_account and (lower(u.login) like $${n} or lower(u.email) like $${n} or lower(u.name) like $${n})`;

/**
 * When each user was last seen: their newest sign-in session. Outpost stores
 * no per-request last-seen time (the real product writes one at most every
 * 15 minutes), so a user who only uses basic auth, or whose sessions all
 * ended, reads as never seen.
 */
export const LAST_SEEN_JOIN =
  "left join (select user_id, max(created_at) as last_seen from sessions group by user_id) seen on seen.user_id = u.id";

const YEAR_MS = 525_600 * 60_000;

/**
 * lastSeenAt and lastSeenAtAge as the real product renders them. Never seen
 * is its value for a new user, 10 years before the user was created (its
 * pages show an age of "10 years" or more as "Never").
 */
export function lastSeenFields(lastSeen: unknown, createdAt: unknown, now: number): { lastSeenAt: string; lastSeenAtAge: string } {
  const at = lastSeen ? new Date(lastSeen as string).getTime() : new Date(createdAt as string).getTime() - 10 * YEAR_MS;
  return { lastSeenAt: new Date(at).toISOString(), lastSeenAtAge: ageString(now - at) };
}

/** the real product's age text (util.GetAgeString): the largest whole unit, "< 1 minute" under a minute */
export function ageString(ms: number): string {
  const minutes = ms / 60_000;
  const units: Array<[number, string]> = [[525_600, "year"], [43_800, "month"], [1440, "day"], [60, "hour"], [1, "minute"]];
  for (const [size, name] of units) {
    const n = Math.floor(minutes / size);
    if (n > 0) return `${n} ${name}${n === 1 ? "" : "s"}`;
  }
  return "< 1 minute";
}

/**
 * Runs `select <columns> <from>` for one page (ordered by `order`) and counts
 * every matching row; `params` are the `from` clause's, the page's limit and
 * offset are appended. A perPage of Infinity means no limit.
 */
export async function pageOf<T>(
  pg: Sql, columns: string, from: string, order: string, params: unknown[], page: number, perPage: number,
): Promise<{ totalCount: number; rows: T[] }> {
  const n = params.length;
  const limit = Number.isFinite(perPage) ? perPage : null;
  const [count, rows] = [
    await pg.query<{ n: number }>(`select count(*)::int as n ${from}`, params),
    await pg.query<T>(`select ${columns} ${from} order by ${order} limit $${n + 1} offset $${n + 2}`, [
      ...params, limit, limit === null ? 0 : (page - 1) * limit,
    ]),
  ];
  return { totalCount: count.rows[0]!.n, rows: rows.rows };
}

interface UserRow {
  id: number;
  uid: string;
  login: string;
  email: string;
  name: string;
  is_server_admin: boolean;
  is_disabled: boolean;
  auth_module: string;
  created_at: string;
  last_seen: string | null;
}

/** GET /api/users/search: every person on the server, by login then email */
export async function searchUsers(deps: IdentityDeps, q: PageQuery) {
  const { totalCount, rows } = await pageOf<UserRow>(
    deps.pg,
    "u.id, u.uid, u.login, u.email, u.name, u.is_server_admin, u.is_disabled, u.auth_module, u.created_at, seen.last_seen",
    `from users u ${LAST_SEEN_JOIN} where ${personMatches(1)}`,
    "lower(u.login), lower(u.email)",
    [likePattern(q.query)],
    q.page,
    q.perPage,
  );
  const now = deps.now();
  const users = rows.map((r) => ({
    id: Number(r.id),
    uid: r.uid,
    name: r.name,
    login: r.login,
    email: r.email,
    avatarUrl: avatarUrl(r.email),
    isAdmin: Boolean(r.is_server_admin),
    isDisabled: Boolean(r.is_disabled),
    ...lastSeenFields(r.last_seen, r.created_at, now),
    authLabels: authLabelsOf(r.auth_module),
    isProvisioned: false,
  }));
  return { totalCount, users, page: q.page, perPage: q.perPage };
}
