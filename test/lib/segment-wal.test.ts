// The segment log's rotation and closing: a rotation that cannot make its new
// segment leaves the log writing to the old one (a descriptor closed there
// and closed again later would close whatever file got its number since:
// PGlite's, in the metrics recovery tests), and closing twice closes once.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { forEachRecord, openSegmentWal } from "../../src/lib/segment-wal.ts";

describe("segment write-ahead log", () => {
  it("a rotation that fails keeps the old segment open; close and clear close once", () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-segment-wal-"));
    const wal = openSegmentWal(dir);
    wal.append(new Uint8Array([1, 2, 3]));
    expect(wal.rotate()).toBe(2);
    wal.append(new Uint8Array([4]));
    rmSync(dir, { recursive: true, force: true });
    expect(() => wal.rotate()).toThrow();
    expect(wal.segment).toBe(2);
    // a file opened now may get any free descriptor number: the log must not close it
    const other = join(tmpdir(), `outpost-segment-wal-other-${process.pid}`);
    const fd = openSync(other, "w+");
    wal.append(new Uint8Array([5]));
    wal.close();
    wal.clear();
    expect(() => readFileSync(fd)).not.toThrow();
    closeSync(fd);
    rmSync(other, { force: true });
  });

  it("reports a segment whose record fails its checksum, and reads on in the next", () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-segment-wal-"));
    try {
      const wal = openSegmentWal(dir);
      wal.append(new Uint8Array([1]));
      wal.append(new Uint8Array([2]));
      wal.rotate();
      wal.append(new Uint8Array([3]));
      wal.close();
      const first = join(dir, "00000001.wal");
      const bytes = readFileSync(first);
      bytes[bytes.length - 1]! ^= 0xff;
      writeFileSync(first, bytes);
      const seen: number[] = [];
      const problems = forEachRecord(dir, 0, (p, segment) => seen.push(p[0]! * 10 + segment));
      expect(seen).toEqual([11, 32]);
      expect(problems).toEqual([{ segment: 1, problem: "9 bytes at offset 9 are not an intact record" }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
