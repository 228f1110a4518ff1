// Opens the one database: the embedded PGlite of a data dir (or in memory),
// or a PostgreSQL server when storage.database_url is set (postgres.ts).
// PGlite's first boot restores a data directory initialised at build time
// instead of running initdb (~0.4 s instead of 2-4 s). Either way the
// migrations are applied, under an advisory lock so several nodes starting
// together on one server migrate once.
import { PGlite } from "@electric-sql/pglite";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Config } from "../config/schema.ts";
import type { Logger } from "../lib/logger.ts";
import { newUid } from "../lib/ids.ts";
import { pgliteAssets, seedDataDir } from "../platform/embedded.ts";
import { VERSION } from "../version.ts";
import type { LabelledHistogram } from "../lib/labelled-histogram.ts";
import { checkDataDir, DATA_DIR_FORMAT, writeDataDirMarker } from "./data-dir-format.ts";
import { lockDataDir, type DataDirLock } from "./lock.ts";
import { migrate, type Migration } from "./migrate.ts";
import { queryDurations, timeQueries } from "./query-timing.ts";
import { restoreSeed } from "./seed.ts";
import { migrations as allMigrations } from "./migrations/index.ts";
import { openPostgres, type PostgresDatabase } from "./postgres.ts";
import { localFeed, postgresFeed, type ChangeFeed } from "./change-feed.ts";
import type { Sql, SqlTx } from "./sql.ts";

export interface Database {
  readonly pg: Sql;
  /** which engine: the embedded PGlite (the default) or a PostgreSQL server (storage.database_url) */
  readonly backend: "pglite" | "postgres";
  /** absolute data dir, or undefined in memory */
  readonly dataDir: string | undefined;
  readonly installationUid: string;
  /** true when this open created the data dir */
  readonly created: boolean;
  /** how long its queries take (migrations excluded), for the dashboard's /metrics */
  readonly queryDurations: LabelledHistogram;
  /** the PostgreSQL backend's own handle (a connection outside the pool for LISTEN and session locks); undefined with PGlite */
  readonly server?: PostgresDatabase;
  /** what other nodes on the same PostgreSQL database change (nothing with PGlite): read models register here, server.ts starts it */
  readonly changes: ChangeFeed;
  /** a cheap liveness probe: false once closed or broken */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** undefined keeps everything in memory and writes no files */
  dataDir: string | undefined;
  logger: Logger;
  migrations?: readonly Migration[];
  /** start a new data dir from the build-time seed (default); false runs initdb (tests that need an older schema) */
  seed?: boolean;
  /** a PostgreSQL server instead of the embedded PGlite (the data dir still holds the stores' files) */
  postgres?: {
    url: string;
    passwordFile?: string;
    caFile?: string;
    maxConnections: number;
  };
}

/**
 * Postgres's shared buffer pool. PGlite keeps Postgres's default of 128 MB,
 * which it sets up at every start inside the WebAssembly memory (growing it
 * past its initial 128 MB): with 32 MB a start costs ~90 ms less CPU on a
 * 2-core machine (docs/choices.md, "Boot time"), the process needs less
 * memory, and pages beyond it are still read from the operating system's
 * file cache. A command-line -c overrides the data dir's postgresql.conf, so
 * existing data dirs get it too.
 */
export const SHARED_BUFFERS = "32MB";
const START_PARAMS = [...PGlite.defaultStartParams, "-c", `shared_buffers=${SHARED_BUFFERS}`];

/** marks a data dir whose first boot completed (seed restored, migrated) */
const READY_MARKER = "initialized";
/** the database's own folder in a data dir */
export const PG_DIR = "pgdata";

/** the PostgreSQL backend's settings from the storage block, or undefined for the embedded database */
export function postgresOf(storage: Config["storage"]): OpenOptions["postgres"] {
  if (!storage.database_url) return undefined;
  return {
    url: storage.database_url,
    ...(storage.database_password_file ? { passwordFile: storage.database_password_file } : {}),
    ...(storage.database_ca_file ? { caFile: storage.database_ca_file } : {}),
    maxConnections: storage.database_max_connections,
  };
}

export async function openDatabase(options: OpenOptions): Promise<Database> {
  const { logger } = options;
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const migrations = options.migrations ?? allMigrations;
  let lock: DataDirLock | undefined;
  if (dataDir) {
    // before anything is written to it: a dir a newer Outpost wrote is refused, never half-opened
    const marker = existsSync(dataDir) ? checkDataDir(dataDir, migrations) : undefined;
    if (!marker && existsSync(join(dataDir, READY_MARKER))) logger.info("data dir from a release before format markers: migrating it", { dir: dataDir, format: DATA_DIR_FORMAT });
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    lock = lockDataDir(dataDir);
  }
  try {
    const opened = options.postgres
      ? await openServer(options.postgres, logger)
      : await openEmbedded(dataDir, logger, options.seed ?? true);
    const { pg, fresh } = opened;
    let installationUid: string;
    try {
      await migrate(pg, migrations, logger, options.postgres ? "the PostgreSQL database" : (dataDir ?? "the in-memory database"));
      installationUid = await ensureInstallation(pg);
    } catch (err) {
      await opened.close();
      throw err;
    }
    if (dataDir && fresh && !options.postgres) writeFileSync(join(dataDir, READY_MARKER), `${new Date().toISOString()}\n`);
    if (dataDir) writeDataDirMarker(dataDir, migrations);
    const durations = queryDurations();
    timeQueries(pg, durations);
    let closed = false;
    const changes = opened.server ? postgresFeed(opened.server, logger) : localFeed();
    return {
      pg,
      changes,
      backend: options.postgres ? "postgres" : "pglite",
      dataDir,
      installationUid,
      created: fresh,
      queryDurations: durations,
      ...(opened.server ? { server: opened.server } : {}),
      async ping() {
        if (closed || pg.closed) return false;
        try {
          await pg.query("select 1");
          return true;
        } catch {
          return false;
        }
      },
      async close() {
        if (closed) return;
        closed = true;
        try {
          await changes.close();
          await opened.close();
        } finally {
          lock?.release();
        }
      },
    };
  } catch (err) {
    lock?.release();
    throw err;
  }
}

interface Opened {
  pg: Sql;
  fresh: boolean;
  server?: PostgresDatabase;
  close(): Promise<void>;
}

async function openEmbedded(dataDir: string | undefined, logger: Logger, seed: boolean): Promise<Opened> {
  const pgDir = dataDir ? join(dataDir, PG_DIR) : undefined;
  const fresh = !dataDir || !existsSync(join(dataDir, READY_MARKER));
  if (pgDir && fresh && existsSync(pgDir)) {
    // an earlier first boot stopped half-way: nothing in it was ever served
    logger.warn("removing an unfinished database from an interrupted first boot", { dir: pgDir });
    rmSync(pgDir, { recursive: true, force: true });
  }
  const started = performance.now();
  const lite = await createPGlite(pgDir, fresh, logger, seed);
  logger.debug("database opened", { ms: Math.round(performance.now() - started), fresh });
  return { pg: embeddedSql(lite), fresh, close: () => lite.close() };
}

/** PGlite behind the interface: its own query, exec and transaction, and a checkpoint it needs (it runs no checkpointer of its own worth waiting for) */
function embeddedSql(lite: PGlite): Sql {
  return {
    backend: "pglite",
    get closed() {
      return lite.closed;
    },
    query: (sql, params) => lite.query(sql, params),
    exec: (sql) => lite.exec(sql),
    transaction: <T>(callback: (tx: SqlTx) => Promise<T>) => lite.transaction((tx) => callback(tx)),
    async checkpoint() {
      await lite.exec("checkpoint");
    },
  };
}

async function openServer(o: NonNullable<OpenOptions["postgres"]>, logger: Logger): Promise<Opened> {
  const started = performance.now();
  const server = await openPostgres({ ...o, logger });
  logger.info("database: PostgreSQL server", { ms: Math.round(performance.now() - started), max_connections: o.maxConnections });
  const fresh = (await server.query<{ t: string | null }>("select to_regclass('installation') as t")).rows[0]?.t == null;
  return { pg: server, fresh, server, close: () => server.close() };
}

async function createPGlite(pgDir: string | undefined, fresh: boolean, logger: Logger, useSeed: boolean): Promise<PGlite> {
  const seed = fresh && useSeed ? await seedDataDir() : undefined;
  const options = async (initdb: boolean) => ({
    ...((await pgliteAssets({ initdb })) ?? {}),
    ...(pgDir ? { dataDir: pgDir } : {}),
    startParams: START_PARAMS,
  });
  if (!seed) {
    if (fresh) logger.info("initialising a new database (no build-time seed found; this takes a few seconds)");
    return PGlite.create(await options(fresh));
  }
  try {
    if (!pgDir) return await PGlite.create({ ...(await options(false)), loadDataDir: seed });
    const assets = options(false); // compile the WASM module while the seed is written
    await restoreSeed(seed, pgDir);
    return await PGlite.create(await assets);
  } catch (err) {
    logger.warn("the build-time database seed could not be restored; running initdb instead", { err });
    if (pgDir) rmSync(pgDir, { recursive: true, force: true });
    return PGlite.create(await options(true));
  }
}

async function ensureInstallation(pg: Sql): Promise<string> {
  const existing = await pg.query<{ uid: string }>("select uid from installation where id = 1");
  if (existing.rows[0]) return existing.rows[0].uid;
  // several nodes starting together on one server: the first insert wins, all read it
  await pg.query("insert into installation (uid, created_version) values ($1, $2) on conflict (id) do nothing", [newUid(), VERSION]);
  const row = (await pg.query<{ uid: string }>("select uid from installation where id = 1")).rows[0];
  if (!row) throw new Error("the installation row could not be written");
  return row.uid;
}
