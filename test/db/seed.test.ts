// The build-time seed restore: every file comes back byte for byte (all-zero
// blocks are left as holes, not dropped), however many are written at once.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTarGzip, parseTarGzip } from "nanotar";
import { describe, expect, it } from "vitest";
import { restoreSeed } from "../../src/db/seed.ts";
import { ensureSeed } from "../../scripts/gen-seed.ts";
import { mulberry32 } from "../helpers/rng.ts";

const BLOCK = 8192;

function bytes(length: number, fill: (i: number) => number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = fill(i);
  return out;
}

describe("seed restore", () => {
  it("restores files, directories, empty files and zero blocks exactly", async () => {
    const random = mulberry32(17);
    const files: Record<string, Uint8Array> = {
      "PG_VERSION": new TextEncoder().encode("17\n"),
      "global/empty": new Uint8Array(),
      // data, a hole, data again
      "base/5/1259": bytes(3 * BLOCK, (i) => (i >= BLOCK && i < 2 * BLOCK ? 0 : 1 + Math.floor(random() * 255))),
      // data then a trailing hole: the length must still be the full length
      "pg_wal/000000010000000000000001": bytes(4 * BLOCK, (i) => (i < 100 ? 7 : 0)),
      // all zeros, not a multiple of the block size
      "pg_xact/0000": new Uint8Array(BLOCK + 5),
    };
    // more files than are written at once
    for (let n = 0; n < 40; n++) files[`base/1/${n}`] = bytes(100 + n, (i) => (i + n) % 251);
    const tar = await createTarGzip([
      { name: "base/" }, { name: "pg_tblspc/" },
      ...Object.entries(files).map(([name, data]) => ({ name, data })),
    ]);
    const dir = join(mkdtempSync(join(tmpdir(), "outpost-seed-")), "pgdata");
    expect(await restoreSeed(new Blob([new Uint8Array(tar)]), dir)).toBe(Object.keys(files).length);
    for (const [name, data] of Object.entries(files)) {
      const restored = readFileSync(join(dir, name));
      expect(restored.length, name).toBe(data.length);
      expect(Buffer.compare(restored, Buffer.from(data)), name).toBe(0);
    }
    expect(statSync(join(dir, "pg_tblspc")).isDirectory()).toBe(true);
    expect(statSync(join(dir, "PG_VERSION")).mode & 0o777).toBe(0o600);
  });

  it("the build's seed is a cleanly shut down data directory, so first boot runs no crash recovery", async () => {
    const items = await parseTarGzip(new Uint8Array(readFileSync(await ensureSeed())));
    const names = items.map((i) => i.name.replace(/^\/+/, ""));
    expect(names).toContain("PG_VERSION");
    expect(names).not.toContain("postmaster.pid");
    const control = items.find((i) => i.name.replace(/^\/+/, "") === "global/pg_control")!.data!;
    // ControlFileData.state, after system_identifier (8 bytes) and two uint32 versions: 1 = DB_SHUTDOWNED
    expect(new DataView(control.buffer, control.byteOffset).getUint32(16, true)).toBe(1);
  });

  it("a file that cannot be written fails the restore only after every other write has ended", async () => {
    const dir = join(mkdtempSync(join(tmpdir(), "outpost-seed-")), "pgdata");
    // a directory where a file should go: opening it for writing fails
    mkdirSync(join(dir, "base", "1", "0"), { recursive: true });
    const names = Array.from({ length: 300 }, (_, n) => `base/1/${n}`);
    const tar = await createTarGzip(names.map((name) => ({ name, data: "x".repeat(9000) })));
    await expect(restoreSeed(new Blob([new Uint8Array(tar)]), dir)).rejects.toThrow();
    const count = () => readdirSync(join(dir, "base", "1")).length;
    const after = count();
    // round trips through the file system's thread pool: a write still queued would land meanwhile
    for (let i = 0; i < 50; i++) await stat(dir);
    expect(count()).toBe(after);
  });

  it("refuses an entry that would land outside the data dir", async () => {
    const tar = await createTarGzip([{ name: "../escaped", data: "x" }]);
    const base = mkdtempSync(join(tmpdir(), "outpost-seed-"));
    await restoreSeed(new Blob([new Uint8Array(tar)]), join(base, "pgdata")).catch(() => {});
    expect(existsSync(join(base, "escaped"))).toBe(false);
  });
});
