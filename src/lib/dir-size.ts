// The total size of the files under a directory, walked asynchronously so a
// large tree (thousands of database files) never blocks the event loop: each
// directory listing and each batch of stat calls is its own await.
import { lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/** stat calls in flight at once: enough to keep the disk busy, few enough to leave the thread pool to others */
const BATCH = 32;

/**
 * Bytes of the regular files under `dir` (symbolic links are not followed),
 * less the files and folders whose paths (joined onto `dir`) are in `exclude`.
 * Files or directories that vanish during the walk (a database rewriting its
 * files) count as 0; a missing `dir` is 0.
 */
export async function directorySize(dir: string, exclude: ReadonlySet<string> = new Set()): Promise<number> {
  let total = 0;
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const entries = await readdir(current, { withFileTypes: true }).catch(() => []);
    const files: string[] = [];
    for (const e of entries) {
      if (exclude.size && exclude.has(join(current, e.name))) continue;
      if (e.isDirectory()) pending.push(join(current, e.name));
      else if (e.isFile()) files.push(join(current, e.name));
    }
    for (let i = 0; i < files.length; i += BATCH) {
      const sizes = await Promise.all(files.slice(i, i + BATCH).map((f) => lstat(f).then((s) => s.size, () => 0)));
      for (const s of sizes) total += s;
    }
  }
  return total;
}

/**
 * directorySize remembered for `ttlMs`: callers within that time share one
 * walk (and one in flight is never started twice).
 */
export function cachedDirectorySize(dir: string, ttlMs: number, now: () => number = Date.now): () => Promise<number> {
  let cached: { at: number; bytes: Promise<number> } | undefined;
  return () => {
    const t = now();
    if (!cached || t - cached.at >= ttlMs) {
      const entry = { at: t, bytes: directorySize(dir) };
      cached = entry;
      entry.bytes.catch(() => { if (cached === entry) cached = undefined; });
    }
    return cached.bytes;
  };
}
