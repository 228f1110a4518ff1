// Brute-force protection: after too many failed logins for one account
// within the lock-out window, further attempts are refused without checking
// the password, with the same public message as a wrong password (so the
// response never tells whether the login exists). Failures are counted per
// account (by id, whichever of login or email was typed) and, for names that
// match no account, per name.
//
// One process (PGlite) counts in memory. Nodes sharing a PostgreSQL database
// count in it (table login_failures), or an attacker would get the limit once
// per node: each failure is one atomic upsert, and a lock set through one node
// holds on all.
import type { ChangeFeed } from "../../../../db/change-feed.ts";
import type { Sql } from "../../../../db/sql.ts";
import { sha256 } from "./tokens.ts";

export interface LoginThrottle {
  /**
   * whether the key is locked out. `verified`: the caller checked these very
   * credentials a moment ago (a cache hit, no password check follows), so an
   * answer a moment old will do: the database's need not be asked again
   */
  isLocked(key: string, verified?: boolean): Promise<boolean>;
  recordFailure(key: string): Promise<void>;
  /**
   * counts an attempt before it is checked, unless the key is locked out
   * (false: nothing counted), atomically: parallel guesses cannot all pass the
   * lock check while the first ones are being checked
   */
  tryAttempt(key: string): Promise<boolean>;
  reset(key: string): Promise<void>;
}

/** at most this many names are tracked; the oldest are forgotten first */
const MAX_TRACKED = 100_000;

/** the throttle of one process, in memory */
export function createLoginThrottle(maxAttempts: number, windowMs: number, now = () => Date.now()): LoginThrottle {
  const failures = new Map<string, number[]>();
  const recent = (key: string) => {
    const since = now() - windowMs;
    const list = (failures.get(key) ?? []).filter((t) => t > since);
    if (list.length) failures.set(key, list);
    else failures.delete(key);
    return list;
  };
  const isLocked = (key: string) => maxAttempts > 0 && recent(key).length >= maxAttempts;
  const recordFailure = (key: string) => {
    if (maxAttempts <= 0) return;
    const list = [...recent(key), now()];
    failures.delete(key); // re-insert: Map order is then least recently failed first
    failures.set(key, list);
    while (failures.size > MAX_TRACKED) failures.delete(failures.keys().next().value!);
  };
  return {
    isLocked: async (key) => isLocked(key),
    recordFailure: async (key) => recordFailure(key),
    // no await between the check and the count: nothing else runs in between
    async tryAttempt(key) {
      if (isLocked(key)) return false;
      recordFailure(key);
      return true;
    },
    reset: async (key) => void failures.delete(key),
  };
}

/** how often rows whose failures all left the window are swept (by a node recording a failure) */
const SWEEP_MS = 60_000;

/**
 * The throttle of nodes sharing a PostgreSQL database. A row keeps the times
 * of a key's latest failures (at most the limit: only whether that many fall
 * in the window matters), newest first. `changes` (the running server's feed)
 * lets a credential this node verified a moment ago pass without a round trip
 * per request: the keys the database last said were not locked are kept
 * until any node writes a failure or a reset (the feed tells); without it
 * every check asks the database.
 */
export function createSharedLoginThrottle(pg: Sql, maxAttempts: number, windowMs: number, now = () => Date.now(), changes?: ChangeFeed): LoginThrottle {
  const unlocked = new Set<string>();
  /** bumped by every write, here or (through the feed) elsewhere: an answer read across one is not kept */
  let generation = 0;
  /** a write of this node: a read begun before it ended may have missed it */
  const writing = async <T>(key: string, write: () => Promise<T>): Promise<T> => {
    generation++;
    unlocked.delete(key);
    try {
      return await write();
    } finally {
      generation++;
    }
  };
  changes?.on("login_failures", ["login_failures"], () => {
    generation++;
    unlocked.clear();
  });
  let swept = 0;
  const sweep = (t: number) => {
    if (t - swept < SWEEP_MS) return;
    swept = t;
    // not awaited, and a failure is retried at the next sweep: nothing depends on it but the table's size
    pg.query("delete from login_failures where until_ms <= $1", [t]).catch(() => undefined);
  };
  /**
   * the failure at `t` added to the row (the latest `maxAttempts` within the
   * window kept); `onlyUnlocked`: unless the row is locked out, when nothing
   * changes and no row comes back
   */
  const upsert = (onlyUnlocked: boolean) => `
    insert into login_failures as f (key_hash, failures, until_ms) values ($1, array[$2::int8], $2 + $4::int8)
    on conflict (key_hash) do update
      set failures = array(select t from unnest(array[$2::int8] || f.failures) t where t > $3 order by t desc limit $5),
          until_ms = $2 + $4::int8
      ${onlyUnlocked ? "where (select count(*) from unnest(f.failures) t where t > $3) < $5" : ""}
    returning 1 as counted`;
  const count = async (key: string, onlyUnlocked: boolean): Promise<boolean> => {
    const t = now();
    const r = await writing(key, () => pg.query(upsert(onlyUnlocked), [sha256(key), t, t - windowMs, windowMs, maxAttempts]));
    sweep(t);
    return r.rows.length > 0;
  };
  return {
    async isLocked(key, verified) {
      if (maxAttempts <= 0) return false;
      if (verified && changes && unlocked.has(key)) return false;
      const seen = generation;
      const r = await pg.query<{ n: number }>(
        "select (select count(*) from unnest(failures) t where t > $2)::int as n from login_failures where key_hash = $1",
        [sha256(key), now() - windowMs],
      );
      const locked = (r.rows[0]?.n ?? 0) >= maxAttempts;
      // kept only when no write came in between (it may be the one that locked the key)
      if (!locked && changes && seen === generation) {
        unlocked.add(key);
        if (unlocked.size > MAX_TRACKED) unlocked.delete(unlocked.values().next().value!);
      }
      return locked;
    },
    async recordFailure(key) {
      if (maxAttempts > 0) await count(key, false);
    },
    async tryAttempt(key) {
      return maxAttempts <= 0 || (await count(key, true));
    },
    async reset(key) {
      if (maxAttempts > 0) await writing(key, () => pg.query("delete from login_failures where key_hash = $1", [sha256(key)]));
    },
  };
}
