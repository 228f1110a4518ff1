// Temporary directories a test file makes, removed after it: data dirs and
// copies of the binary are tens to hundreds of megabytes, and left behind
// they fill a machine's disk run after run.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** a maker of directories named `<prefix>XXXXXX` in the temp dir, all removed after the file's tests */
export function tempDirs(prefix: string): () => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}
