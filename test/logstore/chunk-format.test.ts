// Log chunk format 2 (columnar): what goes in comes out, a metric read leaves
// the line block compressed, the bloom rules chunks out, damage is detected.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import CRC32 from "crc-32";
import { describe, expect, it } from "vitest";
import { chunkInfo, encodeChunk2 } from "../../src/apps/logstore/core/chunk-format.ts";
import { encodeChunk, type Entry } from "../../src/apps/logstore/core/chunks.ts";
import { ChunkCorruptError, chunkMayContain, decodeColumns, readSource, sourceMayContain } from "../../src/apps/logstore/core/columns.ts";
import { chunkInput } from "../../src/apps/logstore/core/store.ts";
import { mulberry32 } from "../helpers/rng.ts";

const decoder = new TextDecoder();
const linesOf = (c: { count: number; offsets: Uint32Array; lines: Uint8Array }) =>
  Array.from({ length: c.count }, (_, i) => decoder.decode(c.lines.subarray(c.offsets[i]!, c.offsets[i + 1]!)));

function sample(n: number, seed = 1): Entry[] {
  const rand = mulberry32(seed);
  const words = ["alpha", "beta", "gamma", "délta", "ошибка", "🚀", "", "status=500", 'msg="quoted"'];
  let ts = 1_767_225_600_000_000_000n;
  return Array.from({ length: n }, (_, i) => {
    // mostly forward, equal timestamps now and then
    ts += BigInt(Math.floor(rand() * 3) === 0 ? 0 : Math.floor(rand() * 5_000_000_000));
    const line = Array.from({ length: Math.floor(rand() * 12) }, () => words[Math.floor(rand() * words.length)]).join(" ") + ` n=${i}`;
    return rand() < 0.2 ? { ts, line, metadata: { trace_id: `t${i}` } } : { ts, line };
  });
}

/** the blob with one section replaced, its CRC made right again (damage only that section's reader sees) */
function withSection(blob: Uint8Array, index: number, fill: number): Uint8Array {
  const out = blob.slice();
  const sizes = chunkInfo(blob).sections;
  let at = 40;
  for (let i = 0; i < index; i++) at += sizes[i]!;
  out.fill(fill, at, at + sizes[index]!);
  new DataView(out.buffer).setInt32(out.length - 4, CRC32.buf(out.subarray(0, out.length - 4)), true);
  return out;
}

describe("log chunk format 2", () => {
  it("round trip: timestamps (equal, far apart, before 1970), UTF-8 lines, empty lines, metadata", () => {
    const entries = sample(3000);
    const blob = encodeChunk2(chunkInput(entries));
    const c = decodeColumns(blob);
    expect(c.count).toBe(entries.length);
    expect([...c.ts]).toEqual(entries.map((e) => e.ts));
    expect(linesOf(c)).toEqual(entries.map((e) => e.line));
    expect(c.metadata).toEqual(entries.map((e) => e.metadata));
    // deltas too large for the varint path, and negative ones: timestamps stored as they are
    const odd: Entry[] = [{ ts: -5n, line: "before 1970" }, { ts: 9_000_000_000_000_000_000n, line: "far" }, { ts: 1n, line: "back" }];
    const d = decodeColumns(encodeChunk2(chunkInput(odd)));
    expect([...d.ts]).toEqual(odd.map((e) => e.ts));
    expect(linesOf(d)).toEqual(odd.map((e) => e.line));
    expect(d.metadata).toBeUndefined();
    // a small step back inside the varint range
    const back: Entry[] = [{ ts: 1_000_000n, line: "a" }, { ts: 999_999n, line: "b" }, { ts: 2_000_000n, line: "c" }];
    expect([...decodeColumns(encodeChunk2(chunkInput(back))).ts]).toEqual([1_000_000n, 999_999n, 2_000_000n]);
  });

  it("format 1 chunks (gzip JSON rows) still decode to the same columns", () => {
    const entries = sample(500, 2);
    const one = decodeColumns(encodeChunk(entries));
    const two = decodeColumns(encodeChunk2(chunkInput(entries)));
    expect(one.count).toBe(two.count);
    expect([...one.ts]).toEqual([...two.ts]);
    expect([...one.offsets]).toEqual([...two.offsets]);
    expect(linesOf(one)).toEqual(linesOf(two));
    expect(one.metadata).toEqual(two.metadata);
  });

  it("lines:false reads timestamps and sizes without inflating the line block", () => {
    const entries = sample(1000, 3);
    const blob = encodeChunk2(chunkInput(entries));
    // the line block destroyed (its CRC fixed): a timestamps-only read still works, a full read does not
    const broken = withSection(blob, 2, 0xff);
    const c = decodeColumns(broken, { lines: false });
    expect([...c.ts]).toEqual(entries.map((e) => e.ts));
    expect(c.offsets[c.count]).toBe(entries.reduce((n, e) => n + Buffer.byteLength(e.line), 0));
    expect(c.lines.length).toBe(0);
    expect(() => decodeColumns(broken)).toThrow(ChunkCorruptError);
  });

  it("damage is a ChunkCorruptError: truncated, a flipped bit, a bad magic", () => {
    const blob = encodeChunk2(chunkInput(sample(800, 4)));
    expect(() => decodeColumns(blob.subarray(0, blob.length - 1))).toThrow(ChunkCorruptError);
    expect(() => decodeColumns(blob.subarray(0, 20))).toThrow(ChunkCorruptError);
    for (const at of [45, Math.floor(blob.length / 2), blob.length - 10]) {
      const flipped = blob.slice();
      flipped[at]! ^= 0x10;
      expect(() => decodeColumns(flipped)).toThrow(ChunkCorruptError);
    }
    const magic = blob.slice();
    magic[0] = 0x58;
    expect(() => decodeColumns(magic)).toThrow(ChunkCorruptError);
    const gz = encodeChunk(sample(10));
    expect(() => decodeColumns(gz.subarray(0, gz.length - 8))).toThrow(ChunkCorruptError);
  });

  it("the bloom: a literal in the chunk always passes, absent ones are mostly ruled out; format 1 and short literals pass", () => {
    const rand = mulberry32(9);
    const hex = (n: number) => Array.from({ length: n }, () => "0123456789abcdef"[Math.floor(rand() * 16)]).join("");
    const entries: Entry[] = Array.from({ length: 5000 }, (_, i) => ({ ts: BigInt(i), line: `level=info msg="request done" path=/api/v1/items/${i % 97} trace=${hex(16)} took=${i % 1000}ms` }));
    const blob = encodeChunk2(chunkInput(entries));
    const raw = entries.reduce((n, e) => n + e.line.length, 0);
    expect(chunkInfo(blob).sections[4]! / raw).toBeLessThanOrEqual(0.04);
    for (const e of entries.slice(0, 200)) {
      const at = Math.floor(rand() * (e.line.length - 8));
      expect(chunkMayContain(blob, [e.line.slice(at, at + 8)])).toBe(true);
      // the bloom holds lowercased grams: a case-changed literal passes too
      expect(chunkMayContain(blob, [e.line.slice(at, at + 8).toUpperCase()])).toBe(true);
    }
    expect(chunkMayContain(blob, ["request done", "/api/v1/items/5"])).toBe(true);
    let passed = 0;
    for (let i = 0; i < 500; i++) if (chunkMayContain(blob, [`needle-${hex(6)}`])) passed++;
    expect(passed).toBeLessThan(25);
    expect(chunkMayContain(blob, ["request done", "zzzzzzzzqqqq"])).toBe(false);
    expect(chunkMayContain(blob, ["zzz"])).toBe(true);
    expect(chunkMayContain(encodeChunk(entries.slice(0, 10)), ["zzzzzzzzqqqq"])).toBe(true);
  });

  it("from a file: the bloom is asked by reading the header and the bloom only, at the chunk's offset; the chunk reads back", () => {
    const entries: Entry[] = Array.from({ length: 2000 }, (_, i) => ({ ts: BigInt(i), line: `user=${i * 7919} action=login status=ok` }));
    const blob = encodeChunk2(chunkInput(entries));
    const dir = mkdtempSync(join(tmpdir(), "outpost-chunkfile-"));
    try {
      const path = join(dir, "00000001.seg");
      // an odd offset: the bloom is not word-aligned in the file
      writeFileSync(path, Buffer.concat([Buffer.from("abc"), blob, Buffer.from("tail")]));
      const src = { kind: "file" as const, path, offset: 3, length: blob.length };
      expect(readSource(src)).toEqual(blob);
      for (const literals of [["action=login"], ["user=7919 "], ["ACTION=LOGIN"], ["status=failed"], ["action=login", "zzzzqqqq"], ["abc"]]) {
        expect({ literals, file: sourceMayContain(src, literals) }).toEqual({ literals, file: chunkMayContain(blob, literals) });
      }
      expect(sourceMayContain(src, ["status=failed"])).toBe(false);
      expect(sourceMayContain({ kind: "bytes", bytes: blob }, ["status=failed"])).toBe(false);
      // past the file's end: in doubt, true (reading the chunk reports it)
      expect(sourceMayContain({ ...src, offset: 100_000 }, ["status=failed"])).toBe(true);
      expect(() => readSource({ ...src, length: blob.length + 10 })).toThrow(ChunkCorruptError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
