// Log chunk format 2 (columnar). One chunk is one blob:
//
//   header (40 bytes, little-endian)
//     0  "OLC2"                       magic
//     4  u32 count                    entries
//     8  u32 flags                    1: metadata section, 2: bloom section, 4: raw timestamps
//    12  u32 linesBytes               line bytes once inflated
//    16  u32 tsLength                 section lengths, in this order after the header
//    20  u32 lengthsLength
//    24  u32 linesLength
//    28  u32 metadataLength
//    32  u32 bloomLength
//    36  u8 bloomHashes, u8 level, u16 reserved
//   timestamps   deflateRaw(i64 first ts, then LEB128 zigzag deltas in ns) (flag 4: deflateRaw(i64 each))
//   lengths      deflateRaw(LEB128 byte length of each line)
//   lines        deflateRaw(the UTF-8 lines back to back)
//   metadata     deflateRaw(JSON array: per entry an object or null), only with flag 1
//   bloom        a bloom filter of the ASCII-lowercased 4-byte substrings of the lines (not compressed), flag 2
//   crc          i32 CRC-32 of everything before it
//
// Each column is its own section so a metric query inflates only timestamps
// and lengths, and `chunkMayContain` reads only the header and the bloom.
import { deflateRawSync, inflateRawSync } from "node:zlib";
import { crc32 } from "../../../lib/crc32.ts";

export const FORMAT2_MAGIC = 0x3243_4c4f; // "OLC2" read as a little-endian u32
const HEADER = 40;
const F_METADATA = 1;
const F_BLOOM = 2;
const F_RAW_TS = 4;

/** deflate level of the columns: see docs/choices.md ("Log chunk format 2") */
export const CHUNK_DEFLATE_LEVEL = 4;
/** the level used while chunks wait to be written faster than they are encoded (~1.5-1.9x faster than level 4, line block ~1.12x bigger; level 1 was ~2.5x faster but ~1.5x bigger) */
export const CHUNK_DEFLATE_LEVEL_FAST = 2;
/** bloom probes per 4-gram */
const BLOOM_HASHES = 3;
/** the most of the line bytes a bloom takes (it is folded to fit) */
const BLOOM_MAX_SHARE = 0.04;

/** a chunk's bytes failed their checks: bad magic, CRC mismatch, truncated */
export class ChunkCorruptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ChunkCorruptError";
  }
}

/** what encodeChunk2 takes: structured-cloneable, so it can cross to a worker */
export interface ChunkInput {
  count: number;
  ts: BigInt64Array;
  /** count + 1 offsets into `lines` */
  offsets: Uint32Array;
  lines: Uint8Array;
  metadata?: Array<Record<string, string> | undefined> | undefined;
  /** deflate level (default CHUNK_DEFLATE_LEVEL) */
  level?: number | undefined;
}

export interface Format2Columns {
  count: number;
  ts: BigInt64Array;
  offsets: Uint32Array;
  lines: Uint8Array;
  metadata?: Array<Record<string, string> | undefined> | undefined;
}

export function isFormat2(blob: Uint8Array): boolean {
  return blob.length >= 4 && blob[0] === 0x4f && blob[1] === 0x4c && blob[2] === 0x43 && blob[3] === 0x32;
}

// ---- varints -------------------------------------------------------------

class ByteWriter {
  buf: Uint8Array;
  at = 0;
  constructor(size: number) {
    this.buf = new Uint8Array(Math.max(16, size));
  }
  private grow(n: number) {
    if (this.at + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.at + n));
    next.set(this.buf.subarray(0, this.at));
    this.buf = next;
  }
  /** a non-negative integer below 2^53 */
  varint(v: number) {
    this.grow(8);
    const b = this.buf;
    while (v >= 0x80) {
      b[this.at++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    b[this.at++] = v;
  }
  bytes() {
    return this.buf.subarray(0, this.at);
  }
}

class VarintReader {
  constructor(
    private readonly buf: Uint8Array,
    private at: number,
    private readonly what: string,
  ) {}
  next(): number {
    let z = 0;
    let mul = 1;
    for (;;) {
      if (this.at >= this.buf.length) throw new ChunkCorruptError(`chunk ${this.what} are truncated`);
      const b = this.buf[this.at++]!;
      z += (b & 0x7f) * mul;
      if (b < 0x80) return z;
      mul *= 0x80;
    }
  }
}

// ---- bloom filter ----------------------------------------------------------

/** ASCII lowercase of a byte, by table */
const LOWER = Uint8Array.from({ length: 256 }, (_, c) => (c >= 0x41 && c <= 0x5a ? c | 0x20 : c));

function mix(h: number): number {
  h = Math.imul(h, 0x9e37_79b1);
  return (h ^ (h >>> 15)) >>> 0;
}
/**
 * A blocked bloom: a gram's probes are BLOOM_HASHES bits of one 32-bit word
 * (the low bits of its hash pick the word, higher ones the bits), so adding
 * or testing a gram touches one word.
 */
function probeBits(h: number): number {
  const b = Math.imul(h, 0x85eb_ca6b) >>> 0;
  return (1 << (b >>> 27)) | (1 << ((b >>> 22) & 31)) | (1 << ((b >>> 17) & 31));
}

function popcount(v: number): number {
  v -= (v >>> 1) & 0x5555_5555;
  v = (v & 0x3333_3333) + ((v >>> 2) & 0x3333_3333);
  return (Math.imul((v + (v >>> 4)) & 0x0f0f_0f0f, 0x0101_0101) >>> 24) & 0xff;
}

/**
 * The bloom, sized to the chunk in one pass: built at 1 bit per line byte
 * (a power of two), then folded in half (upper half ORed into the lower: the
 * same filter with one index bit fewer) while it stays at most half full,
 * and further while it is larger than BLOOM_MAX_SHARE of the line bytes.
 */
export function buildBloom(lines: Uint8Array, offsets: Uint32Array, count: number): Uint8Array {
  const cap = Math.max(1024, lines.length * 8 * BLOOM_MAX_SHARE);
  // built at once at the size the folds below would reach first (at most 1 bit per line byte, at
  // most `cap`): folding is the same as building with one index bit fewer, and the small filter
  // stays in the CPU's first-level cache (~2x faster than building big and folding)
  let bits = Math.min(2 ** Math.max(10, Math.ceil(Math.log2(Math.max(1, lines.length)))), 2 ** Math.floor(Math.log2(cap)));
  let words = new Uint32Array(bits >>> 5);
  const mask = words.length - 1;
  for (let i = 0; i < count; i++) {
    const end = offsets[i + 1]!;
    let g = 0;
    for (let p = offsets[i]!, n = 0; p < end; p++, n++) {
      g = (g << 8) | LOWER[lines[p]!]!;
      if (n < 3) continue;
      const h = mix(g);
      words[h & mask]! |= probeBits(h);
    }
  }
  let set = 0;
  for (const w of words) set += popcount(w);
  while (bits > 1024) {
    const fill = set / bits;
    // folding two halves with fill f gives about 1 - (1 - f)^2
    if (1 - (1 - fill) ** 2 > 0.5 && bits <= cap) break;
    const half = words.length >>> 1;
    const folded = new Uint32Array(half);
    set = 0;
    for (let w = 0; w < half; w++) set += popcount((folded[w] = words[w]! | words[w + half]!));
    words = folded;
    bits >>>= 1;
  }
  return new Uint8Array(words.buffer);
}

function bloomHas(bloom: Uint8Array, gram: number): boolean {
  const words = new Uint32Array(bloom.buffer, bloom.byteOffset, bloom.byteLength >>> 2);
  const h = mix(gram);
  const want = probeBits(h);
  return (words[h & (words.length - 1)]! & want) === want;
}

// ---- encode ----------------------------------------------------------------

const TWO32 = 2 ** 32;
const MAX_DELTA = 2 ** 51;

function encodeTimestamps(ts: BigInt64Array, count: number): { bytes: Uint8Array; raw: boolean } {
  // deltas computed on the two 32-bit halves as doubles: exact while below 2^51, no BigInt per entry
  const halves = new Int32Array(ts.buffer, ts.byteOffset, count * 2);
  const w = new ByteWriter(8 + count * 3);
  if (count) {
    new DataView(w.buf.buffer).setBigInt64(0, ts[0]!, true);
    w.at = 8;
  }
  for (let i = 1; i < count; i++) {
    const d = (halves[2 * i + 1]! - halves[2 * i - 1]!) * TWO32 + ((halves[2 * i]! >>> 0) - (halves[2 * i - 2]! >>> 0));
    if (d >= MAX_DELTA || d <= -MAX_DELTA) {
      // a chunk spanning more than ~26 days of nanoseconds: every timestamp as it is
      return { bytes: new Uint8Array(ts.buffer.slice(ts.byteOffset, ts.byteOffset + count * 8)), raw: true };
    }
    w.varint(d >= 0 ? d * 2 : -d * 2 - 1);
  }
  return { bytes: w.bytes(), raw: false };
}

/** encodes a chunk in format 2; `ts`/`offsets`/`lines` are only read */
export function encodeChunk2(input: ChunkInput, level = input.level ?? CHUNK_DEFLATE_LEVEL): Uint8Array {
  const { count, ts, offsets, lines } = input;
  const linesBytes = offsets[count]!;
  const block = lines.subarray(0, linesBytes);
  const tsCol = encodeTimestamps(ts, count);
  const lens = new ByteWriter(count * 2);
  for (let i = 0; i < count; i++) lens.varint(offsets[i + 1]! - offsets[i]!);
  const opts = { level };
  const sections: Uint8Array[] = [
    deflateRawSync(tsCol.bytes, opts),
    deflateRawSync(lens.bytes(), opts),
    deflateRawSync(block, opts),
  ];
  let flags = tsCol.raw ? F_RAW_TS : 0;
  const hasMeta = input.metadata?.some((m) => m !== undefined) ?? false;
  sections.push(hasMeta ? deflateRawSync(Buffer.from(JSON.stringify(input.metadata!.map((m) => m ?? null))), opts) : new Uint8Array(0));
  if (hasMeta) flags |= F_METADATA;
  const bloom = count ? buildBloom(block, offsets, count) : new Uint8Array(0);
  if (bloom.length) flags |= F_BLOOM;
  sections.push(bloom);
  const total = HEADER + sections.reduce((n, s) => n + s.length, 0) + 4;
  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  v.setUint32(0, FORMAT2_MAGIC, true);
  v.setUint32(4, count, true);
  v.setUint32(8, flags, true);
  v.setUint32(12, linesBytes, true);
  sections.forEach((s, i) => v.setUint32(16 + 4 * i, s.length, true));
  out[36] = BLOOM_HASHES;
  out[37] = level;
  let at = HEADER;
  for (const s of sections) {
    out.set(s, at);
    at += s.length;
  }
  v.setUint32(at, crc32(out.subarray(0, at)), true);
  return out;
}

// ---- decode ----------------------------------------------------------------

interface Header {
  count: number;
  flags: number;
  linesBytes: number;
  /** [start, end) of each section: ts, lengths, lines, metadata, bloom */
  at: Array<[number, number]>;
  hashes: number;
}

/** reads the header from the blob's first HEADER bytes; `length` is the whole blob's */
function readHeader(blob: Uint8Array, length = blob.length): Header {
  if (blob.length < HEADER || length < HEADER + 4) throw new ChunkCorruptError(`chunk truncated: ${length} bytes`);
  const v = new DataView(blob.buffer, blob.byteOffset, blob.byteLength);
  if (v.getUint32(0, true) !== FORMAT2_MAGIC) throw new ChunkCorruptError("chunk has a bad magic");
  const at: Array<[number, number]> = [];
  let p = HEADER;
  for (let i = 0; i < 5; i++) {
    const len = v.getUint32(16 + 4 * i, true);
    at.push([p, p + len]);
    p += len;
  }
  if (p + 4 !== length) throw new ChunkCorruptError(`chunk truncated or overlong: ${length} bytes, header says ${p + 4}`);
  return { count: v.getUint32(4, true), flags: v.getUint32(8, true), linesBytes: v.getUint32(12, true), at, hashes: blob[36]! };
}

function inflate(blob: Uint8Array, [s, e]: [number, number], what: string): Uint8Array {
  try {
    return inflateRawSync(blob.subarray(s, e));
  } catch (err) {
    throw new ChunkCorruptError(`chunk ${what} section does not inflate: ${String(err)}`);
  }
}

/** decodes a format 2 chunk; lines:false leaves the line block compressed (timestamps and sizes only) */
export function decodeChunk2(blob: Uint8Array, options: { lines?: boolean } = {}): Format2Columns {
  const h = readHeader(blob);
  const crcAt = blob.length - 4;
  const crc = new DataView(blob.buffer, blob.byteOffset + crcAt, 4).getUint32(0, true);
  if (crc32(blob.subarray(0, crcAt)) !== crc) throw new ChunkCorruptError("chunk CRC mismatch");
  const { count } = h;
  // timestamps
  const tsBytes = inflate(blob, h.at[0]!, "timestamp");
  const ts = new BigInt64Array(count);
  if (h.flags & F_RAW_TS) {
    if (tsBytes.length !== count * 8) throw new ChunkCorruptError("chunk timestamps have the wrong size");
    new Uint8Array(ts.buffer).set(tsBytes);
  } else if (count) {
    if (tsBytes.length < 8) throw new ChunkCorruptError("chunk timestamps are truncated");
    const halves = new Int32Array(ts.buffer);
    const first = new DataView(tsBytes.buffer, tsBytes.byteOffset, 8);
    let lo = first.getUint32(0, true);
    let hi = first.getInt32(4, true);
    halves[0] = lo;
    halves[1] = hi;
    const r = new VarintReader(tsBytes, 8, "timestamps");
    for (let i = 1; i < count; i++) {
      const z = r.next();
      const d = z % 2 === 0 ? z / 2 : -(z + 1) / 2;
      lo += d;
      const carry = Math.floor(lo / TWO32);
      lo -= carry * TWO32;
      hi += carry;
      halves[2 * i] = lo | 0;
      halves[2 * i + 1] = hi | 0;
    }
  }
  // lengths
  const lens = inflate(blob, h.at[1]!, "length");
  const offsets = new Uint32Array(count + 1);
  const r = new VarintReader(lens, 0, "lengths");
  let sum = 0;
  for (let i = 0; i < count; i++) {
    sum += r.next();
    offsets[i + 1] = sum;
  }
  if (sum !== h.linesBytes) throw new ChunkCorruptError("chunk lengths do not add up to its line bytes");
  let lines: Uint8Array = new Uint8Array(0);
  if (options.lines !== false) {
    lines = inflate(blob, h.at[2]!, "line");
    if (lines.length !== h.linesBytes) throw new ChunkCorruptError("chunk line block has the wrong size");
  }
  let metadata: Array<Record<string, string> | undefined> | undefined;
  if (h.flags & F_METADATA) {
    const raw = JSON.parse(Buffer.from(inflate(blob, h.at[3]!, "metadata")).toString("utf8")) as Array<Record<string, string> | null>;
    metadata = raw.map((m) => m ?? undefined);
  }
  return { count, ts, offsets, lines, metadata };
}

const textEncoder = new TextEncoder();

/** bytes of a format 2 chunk's header: enough for `bloomSection` */
export const CHUNK_HEADER_BYTES = HEADER;

/**
 * Where a chunk's bloom is ([start, end) in the chunk), from its first
 * CHUNK_HEADER_BYTES bytes and its length; undefined when it has none this
 * code can use (format 1, no bloom, another scheme, a damaged header: the
 * decode reports that).
 */
export function bloomSection(head: Uint8Array, length: number): [number, number] | undefined {
  if (!isFormat2(head)) return undefined;
  let h: Header;
  try {
    h = readHeader(head, length);
  } catch {
    return undefined;
  }
  if (!(h.flags & F_BLOOM) || h.hashes !== BLOOM_HASHES) return undefined;
  const [s, e] = h.at[4]!;
  return e - s >= 4 && (e - s) % 4 === 0 ? [s, e] : undefined;
}

/** false only when the bloom proves one of the literals absent (see chunkMayContain) */
export function bloomMayContain(bloom: Uint8Array, literals: string[]): boolean {
  // the bloom as aligned words
  if (bloom.byteOffset % 4 !== 0) bloom = bloom.slice();
  for (const literal of literals) {
    const bytes = textEncoder.encode(literal);
    let g = 0;
    for (let i = 0; i < bytes.length; i++) {
      g = (g << 8) | LOWER[bytes[i]!]!;
      if (i >= 3 && !bloomHas(bloom, g)) return false;
    }
  }
  return true;
}

/**
 * False only when the chunk's bloom filter proves some literal is absent
 * (every line filter `|= literal` must match, so one absent literal rules the
 * chunk out). Reads only the header and the bloom section; true for format 1,
 * chunks without a bloom, and literals shorter than 4 bytes. The bloom holds
 * ASCII-lowercased grams, so it also serves case-insensitive literals.
 */
export function chunkMayContain(blob: Uint8Array, literals: string[]): boolean {
  const at = bloomSection(blob, blob.length);
  return at ? bloomMayContain(blob.subarray(at[0], at[1]), literals) : true;
}

/** the header's summary of a format 2 chunk, without decoding it (for tools and tests) */
export function chunkInfo(blob: Uint8Array): { count: number; linesBytes: number; sections: number[] } {
  const h = readHeader(blob);
  return { count: h.count, linesBytes: h.linesBytes, sections: h.at.map(([s, e]) => e - s) };
}
