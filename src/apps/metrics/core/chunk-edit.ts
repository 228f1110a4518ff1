// Taking a time range of samples out of a series' chunks (delete_series): a
// chunk wholly inside the range goes; one partly inside is encoded again,
// through the XOR appender, from the samples outside it, bit for bit (stale
// markers included). A chunk held both in memory and in the database is
// edited by the same function from the same bytes, so both keep the same
// chunk (and a replay that edits it again makes the same bytes again).
import { type ClosedChunk, type HeadSeries, NO_CHUNKS, openSamples, releaseMirror, WORD_HI } from "./head.ts";
import { APPENDER_BYTES, decodeXorChunkBits, xorChunkSamples, XorAppender } from "./xor-chunk.ts";

/** what is left of a chunk */
export interface ChunkLeft {
  data: Uint8Array;
  minT: number;
  maxT: number;
  samples: number;
  /** samples taken out */
  removed: number;
}

/** samples and chunks an edit took out or changed */
export interface Removed {
  samples: number;
  chunks: number;
}

/** decoded samples of the chunk being edited (grown to the largest; editing is synchronous) */
let ts = new Float64Array(256);
let bits = new Uint32Array(512);

function room(n: number): void {
  if (ts.length >= n) return;
  let size = ts.length;
  while (size < n) size *= 2;
  ts = new Float64Array(size);
  bits = new Uint32Array(2 * size);
}

/**
 * the first `n` decoded samples (ts, bits) without those in [lo, hi], as a
 * new appender; undefined when none is in the range, null when all are
 */
function appendWithout(n: number, lo: number, hi: number): { appender: XorAppender; minT: number; maxT: number; removed: number } | null | undefined {
  let first = 0;
  while (first < n && ts[first]! < lo) first++;
  let end = first;
  while (end < n && ts[end]! <= hi) end++;
  const removed = end - first;
  if (removed === 0) return undefined;
  if (removed === n) return null;
  const appender = new XorAppender(APPENDER_BYTES);
  for (let k = 0; k < n; k++) {
    if (k === first) k = end;
    if (k >= n) break;
    appender.appendBits(ts[k]!, bits[2 * k + WORD_HI]!, bits[2 * k + 1 - WORD_HI]!);
  }
  return { appender, minT: first > 0 ? ts[0]! : ts[end]!, maxT: end < n ? ts[n - 1]! : ts[first - 1]!, removed };
}

/** what is left of an encoded chunk without its samples in [lo, hi]: undefined when it has none there, null when nothing is left */
export function chunkWithout(data: Uint8Array, lo: number, hi: number): ChunkLeft | null | undefined {
  const n = xorChunkSamples(data);
  room(n);
  decodeXorChunkBits(data, ts, bits, 0);
  const left = appendWithout(n, lo, hi);
  if (!left) return left;
  return { data: left.appender.bytes(), minT: left.minT, maxT: left.maxT, samples: n - left.removed, removed: left.removed };
}

/** a list of chunks without the samples in [lo, hi] (the same list when none was there) */
function listWithout(list: ClosedChunk[], lo: number, hi: number, out: Removed): ClosedChunk[] {
  let edited: ClosedChunk[] | undefined;
  for (let i = 0; i < list.length; i++) {
    const c = list[i]!;
    let next: ClosedChunk | null = c;
    if (c.maxT >= lo && c.minT <= hi) {
      const left = c.minT >= lo && c.maxT <= hi ? null : chunkWithout(c.data, lo, hi);
      if (left !== undefined) {
        out.chunks++;
        out.samples += left === null ? c.samples : left.removed;
        releaseMirror(c.mirror);
        next = left === null ? null : { minT: left.minT, maxT: left.maxT, samples: left.samples, data: left.data, mirror: undefined };
      }
    }
    if (next !== c && edited === undefined) edited = list.slice(0, i);
    if (edited !== undefined && next !== null) edited.push(next);
  }
  if (edited === undefined) return list;
  return edited.length > 0 ? edited : NO_CHUNKS;
}

/**
 * takes the samples in [lo, hi] out of what a series holds in memory: its
 * copies of written chunks, its closed chunks and its open chunk (what is
 * returned counts the last two: the copies are counted in the database). Its newest
 * sample time stays (a later sample must still come after it, as in
 * Prometheus's head until compaction); when that sample went, its value is
 * no longer known, so queries read what is left.
 */
export function deleteInMemory(s: HeadSeries, lo: number, hi: number): Removed {
  const out: Removed = { samples: 0, chunks: 0 };
  // copies of chunks in the database: counted there
  if (s.flushed.length > 0) s.flushed = listWithout(s.flushed, lo, hi, { samples: 0, chunks: 0 });
  if (s.closed.length > 0) s.closed = listWithout(s.closed, lo, hi, out);
  const n = openSamples(s);
  const open = s.open;
  if (open !== undefined && n > 0 && s.openMinT <= hi && open.lastTimestamp! >= lo) {
    room(n);
    open.decodeInto(ts, bits, 0);
    const left = appendWithout(n, lo, hi);
    if (left !== undefined) {
      out.chunks++;
      out.samples += left === null ? n : left.removed;
      releaseMirror(s.mirror);
      s.mirror = undefined;
      if (left !== null) {
        s.open = left.appender;
        s.openMinT = left.minT;
      } else if (s.active) open.reset();
      else s.open = undefined;
    }
  }
  if (hi >= s.lastT) s.lastKnown = false;
  return out;
}

/** whether a series holds no sample in memory */
export const emptyInMemory = (s: HeadSeries): boolean => openSamples(s) === 0 && s.closed.length === 0 && s.flushed.length === 0;
