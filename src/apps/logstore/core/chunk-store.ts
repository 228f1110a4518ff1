// Where chunk bytes live. A small interface so that another store (an
// S3-compatible bucket) can sit behind it later. The file store appends chunks
// to numbered segment files under the log store's data dir
// (chunks/00000001.seg ...), rotated at ~256 MB; `put` resolves once the bytes
// are fsynced, so the metadata rows naming them may then be committed. A
// segment is removed once none of its chunks is live (retention deleted them:
// after a grace period for queries still reading it, or at close; written but
// never committed, a crash between the two: at the next start).
// Without a data dir (storage.in_memory) the store keeps format 2 chunks in
// the `data` column of their (in-memory) metadata rows instead.
import { closeSync, existsSync, fdatasync, mkdirSync, openSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ChunkSource } from "./columns.ts";
import { writeAllSync } from "../../../lib/write-all.ts";
import { pinCounter } from "../../../lib/backup-pin.ts";

/** a chunk's place in a segment file */
export interface ChunkLocation {
  segment: number;
  offset: number;
  length: number;
}

export interface ChunkStore {
  /** writes the chunks and makes them durable; resolves with where each one is, in order */
  put(blobs: Uint8Array[]): Promise<ChunkLocation[]>;
  /** where a task reads the chunk from */
  source(at: ChunkLocation): ChunkSource;
  /** a stored chunk is now live (its metadata row is committed) */
  commit(at: ChunkLocation): void;
  /** a live chunk was deleted; a segment left with none is removed */
  delete(at: ChunkLocation): void;
  /** no segment file is removed until the returned release is called (a backup is copying them) */
  pin(): () => void;
  /** bytes of segment files without live chunks, removed once their grace period ends */
  pendingUnlinkBytes(): number;
  /** the next chunks go to a new segment (a compaction's copies must not land in the file they leave) */
  rotate(): Promise<void>;
  close(): Promise<void>;
}

export const SEGMENT_BYTES = 256 * 1024 * 1024;
/** how long a segment without live chunks stays for queries still reading it (longer than a query's default timeout) */
export const UNLINK_GRACE_MS = 5 * 60_000;
const segName = (n: number) => `${String(n).padStart(8, "0")}.seg`;

function listSegments(dir: string): number[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => /^\d{8}\.seg$/.test(f))
    .map((f) => Number(f.slice(0, 8)))
    .sort((a, b) => a - b);
}

/**
 * Opens the segment files in `dir`. `live` counts the committed chunks of
 * each segment (from the metadata rows); a segment file holding none is
 * removed now. New chunks go to a new segment, never after an old tail.
 */
export function openFileChunkStore(dir: string, live: Map<number, number>, segmentBytes = SEGMENT_BYTES): ChunkStore {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const existing = listSegments(dir);
  const counts = new Map<number, number>();
  for (const seg of existing) {
    const n = live.get(seg) ?? 0;
    if (n > 0) counts.set(seg, n);
    else rmSync(join(dir, segName(seg)), { force: true });
  }
  let segment = Math.max(existing.at(-1) ?? 0, ...live.keys()) + 1;
  let fd: number | undefined;
  let size = 0;
  // a segment left without live chunks is removed after a grace period: a query that listed one
  // of its chunks before the delete may still be reading it (from a worker, by path)
  const doomed = new Map<number, ReturnType<typeof setTimeout>>();
  /** the doomed segments' sizes */
  const doomedBytes = new Map<number, number>();
  const pins = pinCounter();
  const unlink = (seg: number): void => {
    // a backup copying the segment files keeps them until it is done (lib/backup-pin.ts)
    if (pins.pinned()) return pins.whenFree(() => unlink(seg));
    doomed.delete(seg);
    doomedBytes.delete(seg);
    if ((counts.get(seg) ?? 0) > 0) return;
    counts.delete(seg);
    rmSync(join(dir, segName(seg)), { force: true });
  };
  const drop = (seg: number) => {
    if (seg === segment || (counts.get(seg) ?? 0) > 0 || doomed.has(seg)) return;
    const timer = setTimeout(() => unlink(seg), UNLINK_GRACE_MS);
    (timer as { unref?: () => void }).unref?.();
    doomed.set(seg, timer);
    try {
      doomedBytes.set(seg, statSync(join(dir, segName(seg))).size);
    } catch {
      // already gone
    }
  };
  let writing: Promise<unknown> = Promise.resolve();
  /** the next chunks go to a new segment; the one left goes once it holds no live chunk */
  const nextSegment = () => {
    if (fd === undefined) return;
    closeSync(fd);
    fd = undefined;
    const old = segment;
    segment++;
    size = 0;
    drop(old);
  };
  const put = async (blobs: Uint8Array[]): Promise<ChunkLocation[]> => {
    if (size >= segmentBytes) nextSegment();
    fd ??= openSync(join(dir, segName(segment)), "a", 0o600);
    const out: ChunkLocation[] = [];
    for (const blob of blobs) {
      out.push({ segment, offset: size, length: blob.length });
      size += blob.length;
    }
    // One write for the lot (a writev: the blobs are not joined first), into the page cache (a few ms for a group's compressed bytes), then
    // one fdatasync on the thread pool: under a stream of pushes each await is a long turn of the
    // event loop, and a write, a sync and an open each awaited held a group's store at ~0.5 s.
    writeAllSync(fd, blobs);
    const file = fd;
    await new Promise<void>((resolve, reject) => fdatasync(file, (err) => (err ? reject(err) : resolve())));
    return out;
  };
  return {
    put(blobs) {
      // one writer at a time: offsets follow the file's end
      const p = writing.then(() =>
        put(blobs).catch((err: unknown) => {
          // the file's end is unknown now: the next chunks go to a new segment
          size = segmentBytes;
          throw err;
        }),
      );
      writing = p.catch(() => undefined);
      return p;
    },
    rotate() {
      // after the writes under way: a write still syncing holds the descriptor
      const p = writing.then(nextSegment);
      writing = p.catch(() => undefined);
      return p;
    },
    source: (at) => ({ kind: "file", path: join(dir, segName(at.segment)), offset: at.offset, length: at.length }),
    pendingUnlinkBytes: () => {
      let n = 0;
      for (const b of doomedBytes.values()) n += b;
      return n;
    },
    pin: () => pins.hold(),
    commit(at) {
      counts.set(at.segment, (counts.get(at.segment) ?? 0) + 1);
    },
    delete(at) {
      const n = (counts.get(at.segment) ?? 0) - 1;
      if (n > 0) counts.set(at.segment, n);
      else {
        counts.set(at.segment, 0);
        drop(at.segment);
        // the segment being appended to has no live chunk left (retention, the disk cap): the next
        // chunks go to a new one, so this one can leave the disk (after the writes under way)
        if (at.segment === segment) {
          writing = writing.then(() => {
            if (at.segment === segment && !counts.get(segment)) nextSegment();
          });
        }
      }
    },
    async close() {
      await writing;
      for (const [seg, timer] of doomed) {
        clearTimeout(timer);
        unlink(seg);
      }
      if (fd !== undefined) closeSync(fd);
      fd = undefined;
      // a segment whose chunks never became live (or an empty one) is not kept
      if (!counts.get(segment)) rmSync(join(dir, segName(segment)), { force: true });
    },
  };
}
