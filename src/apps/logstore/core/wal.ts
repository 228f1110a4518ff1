// The write-ahead log of the log store: every accepted push is appended (and
// written through to the file) before it is acknowledged, so entries still in
// memory heads survive a crash. Records live in numbered segment files; a
// segment is deleted once everything in it is in stored chunks.
//
// Record: [u32 length][u32 crc32 of payload][payload: JSON {seq, tenant, streams}]
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import CRC32 from "crc-32";

export interface WalStream {
  labels: Record<string, string>;
  /** [ts ns as decimal string, line, metadata?] */
  entries: Array<[string, string, Record<string, string>?]>;
}

export interface WalRecord {
  seq: number;
  tenant: string;
  streams: WalStream[];
}

export interface Wal {
  /** the segment new records go to */
  readonly segment: number;
  append(record: WalRecord): void;
  /** starts a new segment when the current one is large; returns the segment in use */
  maybeRotate(): number;
  /** deletes segments below `segment` */
  truncateBefore(segment: number): void;
  /** segments on disk, oldest first */
  segments(): number[];
  close(): void;
}

const SEGMENT_BYTES = 32 * 1024 * 1024;
const name = (n: number) => `${String(n).padStart(8, "0")}.wal`;

/** every intact record on disk, in order; a torn tail (a crash mid-write) ends the read */
export function readWal(dir: string): WalRecord[] {
  if (!existsSync(dir)) return [];
  const out: WalRecord[] = [];
  for (const file of listSegments(dir)) {
    const buf = readFileSync(join(dir, name(file)));
    let at = 0;
    while (at + 8 <= buf.length) {
      const len = buf.readUInt32LE(at);
      const crc = buf.readInt32LE(at + 4);
      if (at + 8 + len > buf.length) break;
      const payload = buf.subarray(at + 8, at + 8 + len);
      if (CRC32.buf(payload) !== crc) break;
      out.push(JSON.parse(payload.toString("utf8")) as WalRecord);
      at += 8 + len;
    }
  }
  return out;
}

function listSegments(dir: string): number[] {
  return readdirSync(dir)
    .filter((f) => /^\d{8}\.wal$/.test(f))
    .map((f) => Number(f.slice(0, 8)))
    .sort((a, b) => a - b);
}

export function openWal(dir: string): Wal {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const existing = listSegments(dir);
  let segment = (existing.at(-1) ?? 0) + 1;
  let fd = openSync(join(dir, name(segment)), "a", 0o600);
  let size = 0;
  return {
    get segment() {
      return segment;
    },
    append(record) {
      const payload = Buffer.from(JSON.stringify(record), "utf8");
      const head = Buffer.alloc(8);
      head.writeUInt32LE(payload.length, 0);
      head.writeInt32LE(CRC32.buf(payload), 4);
      // one write: a crash leaves a whole record or a torn tail readWal skips
      const buf = Buffer.concat([head, payload]);
      let written = 0;
      while (written < buf.length) written += writeSync(fd, buf, written);
      size += buf.length;
    },
    maybeRotate() {
      if (size < SEGMENT_BYTES) return segment;
      closeSync(fd);
      segment++;
      fd = openSync(join(dir, name(segment)), "a", 0o600);
      size = 0;
      return segment;
    },
    truncateBefore(keep) {
      for (const s of listSegments(dir)) if (s < keep && s !== segment) rmSync(join(dir, name(s)), { force: true });
    },
    segments: () => listSegments(dir),
    close() {
      closeSync(fd);
      // an empty segment carries nothing
      const path = join(dir, name(segment));
      if (existsSync(path) && statSync(path).size === 0) rmSync(path, { force: true });
    },
  };
}
