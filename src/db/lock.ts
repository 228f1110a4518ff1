// One process per data dir: a lock file holding the owner's pid. A lock left
// by a process that no longer runs is taken over; a live owner is refused.
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";

export class DataDirInUseError extends Error {}

export const LOCK_FILE = "outpost.lock";

export interface DataDirLock {
  readonly path: string;
  release(): void;
}

/** locks held by this process: a pid check cannot tell them from stale ones */
const held = new Set<string>();

export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, LOCK_FILE);
  if (held.has(path)) {
    throw new DataDirInUseError(`data dir in use: ${dataDir} is already open in this process (${path})`);
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      held.add(path);
      return {
        path,
        release() {
          held.delete(path);
          try {
            if (readOwner(path) === process.pid) unlinkSync(path);
          } catch { /* already gone */ }
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
      const owner = readOwner(path);
      if (owner !== undefined && owner !== process.pid && isAlive(owner)) {
        throw new DataDirInUseError(
          `data dir in use: ${dataDir} is locked by process ${owner} (${path}); ` +
            `stop that process or choose another --data-dir`,
        );
      }
      // stale lock (owner gone, unreadable, or our own pid from a previous life): take it over
      try { unlinkSync(path); } catch { /* raced with another process: retry */ }
    }
  }
  throw new DataDirInUseError(`data dir in use: could not take the lock ${path}`);
}

function readOwner(path: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path, "utf8").trim(), 10);
    return Number.isFinite(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
