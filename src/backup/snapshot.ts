// A consistent snapshot of a running server's data dir (docs/operations.md,
// "Backup and restore"; docs/choices.md, "Backups"). PGlite cannot be read by
// a second process, and its files change under any copy while it serves, so:
//
//   1. each store is pinned (lib/backup-pin.ts): from now on it deletes none
//      of its write-ahead segments, checkpoints or chunk files (it keeps
//      appending to them); the metrics store finishes a checkpoint under way;
//   2. a CHECKPOINT writes most of the database's dirty pages out first, so
//      the one in step 3 has little left to do;
//   3. the database is held (an empty transaction: no other query or
//      transaction runs until it ends). At its first moment — the snapshot's
//      point in time — each store names its files with their sizes; the rest
//      of the data dir's small files are listed; a CHECKPOINT makes the
//      database's files whole; they are copied (the kernel copies, the event
//      loop stays free) to a staging folder; the hold ends. Pushes go on
//      meanwhile (they need the database only for a new log stream); queries
//      and dashboard calls that need it wait, for a few hundred ms for a
//      database of a few hundred MB (measured: docs/operations.md);
//   4. the archive is written from the staged database and the stores' files
//      up to the sizes named in step 3, then the pins are released.
//
// The stores' files cut at the sizes of step 3 are what a crash at that
// moment would have left beside the database, which each store recovers from
// (every acknowledged push is in its write-ahead log before the answer, the
// log is cut only past what committed rows hold, chunk bytes are fsynced
// before the row naming them is committed): the restored server answers as
// the original did at that moment, and nothing written after it is there.
import { copyFile, mkdir, readdir, rm, stat } from "node:fs/promises";
import { lstatSync, readdirSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import type { Database } from "../db/open.ts";
import { PG_DIR } from "../db/open.ts";
import { LOCK_FILE } from "../db/lock.ts";
import type { BackupPin, BackupSource, PinnedFile } from "../lib/backup-pin.ts";
import { DATA_DIR_KEY_FILE } from "../lib/key-file.ts";
import { isSafeRelativePath, type SecretKeyState } from "./manifest.ts";
import type { ArchiveFile } from "./write-archive.ts";

export interface SnapshotOptions {
  db: Database;
  dataDir: string;
  sources: readonly BackupSource[];
  /** an empty folder for the database's copy (removed by release) */
  stagingDir: string;
  includeSecretKey: boolean;
  /** security.secret_key is set: the current key is in the configuration */
  keyInConfig: boolean;
  /** absolute paths inside the data dir left out (the backups folder) */
  exclude: readonly string[];
  signal?: AbortSignal | undefined;
}

export interface Snapshot {
  files: ArchiveFile[];
  /** every folder, relative to the data dir (empty ones matter to the database) */
  dirs: string[];
  /** the database's migration level */
  schema: number;
  secretKey: SecretKeyState;
  /** how long the database was held (ms) */
  heldMs: number;
  /** releases the pins and removes the staged copy */
  release(): Promise<void>;
}

/** files of the database copied at once while it is held */
const COPY_PARALLEL = 4;
/** files the database writes for a running server only */
const PG_SKIP = new Set(["postmaster.pid", "postmaster.opts"]);

export class SnapshotError extends Error {}

export async function takeSnapshot(o: SnapshotOptions): Promise<Snapshot> {
  const pins: BackupPin[] = [];
  const release = async () => {
    for (const p of pins.splice(0)) p.release();
    await rm(o.stagingDir, { recursive: true, force: true });
  };
  try {
    for (const source of o.sources) pins.push(await source.pin());
    o.signal?.throwIfAborted();
    const pg = o.db.pg;
    await pg.checkpoint();
    await mkdir(o.stagingDir, { recursive: true, mode: 0o700 });
    let pinned: PinnedFile[] = [];
    let others: { files: ArchiveFile[]; dirs: string[] } = { files: [], dirs: [] };
    let staged: { files: ArchiveFile[]; dirs: string[] } = { files: [], dirs: [] };
    let schema = 0;
    let heldMs = 0;
    const stagedDb = join(o.stagingDir, PG_DIR);
    await pg.transaction(async (tx) => {
      // the snapshot's point in time: nothing commits until this transaction ends
      const t0 = performance.now();
      pinned = pins.flatMap((p) => p.files());
      const owned = new Set(pinned.map((f) => dirname(f.path)));
      others = listOthers(o, owned);
      schema = (await tx.query<{ v: number | null }>("select max(version) as v from schema_migrations")).rows[0]?.v ?? 0;
      await tx.exec("checkpoint");
      staged = await copyTree(join(o.dataDir, PG_DIR), stagedDb, PG_DIR, o.signal);
      heldMs = performance.now() - t0;
    });
    const files: ArchiveFile[] = [...staged.files];
    const dirs = new Set<string>([PG_DIR, ...staged.dirs, ...others.dirs]);
    for (const f of pinned) {
      const path = relativeName(o.dataDir, f.path);
      files.push({ source: f.path, path, size: f.bytes });
      for (let d = dirname(path); d !== "."; d = dirname(d)) dirs.add(d);
    }
    files.push(...others.files);
    const keyFile = files.some((f) => f.path === DATA_DIR_KEY_FILE);
    const secretKey: SecretKeyState = o.keyInConfig ? "configuration" : keyFile ? "included" : o.includeSecretKey ? "none" : "excluded";
    return { files, dirs: [...dirs].sort(), schema, secretKey, heldMs, release };
  } catch (err) {
    await release();
    throw err;
  }
}

/** a data dir path as the archive names it (a store's file outside the data dir is a bug, not something to archive) */
function relativeName(dataDir: string, path: string): string {
  const rel = relative(dataDir, path).split(sep).join("/");
  if (!isSafeRelativePath(rel)) throw new SnapshotError(`${path} is not a plain file of the data dir ${dataDir}`);
  return rel;
}

/**
 * The data dir's other files, at the snapshot's point in time (a handful:
 * the format marker, the first-boot marker, the key file when asked for, a
 * disabled store's folders): everything but the database, the stores' own
 * folders, the lock, the backups folder, temporary files, and the key file
 * unless asked for. Only plain files and folders (a link is not followed).
 */
function listOthers(o: SnapshotOptions, owned: ReadonlySet<string>): { files: ArchiveFile[]; dirs: string[] } {
  const files: ArchiveFile[] = [];
  const dirs: string[] = [];
  const excluded = new Set(o.exclude);
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(o.dataDir, path).split(sep).join("/");
      if (excluded.has(path) || owned.has(path) || name.endsWith(".tmp") || !isSafeRelativePath(rel)) continue;
      if (dir === o.dataDir && (name === PG_DIR || name === LOCK_FILE)) continue;
      if (dir === o.dataDir && name === DATA_DIR_KEY_FILE && !o.includeSecretKey) continue;
      const st = lstatSync(path);
      if (st.isDirectory()) {
        dirs.push(rel);
        walk(path);
      } else if (st.isFile()) files.push({ source: path, path: rel, size: st.size });
    }
  };
  walk(o.dataDir);
  return { files, dirs };
}

/** copies the database's folder (held: nothing writes it) and lists what was copied */
async function copyTree(from: string, to: string, prefix: string, signal: AbortSignal | undefined): Promise<{ files: ArchiveFile[]; dirs: string[] }> {
  const files: ArchiveFile[] = [];
  const dirs: string[] = [];
  const jobs: Array<[string, string, string]> = [];
  const walk = async (src: string, dst: string, rel: string) => {
    await mkdir(dst, { recursive: true, mode: 0o700 });
    for (const e of (await readdir(src, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const name = `${rel}/${e.name}`;
      if (e.isDirectory()) {
        dirs.push(name);
        await walk(join(src, e.name), join(dst, e.name), name);
      } else if (e.isFile() && !PG_SKIP.has(e.name)) jobs.push([join(src, e.name), join(dst, e.name), name]);
    }
  };
  await walk(from, to, prefix);
  let next = 0;
  await Promise.all(
    Array.from({ length: COPY_PARALLEL }, async () => {
      while (next < jobs.length) {
        signal?.throwIfAborted();
        const [src, dst, name] = jobs[next++]!;
        await copyFile(src, dst);
        files.push({ source: dst, path: name, size: (await stat(dst)).size });
      }
    }),
  );
  files.sort((a, b) => (a.path < b.path ? -1 : 1));
  return { files, dirs };
}
