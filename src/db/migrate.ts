// Numbered SQL migrations, applied in order inside one transaction and
// recorded in schema_migrations. A database already migrated past what this
// build knows was written by a newer Outpost and is refused.
import type { PGlite } from "@electric-sql/pglite";
import type { Logger } from "../lib/logger.ts";

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export class SchemaTooNewError extends Error {}

export async function migrate(pg: PGlite, migrations: readonly Migration[], logger: Logger, where: string): Promise<number> {
  await pg.exec(`create table if not exists schema_migrations (
    version integer primary key,
    name text not null,
    applied_at timestamptz not null default now()
  )`);
  const applied = new Set(
    (await pg.query<{ version: number }>("select version from schema_migrations")).rows.map((r) => r.version),
  );
  const latestKnown = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  const newest = Math.max(0, ...applied);
  if (newest > latestKnown) {
    throw new SchemaTooNewError(
      `${where} was written by a newer version of Outpost (schema version ${newest}; ` +
        `this version knows up to ${latestKnown}): upgrade Outpost, or use another data dir`,
    );
  }
  const pending = [...migrations].sort((a, b) => a.version - b.version).filter((m) => !applied.has(m.version));
  if (pending.length === 0) return 0;
  await pg.transaction(async (tx) => {
    for (const m of pending) {
      await tx.exec(m.sql);
      await tx.query("insert into schema_migrations (version, name) values ($1, $2)", [m.version, m.name]);
    }
  });
  logger.info("database migrated", { applied: pending.map((m) => `${m.version}_${m.name}`).join(",") });
  return pending.length;
}
