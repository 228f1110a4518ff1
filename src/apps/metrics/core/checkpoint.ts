// Checkpoints of the metrics store's heads (docs/metrics-store.md, "Head,
// checkpoints and recovery"): every tenant's series (labels, newest sample,
// what the database holds of it), their open chunks as the encoder's own
// state and bytes, and their closed chunks not yet in the database. A start
// reads the newest checkpoint and replays only the write-ahead segments from
// the one it names; segments before it are deleted once it is on disk.
//
// A checkpoint is written while the store serves (in slices, so pushes are
// never kept waiting): series appended to meanwhile may be saved with samples
// of later segments too, which a replay skips (a sample not after its series'
// newest is never appended twice). A tenant's series are saved in the order
// they were made (a Map's order), up to the last one made before its save
// ended, and the next id is saved after them: a replay gives the series made
// later the ids they had, in the order the log has them (made and logged in
// one turn), so ids in the database stay right.
//
// File: "OPMC", u32 version, u32 first segment to replay, then per tenant
// (tag 1): string name, f64 newest sample, metadata, series (tag 1 each, 0
// after the last), varint next id; tag 0 after the last tenant; u32 CRC-32
// of everything before it. Strings are interned: a reference is a varint: 1
// followed by the string the first time (it gets the next number), its
// number + 2 after; 0 followed by a string that is not interned (the values
// of a label name that has had more than INTERN_VALUES of them: ids, hosts).
// The strings read back are shared by every series that has them.
//
// Version 2 (written since a checkpoint of a million series had to be
// written in a fraction of a second: docs/metrics-store.md) writes times and
// the encoder's small numbers as varints (num: times relative to the
// tenant's newest sample) and each series' raw key (the hash and check of
// the bytes a push named it by: a replay then finds its series without
// decoding labels) in its own record. Version 1 (f64 numbers, the raw keys
// in a section after the series: series id, key, check, tag 1 each, 0 after
// the last) is still read.
import { closeSync, fstatSync, fsync, fsyncSync, openSync, readdirSync, readSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "../../../lib/crc32.ts";
import { utf8Slice } from "../../../lib/utf8-slice.ts";
import { createTimeSlicer } from "../../../lib/time-slice.ts";
import { writeAllSync } from "../../../lib/write-all.ts";
import { addChunk, type ClosedChunk, type HeadSeries, type TenantHead } from "./head.ts";
import type { LabelPair } from "./label-hash.ts";
import type { Labels } from "./types.ts";
import { appenderRoom, XOR_STATE_FIELDS, XOR_STATE_LAST_T, XOR_STATE_V_HI, XOR_STATE_V_LO, XorAppender } from "./xor-chunk.ts";

const MAGIC = 0x434d504f; // "OPMC" little-endian
const VERSION = 2;
/** versions this release reads */
const READS = [1, 2];
const FLUSH_BYTES = 4 << 20;
const PREFIX = "checkpoint.";

/** values of one label name interned at most (more are written out each time) */
const INTERN_VALUES = 4096;

const F_PERSISTED = 1;
const F_ACTIVE = 2;
const F_LAST_STALE = 4;
const F_OPEN = 8;
const F_LAST_UNKNOWN = 16;
const F_RAW = 32;

/** num(): codes below the first difference (NUM_DIFF + zigzag(n - base)) */
const NUM_F64 = 0;
const NUM_MINUS_INF = 1;
const NUM_PLUS_INF = 2;
const NUM_DIFF = 3;
/** differences written as varints (their zigzag code stays a safe integer) */
const NUM_DIFF_MAX = 2 ** 50;

/** the checkpoint files of a directory, newest (highest segment) first */
export function listCheckpoints(dir: string): Array<{ file: string; segment: number }> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  return names
    .filter((f) => /^checkpoint\.\d{8}$/.test(f))
    .map((file) => ({ file: join(dir, file), segment: Number(file.slice(PREFIX.length)) }))
    .sort((a, b) => b.segment - a.segment);
}

/** a growable byte buffer written to a file descriptor in pieces, summed as it goes */
class Out {
  private buf = Buffer.allocUnsafeSlow(FLUSH_BYTES + (1 << 16));
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  private at = 0;
  crc = 0;
  private readonly strings = new Map<string, number>();

  constructor(private readonly fd: number) {}

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    this.flush();
    if (n > this.buf.length) {
      this.buf = Buffer.allocUnsafeSlow(n);
      this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    }
  }

  flush(): void {
    if (this.at === 0) return;
    const part = this.buf.subarray(0, this.at);
    this.crc = crc32(part, this.crc);
    writeAllSync(this.fd, [part]);
    this.at = 0;
  }

  get pending(): number {
    return this.at;
  }

  u8(n: number): void {
    this.room(1);
    this.buf[this.at++] = n;
  }

  u32(n: number): void {
    this.room(4);
    this.view.setUint32(this.at, n >>> 0, true);
    this.at += 4;
  }

  f64(n: number): void {
    this.room(8);
    this.view.setFloat64(this.at, n, true);
    this.at += 8;
  }

  varint(n: number): void {
    this.room(10);
    const buf = this.buf;
    let at = this.at;
    while (n >= 0x80) {
      buf[at++] = (n & 0x7f) | 0x80;
      n = Math.floor(n / 128);
    }
    buf[at++] = n;
    this.at = at;
  }

  /** a number near `base` (a time near the tenant's newest, a small count near 0): a few bytes for an integer */
  num(n: number, base: number): void {
    const d = n - base;
    if (Number.isSafeInteger(d) && d < NUM_DIFF_MAX && d > -NUM_DIFF_MAX) this.varint(NUM_DIFF + (d >= 0 ? d * 2 : -d * 2 - 1));
    else if (n === -Infinity) this.varint(NUM_MINUS_INF);
    else if (n === Infinity) this.varint(NUM_PLUS_INF);
    else {
      this.varint(NUM_F64);
      this.f64(n);
    }
  }

  /** the first n bytes of b (all of them by default), after their length */
  bytes(b: Uint8Array, n = b.length): void {
    this.varint(n);
    this.room(n);
    if (n <= 64) {
      // a short chunk (a few samples) byte by byte: cheaper than a call into the runtime
      const buf = this.buf;
      const at = this.at;
      for (let i = 0; i < n; i++) buf[at + i] = b[i]!;
    } else {
      // Buffer#copy takes a range: no view made per chunk
      Buffer.prototype.copy.call(b, this.buf, this.at, 0, n);
    }
    this.at += n;
  }

  string(s: string): void {
    const len = s.length;
    // short ASCII (label names and values): its length is its byte count, one byte before it
    if (len < 0x80) {
      this.room(len + 1);
      const buf = this.buf;
      let at = this.at + 1;
      let i = 0;
      for (; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[at++] = c;
      }
      if (i === len) {
        buf[this.at] = len;
        this.at = at;
        return;
      }
    }
    const n = Buffer.byteLength(s);
    this.varint(n);
    this.room(n);
    this.at += this.buf.write(s, this.at, "utf8");
  }

  /** distinct values interned per label name */
  private readonly valuesOf = new Map<string, number>();

  /** an interned string: its number when written before */
  ref(s: string): void {
    const n = this.strings.get(s);
    if (n !== undefined) return this.varint(n + 2);
    this.strings.set(s, this.strings.size);
    this.varint(1);
    this.string(s);
  }

  /** a label's value: interned while its name has had few values (a name with many is not looked up again) */
  value(name: string, s: string): void {
    const seen = this.valuesOf.get(name) ?? 0;
    if (seen >= INTERN_VALUES) {
      this.varint(0);
      return this.string(s);
    }
    const n = this.strings.get(s);
    if (n !== undefined) return this.varint(n + 2);
    this.valuesOf.set(name, seen + 1);
    this.strings.set(s, this.strings.size);
    this.varint(1);
    this.string(s);
  }
}

const state = new Float64Array(XOR_STATE_FIELDS);

/** one series' record; times relative to `base` (the tenant's newest sample, or 0) */
function writeSeries(out: Out, s: HeadSeries, base: number): void {
  out.u8(1);
  out.varint(s.id);
  const open = s.open && s.open.count > 0 ? s.open : undefined;
  const raw = s.rawKey !== 0;
  out.u8((s.persisted ? F_PERSISTED : 0) | (s.active ? F_ACTIVE : 0) | (s.lastStale ? F_LAST_STALE : 0) | (open ? F_OPEN : 0) | (s.lastKnown ? 0 : F_LAST_UNKNOWN) | (raw ? F_RAW : 0));
  const labels = s.labels;
  let count = 0;
  for (const _ in labels) count++;
  out.varint(count);
  for (const n in labels) {
    out.ref(n);
    out.value(n, labels[n]!);
  }
  out.num(s.firstT, base);
  out.num(s.lastT, base);
  out.f64(s.lastV);
  out.num(s.persistedMaxT, base);
  out.num(s.lastSeen, base);
  if (open) {
    out.num(s.openMinT, base);
    out.num(s.openedAt, base);
    const buf = open.exportState(state);
    for (let i = 0; i < XOR_STATE_FIELDS; i++) {
      if (i === XOR_STATE_LAST_T) out.num(state[i]!, base);
      else if (i === XOR_STATE_V_HI || i === XOR_STATE_V_LO) out.u32(state[i]!);
      else out.num(state[i]!, 0);
    }
    out.bytes(buf, state[0]!);
  }
  out.varint(s.closed.length);
  for (const c of s.closed) {
    out.num(c.minT, base);
    out.num(c.maxT, base);
    out.varint(c.samples);
    out.bytes(c.data);
  }
  if (raw) {
    out.f64(s.rawKey);
    out.u32(s.rawCheck);
  }
}

/** the base of a tenant's times in its records */
const baseOf = (maxT: number) => (Number.isSafeInteger(maxT) ? maxT : 0);

export interface CheckpointWriteOptions {
  /** yield to the event loop between slices of this many ms (0: write at once) */
  sliceMs: number;
}

/**
 * Writes a checkpoint of the heads as `checkpoint.<segment>` in dir (through
 * a temporary file, synced, then renamed): replaying from `segment` on top of
 * it gives the heads back. Returns its path and size.
 */
export async function writeCheckpoint(dir: string, segment: number, heads: Iterable<TenantHead>, o: CheckpointWriteOptions): Promise<{ path: string; bytes: number; series: number }> {
  const path = join(dir, `${PREFIX}${String(segment).padStart(8, "0")}`);
  const tmp = `${path}.tmp`;
  const fd = openSync(tmp, "w", 0o600);
  const slicer = o.sliceMs > 0 ? createTimeSlicer(o.sliceMs) : undefined;
  let series = 0;
  let bytes = 0;
  try {
    const out = new Out(fd);
    out.u32(MAGIC);
    out.u32(VERSION);
    out.u32(segment);
    for (const h of [...heads]) {
      out.u8(1);
      out.string(h.tenant);
      out.f64(h.maxT);
      out.varint(h.metadata.size);
      for (const [family, m] of h.metadata) {
        out.ref(family);
        out.ref(m.type);
        out.ref(m.help);
        out.ref(m.unit);
      }
      const base = baseOf(h.maxT);
      // by index, not an iterator: sees the series made while it pauses
      const slots = h.byId.slots;
      for (let id = 0; id < slots.length; id++) {
        const s = slots[id];
        if (s === undefined) continue;
        writeSeries(out, s, base);
        series++;
        if (slicer && (series & 255) === 0) {
          if (out.pending >= FLUSH_BYTES) out.flush();
          await slicer.pause();
        }
      }
      out.u8(0);
      // after the series: each series made up to now was saved
      out.varint(h.nextSeriesId);
    }
    out.u8(0);
    out.flush();
    const tail = Buffer.allocUnsafe(4);
    tail.writeUInt32LE(out.crc >>> 0, 0);
    writeAllSync(fd, [tail]);
    // on the runtime's thread pool: syncing a few hundred megabytes keeps no push waiting
    await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
    bytes = fstatSync(fd).size;
  } catch (err) {
    closeSync(fd);
    rmSync(tmp, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(tmp, path);
  syncDir(dir);
  return { path, bytes, series };
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // not every platform syncs a directory
  }
}

/** a checkpoint that cannot be read: the reason names what is wrong */
export class CheckpointError extends Error {}

/** the file read in windows of WINDOW bytes: a checkpoint is never in memory whole */
const WINDOW = 8 << 20;

class In {
  /** position in the window */
  at = 0;
  readonly strings: string[] = [];
  private buf: Buffer = Buffer.allocUnsafeSlow(WINDOW);
  private view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  /** bytes of the window holding data */
  private filled = 0;
  /** the file offset of the window's first byte */
  private base = 0;

  /** `end`: the body's length (the checksum after it is not read) */
  constructor(
    private readonly fd: number,
    private readonly end: number,
  ) {}

  /** the file offset of the next byte */
  get offset(): number {
    return this.base + this.at;
  }

  private need(n: number): void {
    if (this.at + n <= this.filled) return;
    if (this.base + this.at + n > this.end) throw new CheckpointError(`truncated at byte ${this.base + this.at}`);
    // what is left of the window to its start, then read on
    const left = this.filled - this.at;
    if (n > this.buf.length) {
      const bigger = Buffer.allocUnsafeSlow(n + WINDOW);
      this.buf.copy(bigger, 0, this.at, this.filled);
      this.buf = bigger;
      this.view = new DataView(bigger.buffer, bigger.byteOffset, bigger.byteLength);
    } else this.buf.copy(this.buf, 0, this.at, this.filled);
    this.base += this.at;
    this.at = 0;
    this.filled = left;
    while (this.filled < n) {
      const want = Math.min(this.buf.length - this.filled, this.end - (this.base + this.filled));
      const got = readSync(this.fd, this.buf, this.filled, want, this.base + this.filled);
      if (got <= 0) throw new CheckpointError(`truncated at byte ${this.base + this.filled}`);
      this.filled += got;
    }
  }

  u8(): number {
    this.need(1);
    return this.buf[this.at++]!;
  }

  u32(): number {
    this.need(4);
    const n = this.view.getUint32(this.at, true);
    this.at += 4;
    return n;
  }

  f64(): number {
    this.need(8);
    const n = this.view.getFloat64(this.at, true);
    this.at += 8;
    return n;
  }

  /** what Out.num wrote */
  num(base: number): number {
    const c = this.varint();
    if (c >= NUM_DIFF) {
      const z = c - NUM_DIFF;
      return base + (z % 2 === 0 ? z / 2 : -(z + 1) / 2);
    }
    if (c === NUM_F64) return this.f64();
    return c === NUM_MINUS_INF ? -Infinity : Infinity;
  }

  varint(): number {
    let n = 0;
    let mul = 1;
    if (this.at + 8 <= this.filled) {
      // the window holds the longest varint written: no bounds to check byte by byte
      const buf = this.buf;
      for (let i = 0; i < 8; i++) {
        const b = buf[this.at++]!;
        n += (b & 0x7f) * mul;
        if (b < 0x80) return n;
        mul *= 128;
      }
      throw new CheckpointError(`bad number at byte ${this.at}`);
    }
    for (let i = 0; i < 8; i++) {
      this.need(1);
      const b = this.buf[this.at++]!;
      n += (b & 0x7f) * mul;
      if (b < 0x80) return n;
      mul *= 128;
    }
    throw new CheckpointError(`bad number at byte ${this.at}`);
  }

  /** copies the next n bytes into `into` */
  copyInto(into: Uint8Array, n: number): void {
    this.need(n);
    this.buf.copy(into, 0, this.at, this.at + n);
    this.at += n;
  }

  /** a view of the next bytes, valid until the next read (copy what is kept) */
  bytes(): Buffer {
    const n = this.varint();
    this.need(n);
    const b = this.buf.subarray(this.at, this.at + n);
    this.at += n;
    return b;
  }

  string(): string {
    const n = this.varint();
    this.need(n);
    const s = utf8Slice(this.buf, this.at, this.at + n);
    this.at += n;
    return s;
  }

  ref(): string {
    const n = this.varint();
    if (n === 0) return this.string();
    if (n === 1) {
      const s = this.string();
      this.strings.push(s);
      return s;
    }
    const s = this.strings[n - 2];
    if (s === undefined) throw new CheckpointError(`bad string reference at byte ${this.at}`);
    return s;
  }
}

export interface LoadedCheckpoint {
  /** the first write-ahead segment to replay on top of it */
  segment: number;
  series: number;
  /** the file's size */
  bytes: number;
}

/**
 * Reads a checkpoint into heads made by `head` (which must be empty). A file
 * that is damaged (its checksum, or its structure) throws CheckpointError
 * before any head is touched.
 */
export function readCheckpoint(path: string, head: (tenant: string) => TenantHead): LoadedCheckpoint {
  const fd = openSync(path, "r");
  try {
    return readFrom(fd, fstatSync(fd).size, head);
  } finally {
    closeSync(fd);
  }
}

function readFrom(fd: number, size: number, head: (tenant: string) => TenantHead): LoadedCheckpoint {
  if (size < 16) throw new CheckpointError("too short");
  // the checksum first, a window at a time: a damaged file touches no head
  const window = Buffer.allocUnsafeSlow(WINDOW);
  let crc = 0;
  for (let at = 0; at < size - 4; ) {
    const got = readSync(fd, window, 0, Math.min(WINDOW, size - 4 - at), at);
    if (got <= 0) throw new CheckpointError(`truncated at byte ${at}`);
    crc = crc32(window.subarray(0, got), crc);
    at += got;
  }
  readSync(fd, window, 0, 4, size - 4);
  if ((crc >>> 0) !== window.readUInt32LE(0)) throw new CheckpointError("checksum mismatch");
  const r = new In(fd, size - 4);
  if (r.u32() !== MAGIC) throw new CheckpointError("not a metrics checkpoint");
  const version = r.u32();
  if (!READS.includes(version)) throw new CheckpointError(`version ${version} is not known (this release reads ${READS.join(" and ")})`);
  const v1 = version === 1;
  const segment = r.u32();
  let series = 0;
  const st = new Float64Array(XOR_STATE_FIELDS);
  while (r.u8() === 1) {
    const h = head(r.string());
    h.maxT = r.f64();
    const base = baseOf(h.maxT);
    const time = v1 ? () => r.f64() : () => r.num(base);
    const small = v1 ? () => r.f64() : () => r.num(0);
    for (let m = r.varint(); m > 0; m--) h.metadata.set(r.ref(), { type: r.ref(), help: r.ref(), unit: r.ref() });
    // the pairs of a series' labels, the same objects for every series (addSeries keeps none of them)
    const pool: LabelPair[] = [];
    const pairs: LabelPair[] = [];
    while (r.u8() === 1) {
      const id = r.varint();
      const flags = r.u8();
      pairs.length = 0;
      let sorted = true;
      for (let n = r.varint(), i = 0; i < n; i++) {
        const pair = (pool[i] ??= { name: "", value: "" });
        pair.name = r.ref();
        pair.value = r.ref();
        if (i > 0 && pairs[i - 1]!.name >= pair.name) sorted = false;
        pairs.push(pair);
      }
      // the label sets were written in name order (they are made so); sorted again if not
      if (!sorted) pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      const s = h.addSeries(pairs, id);
      s.persisted = (flags & F_PERSISTED) !== 0;
      s.firstT = time();
      s.lastT = time();
      s.lastV = r.f64();
      s.lastStale = (flags & F_LAST_STALE) !== 0;
      s.lastKnown = (flags & F_LAST_UNKNOWN) === 0;
      s.persistedMaxT = time();
      const lastSeen = time();
      if (flags & F_OPEN) {
        s.openMinT = time();
        s.openedAt = time();
        for (let i = 0; i < XOR_STATE_FIELDS; i++) {
          if (v1) st[i] = r.f64();
          else st[i] = i === XOR_STATE_LAST_T ? time() : i === XOR_STATE_V_HI || i === XOR_STATE_V_LO ? r.u32() : small();
        }
        try {
          const n = r.varint();
          // room past the bytes, as the encoder keeps it
          const buf = new Uint8Array(appenderRoom(n));
          r.copyInto(buf, n);
          s.open = XorAppender.adopt(st, buf, n);
        } catch (err) {
          throw new CheckpointError(`series ${id}: ${(err as Error).message}`);
        }
      }
      for (let c = r.varint(); c > 0; c--) {
        const minT = time();
        const maxT = time();
        const samples = r.varint();
        const data = new Uint8Array(r.varint());
        r.copyInto(data, data.length);
        const chunk: ClosedChunk = { minT, maxT, samples, data };
        addChunk(s, "closed", chunk);
      }
      if (flags & F_RAW) {
        const key = r.f64();
        h.setRaw(key, r.u32(), s);
      }
      if (flags & F_ACTIVE) h.activate(s, lastSeen);
      else s.lastSeen = lastSeen;
      series++;
    }
    h.nextSeriesId = r.varint();
    if (v1) {
      while (r.u8() === 1) {
        const s = h.byId.get(r.varint());
        const key = r.f64();
        const check = r.u32();
        if (s) h.setRaw(key, check, s);
      }
    }
  }
  if (r.offset !== size - 4) throw new CheckpointError(`${size - 4 - r.offset} bytes after the end`);
  return { segment, series, bytes: size };
}
