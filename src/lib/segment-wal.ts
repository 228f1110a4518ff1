// A write-ahead log of opaque records: each record is appended (and written
// through to the file, one write per record) before the push it carries is
// acknowledged, so what was acknowledged survives a crash of the process.
// Records live in numbered segment files; a segment is deleted once its
// owner has everything in it stored elsewhere.
//
// Record: [u32 length][i32 crc32 of payload][payload]
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { crc32 } from "./crc32.ts";
import { writeAllSync } from "./write-all.ts";

export interface SegmentWal {
  /** the segment new records go to */
  readonly segment: number;
  /** appends one record: the parts back to back */
  append(...parts: Uint8Array[]): void;
  /** starts a new segment when the current one is large; returns the segment in use */
  maybeRotate(): number;
  /** starts a new segment now unless the current one is still empty; returns the segment in use */
  rotate(): number;
  /** bytes appended since the log was opened */
  readonly written: number;
  /** deletes segments below `segment` (never the one in use) */
  truncateBefore(segment: number): void;
  /** segments on disk, oldest first */
  segments(): number[];
  close(): void;
  /** closes the log and deletes every segment (its owner has stored everything) */
  clear(): void;
  /**
   * Resolves once every record appended so far is durable: at once for
   * files (each append is written through); a log kept in a database
   * commits appends in groups, and a push is acknowledged only after this.
   */
  durable(): Promise<void>;
}

/** where a log's records are kept: segment files in a directory, or a database table shared by the nodes of a cluster */
export interface WalSource {
  /** the directory of the segment files (what a backup copies); undefined for a database */
  readonly dir: string | undefined;
  /** visits every intact record of segments `from` on, in order; returns the segments that held damage */
  read(from: number, visit: (payload: Uint8Array, segment: number) => void): Promise<Array<{ segment: number; problem: string }>>;
  /** opens the log for appending, at segment `first` or above */
  open(first?: number): Promise<SegmentWal>;
}

/** the segment files in `dir` */
export function fileWalSource(dir: string, segmentBytes = DEFAULT_SEGMENT_BYTES): WalSource {
  return {
    dir,
    read: async (from, visit) => forEachRecord(dir, from, visit),
    open: async (first = 1) => openSegmentWal(dir, segmentBytes, first),
  };
}

export const DEFAULT_SEGMENT_BYTES = 32 * 1024 * 1024;
const name = (n: number) => `${String(n).padStart(8, "0")}.wal`;

/** every intact record on disk, in order; a torn tail (a crash mid-write) ends the read */
export function readSegments(dir: string): Uint8Array[] {
  const out: Uint8Array[] = [];
  forEachRecord(dir, 0, (payload) => out.push(payload));
  return out;
}

/**
 * Visits every intact record of the segments numbered `from` or more, in
 * order, one segment in memory at a time. A record that is cut short or
 * fails its checksum ends its segment's read (a crash mid-write leaves a torn
 * tail; anything else is damage): each such segment is returned with what
 * was wrong, and the read goes on with the next segment.
 */
export function forEachRecord(dir: string, from: number, visit: (payload: Uint8Array, segment: number) => void): Array<{ segment: number; problem: string }> {
  const problems: Array<{ segment: number; problem: string }> = [];
  if (!existsSync(dir)) return problems;
  for (const file of listSegments(dir)) {
    if (file < from) continue;
    const buf = readFileSync(join(dir, name(file)));
    let at = 0;
    while (at + 8 <= buf.length) {
      const len = buf.readUInt32LE(at);
      const crc = buf.readInt32LE(at + 4);
      if (at + 8 + len > buf.length) break;
      const payload = buf.subarray(at + 8, at + 8 + len);
      if ((crc32(payload) | 0) !== crc) break;
      visit(payload, file);
      at += 8 + len;
    }
    if (at < buf.length) problems.push({ segment: file, problem: `${buf.length - at} bytes at offset ${at} are not an intact record` });
  }
  return problems;
}

const DONE = Promise.resolve();

function listSegments(dir: string): number[] {
  return readdirSync(dir)
    .filter((f) => /^\d{8}\.wal$/.test(f))
    .map((f) => Number(f.slice(0, 8)))
    .sort((a, b) => a - b);
}

/**
 * `first`: the lowest number the new segment may have (its owner replays
 * from a segment number it has recorded, such as a checkpoint's: records
 * written to a lower one would never be replayed)
 */
export function openSegmentWal(dir: string, segmentBytes = DEFAULT_SEGMENT_BYTES, first = 1): SegmentWal {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const existing = listSegments(dir);
  let segment = Math.max((existing.at(-1) ?? 0) + 1, first);
  let fd = openSync(join(dir, name(segment)), "a", 0o600);
  let size = 0;
  let written = 0;
  /** closing twice would close a descriptor number the process may have given to another file since */
  let closed = false;
  return {
    get segment() {
      return segment;
    },
    append(...parts) {
      // one write (a writev of the header and the parts, nothing copied): a crash leaves a whole
      // record or a torn tail readSegments skips
      let length = 0;
      let crc = 0;
      for (const part of parts) {
        length += part.length;
        crc = crc32(part, crc);
      }
      const header = Buffer.allocUnsafeSlow(8);
      header.writeUInt32LE(length, 0);
      header.writeInt32LE(crc | 0, 4);
      writeAllSync(fd, [header, ...parts]);
      size += 8 + length;
      written += 8 + length;
    },
    get written() {
      return written;
    },
    maybeRotate() {
      if (size < segmentBytes) return segment;
      return this.rotate();
    },
    rotate() {
      if (size === 0) return segment;
      // the new segment first: if it cannot be made, the log goes on in the old one (its descriptor still valid)
      const next = openSync(join(dir, name(segment + 1)), "a", 0o600);
      closeSync(fd);
      fd = next;
      segment++;
      size = 0;
      return segment;
    },
    truncateBefore(keep) {
      for (const s of listSegments(dir)) if (s < keep && s !== segment) rmSync(join(dir, name(s)), { force: true });
    },
    segments: () => listSegments(dir),
    close() {
      if (closed) return;
      closed = true;
      closeSync(fd);
      // an empty segment carries nothing
      const path = join(dir, name(segment));
      if (existsSync(path) && statSync(path).size === 0) rmSync(path, { force: true });
    },
    clear() {
      if (!closed) closeSync(fd);
      closed = true;
      if (existsSync(dir)) for (const s of listSegments(dir)) rmSync(join(dir, name(s)), { force: true });
    },
    durable: () => DONE,
  };
}
