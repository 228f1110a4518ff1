// The write-ahead log's group write: records queued in one turn reach the
// file together, in order, before their promises resolve; a segment is not
// rotated while records wait (their owners noted the segment in use); a failed
// write rejects every record of the group.
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSegmentWal, readSegments } from "../../src/lib/segment-wal.ts";

const dirs: string[] = [];
const newDir = () => {
  const d = mkdtempSync(join(tmpdir(), "outpost-segment-wal-"));
  dirs.push(d);
  return d;
};
const text = (payloads: Uint8Array[]) => payloads.map((p) => Buffer.from(p).toString());

describe("segment write-ahead log", () => {
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it("records written in one turn are all in the file, in order, when their promises resolve", async () => {
    const dir = newDir();
    const wal = openSegmentWal(dir);
    const done = ["a", "b", "c"].map((r) => wal.write(Buffer.from(r)));
    expect(text(readSegments(dir))).toEqual([]);
    expect(await Promise.all(done)).toEqual([1, 1, 1]);
    expect(text(readSegments(dir))).toEqual(["a", "b", "c"]);
    // an immediate append goes after what waited
    const waiting = wal.write(Buffer.from("d"));
    wal.append(Buffer.from("e"));
    await waiting;
    expect(text(readSegments(dir))).toEqual(["a", "b", "c", "d", "e"]);
    wal.close();
  });

  it("no rotation while records wait; their segment is the one they were queued in; close writes them", async () => {
    const dir = newDir();
    const wal = openSegmentWal(dir, 1);
    await wal.write(Buffer.from("first"));
    const second = wal.write(Buffer.from("second"));
    expect(wal.maybeRotate()).toBe(1);
    expect(await second).toBe(1);
    expect(wal.maybeRotate()).toBe(2);
    const third = wal.write(Buffer.from("third"));
    wal.close();
    expect(await third).toBe(2);
    expect(text(readSegments(dir))).toEqual(["first", "second", "third"]);
    expect(readdirSync(dir).sort()).toEqual(["00000001.wal", "00000002.wal"]);
  });

  it("a write that fails rejects every record of its group", async () => {
    const dir = newDir();
    const wal = openSegmentWal(dir);
    wal.close();
    const results = await Promise.allSettled([wal.write(Buffer.from("x")), wal.write(Buffer.from("y"))]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
  });
});
