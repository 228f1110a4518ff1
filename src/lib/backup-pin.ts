// What a store gives a backup of its files (src/backup/): while pinned it
// deletes none of the files the backup may copy (it keeps writing to them),
// and at the backup's point in time it names them with how many of their
// bytes belong to it. Files are append-only while pinned, so the bytes below
// those sizes never change under the copy.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** a file of the data dir as a backup copies it: its first `bytes` bytes */
export interface PinnedFile {
  /** absolute path */
  path: string;
  bytes: number;
}

export interface BackupPin {
  /**
   * The files that, with the database as it is at this moment, hold all the
   * store has acknowledged. Called once, synchronously, at the backup's point
   * in time (the database held, so no commit comes between the two).
   */
  files(): PinnedFile[];
  /** deletions put off while pinned may happen again */
  release(): void;
}

export interface BackupSource {
  /** the store's name, for messages */
  name: string;
  /** resolves once the store is pinned (a checkpoint under way has finished) */
  pin(): Promise<BackupPin>;
}

/**
 * A counter of pins with work put off while any is held: `whenFree(fn)` runs
 * fn now when nothing is pinned, or once the last pin is released.
 */
export function pinCounter(): { pinned(): boolean; hold(): () => void; whenFree(fn: () => void): void } {
  let pins = 0;
  const deferred: Array<() => void> = [];
  return {
    pinned: () => pins > 0,
    hold() {
      pins++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        pins--;
        if (pins > 0) return;
        for (const fn of deferred.splice(0)) fn();
      };
    },
    whenFree(fn) {
      if (pins > 0) deferred.push(fn);
      else fn();
    },
  };
}

/** the files of `dir` whose names match, with their sizes now (none when the folder does not exist) */
export function filesIn(dir: string | undefined, name: RegExp): PinnedFile[] {
  if (!dir) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: PinnedFile[] = [];
  for (const n of names.filter((f) => name.test(f)).sort()) {
    const path = join(dir, n);
    try {
      out.push({ path, bytes: statSync(path).size });
    } catch {
      // gone between the listing and the stat: it was not the store's at this point
    }
  }
  return out;
}
