// The disk guard's accounting for database rows (metrics chunks): deleting
// them does not shrink the database's files, so the bytes a drop freed count
// as room until the files grow by as much. A growth of one page used to reset
// that credit, and every check then dropped more, until nothing was left and
// pushes were refused for good (found in review). The credit also outlives a
// restart (the files do not shrink when the process stops).
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDiskGuard, type Reclaimer } from "../../src/lib/disk-guard.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const MB = 1024 * 1024;
const HOUR = 3_600_000;

describe("disk guard: database rows", () => {
  const dirs = tempDirs("outpost-disk-guard-");

  it("drops once past the cap, then not again while the database grows less than it freed; the credit survives a restart", async () => {
    const dir = dirs();
    mkdirSync(join(dir, "pgdata"));
    const base = join(dir, "pgdata", "base");
    // 110 MiB of database, 100 MiB of it chunk rows, one a hour
    writeFileSync(base, Buffer.alloc(110 * MB));
    const now = Date.now();
    let rows = Array.from({ length: 100 }, (_, i) => ({ t: now - (100 - i) * HOUR, bytes: MB }));
    let vacuums = 0;
    const reclaimer: Reclaimer = {
      name: "metrics chunks",
      kind: "rows",
      oldest: async () => (rows.length ? Math.min(...rows.map((r) => r.t)) : undefined),
      async dropBefore(cutoff) {
        const gone = rows.filter((r) => r.t < cutoff);
        rows = rows.filter((r) => r.t >= cutoff);
        return gone.reduce((n, r) => n + r.bytes, 0);
      },
      settle: async () => void vacuums++,
    };
    const logger = createLogger({ level: "error", format: "json", write: () => {} });
    const open = () => {
      const g = createDiskGuard({ dir, cap: { bytes: 100 * MB }, minFree: 0, intervalMs: HOUR, logger, now: () => now, stateFile: join(dir, "disk-guard.json") });
      g.register(reclaimer);
      return g;
    };
    let guard = open();
    await guard.check();
    const afterFirst = rows.length;
    expect(afterFirst).toBeLessThan(100);
    expect(afterFirst).toBeGreaterThan(80);
    expect(vacuums).toBe(1);
    for (let i = 0; i < 5; i++) {
      // ingest between checks: a page of the freed space used
      appendFileSync(base, Buffer.alloc(8192));
      await guard.check();
    }
    expect(rows.length).toBe(afterFirst);
    expect(guard.refusal()).toBeUndefined();
    guard.stop();
    // a restart: the files are as big, the freed space is still free
    guard = open();
    await guard.check();
    expect(rows.length).toBe(afterFirst);
    // growth past the credit: the next drop
    appendFileSync(base, Buffer.alloc(20 * MB));
    await guard.check();
    expect(rows.length).toBeLessThan(afterFirst);
    expect(rows.length).toBeGreaterThan(0);
    guard.stop();
  });
});
