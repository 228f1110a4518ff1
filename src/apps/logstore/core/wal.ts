// The write-ahead log of the log store: every accepted push is appended as a
// JSON record (see lib/segment-wal.ts for the file format) before it is
// acknowledged, so entries still in memory heads survive a crash.
import { openSegmentWal, readSegments, type SegmentWal } from "../../../lib/segment-wal.ts";

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

export interface Wal extends Omit<SegmentWal, "append"> {
  append(record: WalRecord): void;
}

const decoder = new TextDecoder();

/** every intact record on disk, in order */
export function readWal(dir: string): WalRecord[] {
  return readSegments(dir).map((payload) => JSON.parse(decoder.decode(payload)) as WalRecord);
}

export function openWal(dir: string): Wal {
  const wal = openSegmentWal(dir);
  return {
    get segment() {
      return wal.segment;
    },
    append: (record) => wal.append(Buffer.from(JSON.stringify(record), "utf8")),
    maybeRotate: () => wal.maybeRotate(),
    truncateBefore: (segment) => wal.truncateBefore(segment),
    segments: () => wal.segments(),
    close: () => wal.close(),
    clear: () => wal.clear(),
  };
}
