// outpost restore: a backup archive into a new data dir. Nothing is written
// into the target until the whole archive has been read and checked: it is
// extracted into a hidden folder beside the target (same filesystem), which
// is renamed into place only then, and removed on any failure. The target
// must not exist or be an empty folder. An archive a newer Outpost made (a
// newer archive format, data dir format or database schema) is refused from
// its manifest, before anything else is read.
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, renameSync, rmdirSync, rmSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { DataDirTooNewError, describeBuild, refuseNewer, thisBuild } from "../db/data-dir-format.ts";
import type { Migration } from "../db/migrate.ts";
import { migrations as allMigrations } from "../db/migrations/index.ts";
import { ARCHIVE_FORMAT, secretKeyNotice, type Manifest } from "./manifest.ts";
import { readArchive } from "./read-archive.ts";

/** the target cannot take a restore (not empty, not a folder) */
export class RestoreTargetError extends Error {}

export interface RestoreResult {
  manifest: Manifest;
  dataDir: string;
  bytes: number;
  /** what the operator must still do (the secret key) */
  warnings: string[];
}

/** refuses an archive this build cannot open, naming both versions */
export function checkManifest(m: Manifest, migrations: readonly Migration[] = allMigrations): void {
  const found = { format: m.dataDirFormat, schema: m.schema, outpost: m.outpost };
  if (m.archiveFormat > ARCHIVE_FORMAT) {
    throw new DataDirTooNewError(
      `the archive was made by a newer Outpost: ${describeBuild(found)}, archive format ${m.archiveFormat}; this is ${describeBuild(thisBuild(migrations), true)}, ` +
        `archive format ${ARCHIVE_FORMAT}: restore it with Outpost ${m.outpost} or newer`,
    );
  }
  refuseNewer(found, migrations, "the archive");
}

export async function restoreBackup(o: { from: string; dataDir: string; migrations?: readonly Migration[] }): Promise<RestoreResult> {
  const target = resolve(o.dataDir);
  let existing = false;
  try {
    const st = statSync(target);
    if (!st.isDirectory()) throw new RestoreTargetError(`${target} exists and is not a folder: restore into a new or empty data dir`);
    if (readdirSync(target).length > 0) throw new RestoreTargetError(`${target} is not empty: restore into a new or empty data dir (a running or existing data dir is never overwritten)`);
    existing = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw err;
  }
  const parent = dirname(target);
  mkdirSync(parent, { recursive: true });
  const temp = join(parent, `.${basename(target)}.restoring-${randomBytes(6).toString("hex")}`);
  mkdirSync(temp, { mode: 0o700 });
  try {
    const manifest = await readArchive(o.from, { into: temp, onManifest: (m) => checkManifest(m, o.migrations) });
    // the folders the archive lists, empty ones too (the database needs some)
    for (const d of manifest.dirs) mkdirSync(join(temp, d), { recursive: true, mode: 0o700 });
    if (existing) rmdirSync(target);
    renameSync(temp, target);
    const notice = secretKeyNotice(manifest);
    return { manifest, dataDir: target, bytes: manifest.files.reduce((n, f) => n + f.size, 0), warnings: notice ? [notice] : [] };
  } catch (err) {
    rmSync(temp, { recursive: true, force: true });
    throw err;
  }
}
