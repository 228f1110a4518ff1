import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { DataDirInUseError } from "../../src/db/lock.ts";
import { SchemaTooNewError, type Migration } from "../../src/db/migrate.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { openDatabase, SHARED_BUFFERS } from "../../src/db/open.ts";
import { silentLogger as logger } from "../../src/lib/logger.ts";
import { migrationsDir, renderMigrationIndex } from "../../scripts/gen-migrations.ts";

/** data dirs of this file, removed after it (each ~33 MB) */
const tempDir = tempDirs("outpost-db-");

describe("database", () => {
  it("the migration index matches the .sql files (run `npm run gen` after adding one)", () => {
    expect(readFileSync(join(migrationsDir, "index.ts"), "utf8")).toBe(renderMigrationIndex(migrationsDir));
  });

  it("migration versions are unique and ascending", () => {
    const versions = migrations.map((m) => m.version);
    expect(versions).toEqual([...new Set(versions)].sort((a, b) => a - b));
  });

  it("a new data dir is created, migrated, and keeps its data across reopen", async () => {
    const dir = tempDir();
    const db = await openDatabase({ dataDir: dir, logger });
    expect(db.created).toBe(true);
    const applied = await db.pg.query<{ version: number }>("select version from schema_migrations order by version");
    expect(applied.rows.map((r) => r.version)).toEqual(migrations.map((m) => m.version));
    await db.pg.exec("create table kept (v text); insert into kept values ('survives')");
    const uid = db.installationUid;
    await db.close();
    expect(existsSync(join(dir, "outpost.lock"))).toBe(false);

    const again = await openDatabase({ dataDir: dir, logger });
    expect(again.created).toBe(false);
    expect(again.installationUid).toBe(uid);
    expect((await again.pg.query<{ v: string }>("select v from kept")).rows).toEqual([{ v: "survives" }]);
    await again.close();
  });

  it("the database runs with a 32 MB buffer pool (a quicker start than Postgres's 128 MB), a new data dir, a reopened one and in memory alike", async () => {
    expect(SHARED_BUFFERS).toBe("32MB");
    const dir = tempDir();
    const shared = async (db: Awaited<ReturnType<typeof openDatabase>>) => (await db.pg.query<{ shared_buffers: string }>("show shared_buffers")).rows[0]?.shared_buffers;
    const created = await openDatabase({ dataDir: dir, logger });
    expect(await shared(created)).toBe("32MB");
    await created.close();
    const reopened = await openDatabase({ dataDir: dir, logger });
    expect(await shared(reopened)).toBe("32MB");
    await reopened.close();
    const memory = await openDatabase({ dataDir: undefined, logger });
    expect(await shared(memory)).toBe("32MB");
    await memory.close();
  });

  it("a second open of the same data dir -> data dir in use", async () => {
    const dir = tempDir();
    const db = await openDatabase({ dataDir: dir, logger });
    try {
      await expect(openDatabase({ dataDir: dir, logger })).rejects.toThrow(DataDirInUseError);
      await expect(openDatabase({ dataDir: dir, logger })).rejects.toThrow(/^data dir in use: /);
    } finally {
      await db.close();
    }
  });

  it("a lock left by a process that is gone is taken over", async () => {
    const dir = tempDir();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "outpost.lock"), "999999999\n");
    const db = await openDatabase({ dataDir: dir, logger });
    expect(readFileSync(join(dir, "outpost.lock"), "utf8").trim()).toBe(String(process.pid));
    await db.close();
  });

  it("a data dir written by a newer version is refused with a clear message", async () => {
    const dir = tempDir();
    const db = await openDatabase({ dataDir: dir, logger });
    await db.pg.query("insert into schema_migrations (version, name) values (9999, 'from_the_future')");
    await db.close();
    const open = openDatabase({ dataDir: dir, logger });
    await expect(open).rejects.toThrow(SchemaTooNewError);
    await expect(openDatabase({ dataDir: dir, logger })).rejects.toThrow(
      /was written by a newer version of Outpost \(schema version 9999; this version knows up to \d+\)/,
    );
    expect(existsSync(join(dir, "outpost.lock"))).toBe(false);
  });

  it("pending migrations apply in order inside one transaction; a failing one applies none", async () => {
    const dir = tempDir();
    const extra: Migration[] = [
      { version: 9001, name: "first", sql: "create table m1 (a int);" },
      { version: 9002, name: "broken", sql: "create table m2 (a int); select * from no_such_table;" },
    ];
    await expect(openDatabase({ dataDir: dir, logger, migrations: [...migrations, ...extra] })).rejects.toThrow(/no_such_table/);
    const db = await openDatabase({ dataDir: dir, logger });
    const tables = await db.pg.query("select 1 from information_schema.tables where table_name in ('m1', 'm2')");
    expect(tables.rows).toEqual([]);
    await db.close();
  });

  it("an interrupted first boot (database files but no completion marker) starts over", async () => {
    const dir = tempDir();
    mkdirSync(join(dir, "pgdata"), { recursive: true });
    writeFileSync(join(dir, "pgdata", "PG_VERSION"), "garbage");
    const db = await openDatabase({ dataDir: dir, logger });
    expect(db.created).toBe(true);
    expect(await db.ping()).toBe(true);
    await db.close();
  });

  it("in memory: no files are written", async () => {
    const db = await openDatabase({ dataDir: undefined, logger });
    expect(db.dataDir).toBeUndefined();
    expect(await db.ping()).toBe(true);
    await db.close();
    expect(await db.ping()).toBe(false);
  });
});
