// Which node runs the stores: the one holding a PostgreSQL advisory lock on
// a connection of its own. Standbys try for it every second; the server
// releases a session's locks the moment its connection ends, so when the
// active node dies (kill -9, a crash, a lost machine) a standby has it within
// about a second, opens the stores from the shared write-ahead log and
// serves. A node whose lock connection breaks has lost the lock (another may
// hold it already): it stops serving the stores at once.
import { ADVISORY_LOCK_BASE } from "../db/migrate.ts";
import type { PostgresDatabase } from "../db/postgres.ts";
import type { Logger } from "../lib/logger.ts";

/** the store lock's key (db/migrate.ts's base + 2) */
export const STORE_LOCK = ADVISORY_LOCK_BASE + 2;
const TRY_EVERY_MS = 1_000;
const CHECK_EVERY_MS = 2_000;

export interface StoreLock {
  /** resolves after the first try: with the stores open when the lock was free, else as a standby */
  readonly settled: Promise<void>;
  /** stops trying, or releases the lock (its connection closes) */
  stop(): Promise<void>;
}

export function campaignForStores(db: PostgresDatabase, logger: Logger, on: { elected(): Promise<void>; lost(): void }): StoreLock {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let client: Awaited<ReturnType<PostgresDatabase["connect"]>> | undefined;
  let leading = false;

  const later = (ms: number, step: () => Promise<void>) => {
    if (stopped) return;
    timer = setTimeout(() => void step(), ms);
  };

  const drop = () => {
    const c = client;
    client = undefined;
    c?.removeAllListeners("error");
    c?.on("error", () => undefined);
    c?.end().catch(() => undefined);
  };

  const lose = (why: string) => {
    drop();
    if (!leading) return;
    leading = false;
    logger.error("the store lock's connection is gone: another node may run the stores now; this one stops serving them", { why });
    on.lost();
  };

  const attempt = async (): Promise<void> => {
    try {
      if (!client) {
        // a check not answered within seconds is a lost lock: the server may have ended this session already
        const c = await db.connect({ queryTimeoutMs: 5_000 });
        c.on("error", (err) => lose(err.message));
        client = c;
      }
      const r = await client.query<{ ok: boolean }>("select pg_try_advisory_lock($1) as ok", [STORE_LOCK]);
      if (stopped) return;
      if (!r.rows[0]?.ok) return later(TRY_EVERY_MS, attempt);
      leading = true;
      logger.info("this node holds the store lock: opening the stores");
      await on.elected();
      later(CHECK_EVERY_MS, check);
    } catch (err) {
      if (leading) {
        // the stores could not open (or the connection went meanwhile): the lock goes back, for another node or a later try
        lose(String(err));
        return later(TRY_EVERY_MS * 5, attempt);
      }
      drop();
      if (!stopped) logger.warn("trying for the store lock failed; trying again", { err: String(err) });
      later(TRY_EVERY_MS, attempt);
    }
  };

  /** the lock lives with its connection: a dead connection is a lost lock */
  const check = async (): Promise<void> => {
    try {
      await client!.query("select 1");
      later(CHECK_EVERY_MS, check);
    } catch (err) {
      lose(String(err));
      if (!stopped) later(TRY_EVERY_MS, attempt);
    }
  };

  const settled = attempt();
  return {
    settled,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      leading = false;
      drop();
    },
  };
}
