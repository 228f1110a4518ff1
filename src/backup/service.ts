// The server's backups (docs/operations.md, "Backup and restore"): one at a
// time (another asked for meanwhile is refused with 409: a backup holds the
// stores' files and a copy of the database, and two would only double that),
// written into backups.dir as outpost-backup-<time>.tar.gz through a hidden
// partial file renamed once complete, listed with what their manifests say,
// and on backups.schedule (croner), keeping the newest backups.keep of the
// scheduled ones. A backup runs in the background: the request that starts
// it is answered at once (a large one outlasts any HTTP timeout).
import { Cron } from "croner";
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync } from "node:fs";
import { statfs } from "node:fs/promises";
import { join, resolve, sep } from "node:path";
import { ConfigError } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { DATA_DIR_FORMAT } from "../db/data-dir-format.ts";
import { PG_DIR, type Database } from "../db/open.ts";
import type { BackupSource } from "../lib/backup-pin.ts";
import { directorySize } from "../lib/dir-size.ts";
import { ApiError } from "../lib/errors.ts";
import type { Logger } from "../lib/logger.ts";
import { COMMIT, VERSION } from "../version.ts";
import { ARCHIVE_FORMAT, ARCHIVE_NAME, archiveName, isScheduledName, type Manifest } from "./manifest.ts";

// the archive code (tar-stream, zlib's streams) is loaded when first used, not at every start
/** why a server on PostgreSQL makes no backups of its own */
const SERVER_DATABASE =
  "backups archive the embedded database: this server's database is a PostgreSQL server (storage.database_url); back it up with the server's own tools (pg_dump, or base backups with WAL archiving) as docs/operations.md describes";

const archiveCode = () => Promise.all([import("./read-archive.ts"), import("./snapshot.ts"), import("./write-archive.ts")]);

export interface BackupInfo {
  name: string;
  /** running: being written; complete: in backups.dir; failed: the last one that failed (not on disk); damaged: on disk, its manifest unreadable */
  state: "running" | "complete" | "failed" | "damaged";
  /** bytes on disk (0 while running) */
  size: number;
  createdAt: string;
  includesSecretKey: boolean;
  scheduled: boolean;
  outpostVersion?: string | undefined;
  schemaVersion?: number | undefined;
  files?: number | undefined;
  /** how long the database was held for its copy (ms) */
  databaseHeldMs?: number | undefined;
  error?: string | undefined;
}

export interface Backups {
  /** the backups folder; undefined without a data dir (in memory: nothing to back up) */
  readonly dir: string | undefined;
  /** a store whose files go into every backup (server.ts adds the stores) */
  addSource(source: BackupSource): void;
  /** starts a backup: its entry at once, and `done` when it has ended (rejects with its failure) */
  start(o: { includeSecretKey: boolean; scheduled?: boolean }): { info: BackupInfo; done: Promise<BackupInfo> };
  /** the running one first, then the newest first; the last failure after them */
  list(): Promise<BackupInfo[]>;
  /** a complete backup's file (404 unknown, 409 still running) */
  file(name: string): Promise<{ path: string; info: BackupInfo }>;
  remove(name: string): Promise<void>;
  /** stops the schedule and the backup under way (which leaves nothing behind) */
  close(): Promise<void>;
}

export interface BackupOptions {
  config: Config;
  db: Database;
  logger: Logger;
  now?: () => number;
}

interface Running {
  info: BackupInfo;
  controller: AbortController;
  done: Promise<BackupInfo>;
}

export function createBackups(o: BackupOptions): Backups {
  const logger = o.logger.child({ logger: "backups" });
  const now = o.now ?? (() => Date.now());
  const dataDir = o.db.dataDir;
  const dir = dataDir ? resolve(dataDir, o.config.backups.dir || "backups") : undefined;
  if (dir && dataDir && (dir === dataDir || dataDir.startsWith(dir + sep))) {
    // backups would then be backed up, and their staging copies with them
    throw new ConfigError([`backups.dir (${dir}) is the data dir or a folder above it: give a folder of its own (the default is <data dir>/backups)`]);
  }
  const sources: BackupSource[] = [];
  let running: Running | undefined;
  let lastFailure: BackupInfo | undefined;
  let closed = false;
  /** manifests read for the list, by name (an archive never changes once renamed into place) */
  const manifests = new Map<string, { size: number; mtimeMs: number; manifest: Manifest | Error }>();

  if (dir && existsSync(dir)) {
    // what a backup stopped by a crash left: a staged database, a partial archive
    for (const name of readdirSync(dir)) if (name.startsWith(".staging-") || (name.startsWith(".") && name.endsWith(".partial"))) rmSync(join(dir, name), { recursive: true, force: true });
  }

  const pathOf = (name: string): string => {
    // the name is the only thing a caller gives: it must be one of ours, nothing else (no path, no "..")
    if (!dir || !ARCHIVE_NAME.test(name)) throw new ApiError(404, "backup not found");
    return join(dir, name);
  };

  const run = async (info: BackupInfo, signal: AbortSignal): Promise<BackupInfo> => {
    const started = performance.now();
    const [, { takeSnapshot }, { hashFiles, writeArchive }] = await archiveCode();
    mkdirSync(dir!, { recursive: true, mode: 0o700 });
    await checkRoom(dataDir!, dir!);
    const snap = await takeSnapshot({
      db: o.db,
      dataDir: dataDir!,
      sources,
      stagingDir: join(dir!, `.staging-${info.name}`),
      includeSecretKey: info.includesSecretKey,
      keyInConfig: o.config.security.secret_key !== "",
      exclude: [dir!, join(dir!, `.staging-${info.name}`)],
      signal,
    });
    const partial = join(dir!, `.${info.name}.partial`);
    try {
      const sums = await hashFiles(snap.files, signal);
      const manifest: Manifest = {
        kind: "outpost-backup",
        archiveFormat: ARCHIVE_FORMAT,
        outpost: VERSION,
        commit: COMMIT,
        dataDirFormat: DATA_DIR_FORMAT,
        schema: snap.schema,
        createdAt: info.createdAt,
        installationUid: o.db.installationUid,
        secretKey: snap.secretKey,
        databaseHeldMs: Math.round(snap.heldMs),
        dirs: snap.dirs,
        files: snap.files.map((f, i) => ({ path: f.path, size: f.size, sha256: sums[i]! })),
      };
      const bytes = await writeArchive(partial, manifest, snap.files, signal);
      renameSync(partial, join(dir!, info.name));
      const done: BackupInfo = {
        ...info, state: "complete", size: bytes, includesSecretKey: snap.secretKey === "included", outpostVersion: VERSION, schemaVersion: snap.schema, files: snap.files.length, databaseHeldMs: manifest.databaseHeldMs,
      };
      logger.info("backup written", {
        name: info.name, bytes, files: snap.files.length, data_bytes: snap.files.reduce((n, f) => n + f.size, 0),
        database_held_ms: manifest.databaseHeldMs, ms: Math.round(performance.now() - started), secret_key: snap.secretKey,
      });
      return done;
    } catch (err) {
      rmSync(partial, { force: true });
      throw err;
    } finally {
      await snap.release();
    }
  };

  /** deletes the oldest scheduled backups beyond backups.keep */
  const prune = () => {
    const keep = o.config.backups.keep;
    if (!dir || keep <= 0) return;
    const scheduled = readdirSync(dir).filter((n) => ARCHIVE_NAME.test(n) && isScheduledName(n)).sort();
    for (const name of scheduled.slice(0, Math.max(0, scheduled.length - keep))) {
      rmSync(join(dir, name), { force: true });
      manifests.delete(name);
      logger.info("old scheduled backup deleted", { name, keep });
    }
  };

  const start: Backups["start"] = ({ includeSecretKey, scheduled = false }) => {
    if (!dir || !dataDir) throw new ApiError(400, "backups need a data dir: this server keeps everything in memory (storage.in_memory)");
    if (o.db.backend === "postgres") throw new ApiError(400, SERVER_DATABASE);
    if (closed) throw new ApiError(503, "the server is stopping");
    if (running) throw new ApiError(409, `a backup is already running (${running.info.name}): one runs at a time`, { body: { name: running.info.name } });
    const at = new Date(now());
    let name = archiveName(at, scheduled);
    // two within one millisecond: the next millisecond's name
    for (let ms = 1; existsSync(join(dir, name)); ms++) name = archiveName(new Date(at.getTime() + ms), scheduled);
    const info: BackupInfo = { name, state: "running", size: 0, createdAt: at.toISOString(), includesSecretKey: includeSecretKey, scheduled };
    const controller = new AbortController();
    const done = run(info, controller.signal).then(
      (complete) => {
        running = undefined;
        // the last failure is listed until a backup succeeds
        lastFailure = undefined;
        if (scheduled) prune();
        return complete;
      },
      (err: unknown) => {
        running = undefined;
        const error = controller.signal.aborted ? "stopped: the server is stopping" : (err as Error).message;
        lastFailure = { ...info, state: "failed", error };
        logger.error("backup failed", { name, error });
        throw err;
      },
    );
    // a caller that does not wait for it still has its failure logged
    done.catch(() => {});
    running = { info, controller, done };
    return { info, done };
  };

  const describe = async (name: string): Promise<BackupInfo | undefined> => {
    const path = join(dir!, name);
    let st;
    try {
      st = statSync(path);
    } catch {
      return undefined;
    }
    let cached = manifests.get(name);
    if (!cached || cached.size !== st.size || cached.mtimeMs !== st.mtimeMs) {
      const [{ readArchive }] = await archiveCode();
      const manifest = await readArchive(path, { manifestOnly: true }).catch((err: unknown) => err as Error);
      cached = { size: st.size, mtimeMs: st.mtimeMs, manifest };
      manifests.set(name, cached);
    }
    const m = cached.manifest;
    const base = { name, size: st.size, scheduled: isScheduledName(name) };
    if (m instanceof Error) return { ...base, state: "damaged", createdAt: st.mtime.toISOString(), includesSecretKey: false, error: m.message };
    return {
      ...base, state: "complete", createdAt: m.createdAt, includesSecretKey: m.secretKey === "included", outpostVersion: m.outpost, schemaVersion: m.schema, files: m.files.length, databaseHeldMs: m.databaseHeldMs,
    };
  };

  const schedule = o.config.backups.schedule;
  if (dir && schedule && o.db.backend === "postgres") logger.warn(`backups.schedule is ignored: ${SERVER_DATABASE}`);
  const job = dir && schedule && o.db.backend !== "postgres"
    ? new Cron(schedule, { unref: true, protect: true }, () => {
      if (running) return logger.warn("scheduled backup skipped: a backup is still running", { running: running.info.name });
      try {
        start({ includeSecretKey: false, scheduled: true });
      } catch (err) {
        logger.error("scheduled backup could not start", { error: (err as Error).message });
      }
    })
    : undefined;
  if (job) logger.info("backups scheduled", { schedule, dir, keep: o.config.backups.keep, next: job.nextRun()?.toISOString() ?? "never" });

  return {
    dir,
    addSource: (source) => void sources.push(source),
    start,
    async list() {
      const out: BackupInfo[] = running ? [{ ...running.info }] : [];
      if (dir && existsSync(dir)) {
        // the one running is listed as running until it has ended, even once its file is in place
        const names = readdirSync(dir).filter((n) => ARCHIVE_NAME.test(n) && n !== running?.info.name).sort().reverse();
        for (const name of names) {
          const info = await describe(name);
          if (info) out.push(info);
        }
      }
      if (lastFailure) out.push(lastFailure);
      return out;
    },
    async file(name) {
      const path = pathOf(name);
      if (running?.info.name === name) throw new ApiError(409, `backup ${name} is still being written`);
      const info = await describe(name);
      if (!info) throw new ApiError(404, "backup not found");
      return { path, info };
    },
    async remove(name) {
      const path = pathOf(name);
      if (running?.info.name === name) throw new ApiError(409, `backup ${name} is still being written`);
      if (!existsSync(path)) throw new ApiError(404, "backup not found");
      rmSync(path, { force: true });
      manifests.delete(name);
      logger.info("backup deleted", { name });
    },
    async close() {
      closed = true;
      job?.stop();
      const current = running;
      if (!current) return;
      current.controller.abort();
      await current.done.catch(() => {});
    },
  };
}

/** the folders of the data dir a backup copies (the database twice: its staged copy, then the archive) */
const COPIED = ["logs-wal", "logs-chunks", "metrics-wal"];
/** room left free beyond what a backup needs: the server keeps writing meanwhile */
const MARGIN = 256 * 1024 * 1024;

/**
 * Refuses a backup the backups folder's filesystem has no room for (where the
 * runtime can tell): a full disk would fail the database's and the stores'
 * writes too, not only the backup's.
 */
async function checkRoom(dataDir: string, dir: string): Promise<void> {
  let free: number;
  try {
    const s = await statfs(dir);
    free = Number(s.bavail) * Number(s.bsize);
  } catch {
    return;
  }
  const database = await directorySize(join(dataDir, PG_DIR));
  const files = (await Promise.all(COPIED.map((d) => directorySize(join(dataDir, d))))).reduce((a, b) => a + b, 0);
  // the staged database, and an archive at most as large as what it holds
  const need = 2 * database + files + MARGIN;
  if (need > free) {
    throw new ApiError(507, `not enough free space in ${dir} for a backup: it needs up to ${mib(need)} (a copy of the database and the archive), ${mib(free)} are free`);
  }
}

const mib = (n: number) => `${Math.ceil(n / 1048576)} MiB`;
