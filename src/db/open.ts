// Opens the one embedded PGlite database of a data dir (or in memory).
// First boot restores a data directory initialised at build time instead of
// running initdb (~0.4 s instead of 2-4 s), then applies migrations.
import { PGlite } from "@electric-sql/pglite";
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
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

export interface Database {
  readonly pg: PGlite;
  /** absolute data dir, or undefined in memory */
  readonly dataDir: string | undefined;
  readonly installationUid: string;
  /** true when this open created the data dir */
  readonly created: boolean;
  /** how long its queries take (migrations excluded), for the dashboard's /metrics */
  readonly queryDurations: LabelledHistogram;
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
    const pgDir = dataDir ? join(dataDir, PG_DIR) : undefined;
    const fresh = !dataDir || !existsSync(join(dataDir, READY_MARKER));
    if (pgDir && fresh && existsSync(pgDir)) {
      // an earlier first boot stopped half-way: nothing in it was ever served
      logger.warn("removing an unfinished database from an interrupted first boot", { dir: pgDir });
      rmSync(pgDir, { recursive: true, force: true });
    }
    const started = performance.now();
    const pg = await createPGlite(pgDir, fresh, logger, options.seed ?? true);
    logger.debug("database opened", { ms: Math.round(performance.now() - started), fresh });
    await migrate(pg, migrations, logger, dataDir ?? "the in-memory database");
    const installationUid = await ensureInstallation(pg);
    if (dataDir && fresh) writeFileSync(join(dataDir, READY_MARKER), `${new Date().toISOString()}\n`);
    if (dataDir) writeDataDirMarker(dataDir, migrations);
    const durations = queryDurations();
    timeQueries(pg, durations);
    let closed = false;
    return {
      pg,
      dataDir,
      installationUid,
      created: fresh,
      queryDurations: durations,
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
          await pg.close();
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

async function ensureInstallation(pg: PGlite): Promise<string> {
  const existing = await pg.query<{ uid: string }>("select uid from installation where id = 1");
  if (existing.rows[0]) return existing.rows[0].uid;
  const uid = newUid();
  await pg.query("insert into installation (uid, created_version) values ($1, $2)", [uid, VERSION]);
  return uid;
}
