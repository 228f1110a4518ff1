// Background work that one node at a time does when several nodes share one
// PostgreSQL database (the LDAP active sync, re-wrapping secrets): a session
// advisory lock on a connection of its own, outside the pool (no pooled
// connection is held, no transaction stays open while the work runs), which
// the server releases the moment that connection ends, whatever becomes of
// the node. With PGlite there is one process: the work just runs.
import { ADVISORY_LOCK_BASE } from "../../db/migrate.ts";
import type { Database } from "../../db/open.ts";

/** db/migrate.ts's base plus one per job; +1 and +2 are db/change-feed.ts's and cluster/store-lock.ts's */
const BASE = ADVISORY_LOCK_BASE;
export const LDAP_SYNC_LOCK = BASE + 16;
export const SECRETS_REWRAP_LOCK = BASE + 17;

export interface ClusterLock {
  /** runs `work` holding the lock, waiting for another node to release it first */
  run<T>(work: () => Promise<T>): Promise<T>;
  /** runs `work` holding the lock; false (nothing run) when another node holds it now */
  tryRun(work: () => Promise<void>): Promise<boolean>;
}

export function clusterLock(db: Pick<Database, "server">, key: number): ClusterLock {
  const server = db.server;
  if (!server) {
    return {
      run: (work) => work(),
      tryRun: async (work) => {
        await work();
        return true;
      },
    };
  }
  const holding = async <T>(take: string, work: () => Promise<T>): Promise<{ value: T } | undefined> => {
    const client = await server.connect();
    // the connection lost while the work runs: the lock is gone with it; the work, begun, goes on (no crash on the event)
    client.on("error", () => undefined);
    try {
      const got = await client.query<{ ok: boolean }>(take, [key]);
      if (!got.rows[0]?.ok) return undefined;
      return { value: await work() };
    } finally {
      await client.end().catch(() => undefined);
    }
  };
  return {
    async run(work) {
      // waits until it has the lock: always ok
      return (await holding("select true as ok from pg_advisory_lock($1)", work))!.value;
    },
    async tryRun(work) {
      return (await holding("select pg_try_advisory_lock($1) as ok", work)) !== undefined;
    },
  };
}
