// Numbered SQL migrations, applied in order inside one transaction and
// recorded in schema_migrations. A database already migrated past what this
// build knows was written by a newer Outpost and is refused.
import type { Sql } from "./sql.ts";

/** what migrating needs: PGlite itself (the seed script, tests of old schemas) or the interface */
export type Migratable = Pick<Sql, "query" | "exec" | "transaction">;
import type { Logger } from "../lib/logger.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export class SchemaTooNewError extends Error {}

/**
 * The advisory lock keys of Outpost: "OPST" as an integer, plus one per use.
 * Small enough that every key is an exact JavaScript number (a key above 2^53
 * and its neighbours would be one key).
 */
export const ADVISORY_LOCK_BASE = 0x4f505354;
/** the advisory lock key migrations run under */
export const MIGRATION_LOCK = ADVISORY_LOCK_BASE;

export async function migrate(pg: Migratable, migrations: readonly Migration[], logger: Logger, where: string): Promise<number> {
  const latestKnown = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const pendingOf = async (db: Pick<Sql, "query">): Promise<Migration[]> => {
    const exists = (await db.query<{ t: string | null }>("select to_regclass('schema_migrations')::text as t")).rows[0]?.t != null;
    const applied = new Set(exists ? (await db.query<{ version: number }>("select version from schema_migrations")).rows.map((r) => r.version) : []);
    const newest = Math.max(0, ...applied);
    if (newest > latestKnown) {
      throw new SchemaTooNewError(
        `${where} was written by a newer version of Outpost (schema version ${newest}; ` +
          `this version knows up to ${latestKnown}): upgrade Outpost, or use another data dir`,
      );
    }
    return [...migrations].sort((a, b) => a.version - b.version).filter((m) => !applied.has(m.version));
  };
  // the usual start: nothing to do, and no lock taken
  if ((await pendingOf(pg)).length === 0) return 0;
  // several nodes starting together on one PostgreSQL server: one migrates while the others wait,
  // then find nothing left (the lock is the transaction's; PGlite takes it as well, alone)
  const done = await pg.transaction(async (tx) => {
    await tx.query("select pg_advisory_xact_lock($1)", [MIGRATION_LOCK]);
    await tx.exec(`create table if not exists schema_migrations (
      version integer primary key,
      name text not null,
      applied_at timestamptz not null default now()
    )`);
    const pending = await pendingOf(tx);
    for (const m of pending) {
      await tx.exec(m.sql);
      await tx.query("insert into schema_migrations (version, name) values ($1, $2)", [m.version, m.name]);
    }
    return pending;
  });
  if (done.length > 0) logger.info("database migrated", { applied: done.map((m) => `${m.version}_${m.name}`).join(",") });
  return done.length;
}
