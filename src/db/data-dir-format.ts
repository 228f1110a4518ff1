// The data dir's format marker, <data dir>/outpost-format.json: the layout
// of the files beside the database (DATA_DIR_FORMAT), the database's
// migration level, and the Outpost that last opened it. Read before anything
// writes to the dir: a dir a newer Outpost wrote (a newer format, or
// migrations this build does not know) is refused with both versions, never
// half-opened. A dir without one is from a release before the marker
// (format 0): it is migrated as any older dir, and the marker written.
//
// DATA_DIR_FORMAT goes up when a file beside the database changes in a way an
// older build cannot read (a chunk, write-ahead or checkpoint format it would
// not know); the database's own changes are migrations and need no bump.
import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { COMMIT, VERSION } from "../version.ts";
import { SchemaTooNewError, type Migration } from "./migrate.ts";

export const DATA_DIR_FORMAT = 1;
export const FORMAT_FILE = "outpost-format.json";

export interface DataDirMarker {
  /** DATA_DIR_FORMAT of the build that wrote it */
  format: number;
  /** the highest migration applied */
  schema: number;
  /** that build's version and commit */
  outpost: string;
  commit?: string | undefined;
  /** when it was written (ISO) */
  written?: string | undefined;
}

/** a data dir (or a backup of one) written by a newer Outpost */
export class DataDirTooNewError extends SchemaTooNewError {}

export const latestMigration = (migrations: readonly Migration[]): number => migrations.reduce((max, m) => Math.max(max, m.version), 0);

/** what this build writes and reads up to */
export function thisBuild(migrations: readonly Migration[]): DataDirMarker {
  return { format: DATA_DIR_FORMAT, schema: latestMigration(migrations), outpost: VERSION, commit: COMMIT };
}

/** "Outpost 0.2.0 (data dir format 2, database schema 25)" */
export function describeBuild(m: DataDirMarker, upTo = false): string {
  return `Outpost ${m.outpost} (data dir format ${m.format}, database schema ${upTo ? "up to " : ""}${m.schema})`;
}

/** the marker of a data dir; undefined when it has none (an older release's, or a new dir) */
export function readDataDirMarker(dataDir: string): DataDirMarker | undefined {
  const path = join(dataDir, FORMAT_FILE);
  if (!existsSync(path)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, "utf8"));
  } catch (err) {
    throw new DataDirTooNewError(`${path} cannot be read (${(err as Error).message}): it says which Outpost wrote the data dir; restore it from a backup`);
  }
  const m = parsed as Partial<DataDirMarker>;
  if (!Number.isInteger(m.format) || !Number.isInteger(m.schema) || typeof m.outpost !== "string") {
    throw new DataDirTooNewError(`${path} is not a data dir marker (format, schema and outpost expected)`);
  }
  return m as DataDirMarker;
}

/**
 * Refuses what this build cannot open: a format or a migration level above
 * its own. `what` names the thing in the message ("data dir /x", "the archive").
 */
export function refuseNewer(found: DataDirMarker, migrations: readonly Migration[], what: string): void {
  const own = thisBuild(migrations);
  if (found.format <= own.format && found.schema <= own.schema) return;
  throw new DataDirTooNewError(
    `${what} was written by a newer Outpost: ${describeBuild(found)}; this is ${describeBuild(own, true)}: ` +
      `use Outpost ${found.outpost} or newer, or another data dir`,
  );
}

/** checks the marker of an existing data dir before anything is written to it */
export function checkDataDir(dataDir: string, migrations: readonly Migration[]): DataDirMarker | undefined {
  const found = readDataDirMarker(dataDir);
  if (found) refuseNewer(found, migrations, `data dir ${dataDir}`);
  return found;
}

/** records that this build opened (and migrated) the data dir: through a temporary file, renamed */
export function writeDataDirMarker(dataDir: string, migrations: readonly Migration[], now = new Date()): DataDirMarker {
  const marker = { ...thisBuild(migrations), written: now.toISOString() };
  const path = join(dataDir, FORMAT_FILE);
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(marker, null, 1)}\n`, { mode: 0o600 });
  renameSync(tmp, path);
  return marker;
}
