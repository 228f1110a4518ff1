// Server-side sessions behind the admin page's cookie. The cookie holds a
// random token; the database holds only its SHA-256 and the expiry. Lookups
// are cached in memory so a signed-in page costs no round trip per request.
import type { Sql } from "../../../../db/sql.ts";
import { randomBytes } from "node:crypto";
import { sha256 } from "./tokens.ts";

export const SESSION_COOKIE = "svc_session";

export interface SessionStore {
  create(userId: number, info: { userAgent: string; clientIp: string }): Promise<{ token: string; expiresAt: Date }>;
  /** the user of a live session, or undefined */
  lookup(token: string): Promise<number | undefined>;
  revoke(token: string): Promise<void>;
  /** drops the cache (after sessions were deleted in the database) */
  forget(): void;
  /** how many sessions have not expired (GET /metrics) */
  active(): Promise<number>;
}

/** how long a count of live sessions is reused; a sign-in, sign-out or identity write counts again */
const ACTIVE_COUNT_TTL_MS = 30_000;

export function createSessionStore(pg: Sql, lifetimeMs: number, now: () => number): SessionStore {
  const cache = new Map<string, { userId: number; expiresAt: number } | null>();
  /** the last count of live sessions: at most one query per ACTIVE_COUNT_TTL_MS, however often /metrics is scraped */
  let counted: { at: number; count: Promise<number> } | undefined;
  return {
    async create(userId, info) {
      const token = randomBytes(32).toString("base64url");
      const expiresAt = new Date(now() + lifetimeMs);
      await pg.query(
        "insert into sessions (token_hash, user_id, expires_at, user_agent, client_ip) values ($1, $2, $3, $4, $5)",
        [sha256(token), userId, expiresAt, info.userAgent.slice(0, 200), info.clientIp],
      );
      // expired sessions are removed as new ones are made
      await pg.query("delete from sessions where expires_at < $1", [new Date(now())]);
      counted = undefined;
      return { token, expiresAt };
    },
    async lookup(token) {
      if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
      const hash = sha256(token);
      let entry = cache.get(hash);
      if (entry === undefined) {
        const r = await pg.query<{ user_id: number; expires_at: string }>("select user_id, expires_at from sessions where token_hash = $1", [hash]);
        entry = r.rows[0] ? { userId: r.rows[0].user_id, expiresAt: new Date(r.rows[0].expires_at).getTime() } : null;
        if (cache.size > 10_000) cache.clear();
        cache.set(hash, entry);
      }
      return entry && entry.expiresAt > now() ? entry.userId : undefined;
    },
    async revoke(token) {
      const hash = sha256(token);
      cache.delete(hash);
      await pg.query("delete from sessions where token_hash = $1", [hash]);
      counted = undefined;
    },
    forget() {
      cache.clear();
      counted = undefined;
    },
    active() {
      const t = now();
      if (!counted || t - counted.at >= ACTIVE_COUNT_TTL_MS) {
        const mine: { at: number; count: Promise<number> } = {
          at: t,
          count: pg.query<{ n: number }>("select count(*)::int as n from sessions where expires_at > $1", [new Date(t)]).then(
            (r) => r.rows[0]!.n,
            (err: unknown) => {
              // a failed count is not kept
              if (counted === mine) counted = undefined;
              throw err;
            },
          ),
        };
        counted = mine;
      }
      return counted.count;
    },
  };
}
