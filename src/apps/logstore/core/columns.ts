// A chunk read as columns: what the query tasks (scan-tasks.ts, run in the
// worker pool) work on. Lines stay UTF-8 bytes in one block until a filter has
// kept them; timestamps are a typed array. `decodeColumns` reads every chunk
// format the store has written (format 1: gzip JSON rows in PGlite; format 2: columns, chunk-format.ts).
import { readSync, openSync, closeSync } from "node:fs";
import { bloomMayContain, bloomSection, CHUNK_HEADER_BYTES, ChunkCorruptError, chunkMayContain, decodeChunk2, isFormat2 } from "./chunk-format.ts";
import { decodeChunk, type Entry } from "./chunks.ts";

export { ChunkCorruptError, chunkMayContain } from "./chunk-format.ts";

export interface ChunkColumns {
  count: number;
  /** exact timestamps (ns since the epoch), oldest first; equal timestamps in write order */
  ts: BigInt64Array;
  /** entry i's line is lines.subarray(offsets[i], offsets[i + 1]) (UTF-8); offsets has count + 1 items */
  offsets: Uint32Array;
  /** the line bytes; empty when the caller asked for timestamps and sizes only */
  lines: Uint8Array;
  /** structured metadata per entry, when any entry has some */
  metadata?: Array<Record<string, string> | undefined> | undefined;
}

/** where a stored chunk's bytes are: a range of a file (read by the worker itself) or the bytes themselves */
export type ChunkSource =
  | { kind: "file"; path: string; offset: number; length: number }
  | { kind: "bytes"; bytes: Uint8Array }
  /** a chunk not yet encoded: its columns as they are (copied to the worker) */
  | { kind: "columns"; columns: ChunkColumns };

export interface DecodeOptions {
  /** false: only timestamps and line sizes are needed (metric queries without line stages) */
  lines?: boolean;
}

const encoder = new TextEncoder();

/** the buffers a task may take over (moved to its worker, not copied): a copy of columns the query holds alone */
export function movableBuffers(sources: readonly ChunkSource[]): ArrayBuffer[] {
  return sources.flatMap((s) => (s.kind === "columns" ? [s.columns.ts.buffer, s.columns.offsets.buffer, s.columns.lines.buffer] as ArrayBuffer[] : []));
}

/** a chunk's bytes, read synchronously (a worker thread may block) */
export function readSource(src: ChunkSource): Uint8Array {
  if (src.kind === "columns") throw new Error("a chunk not yet encoded has no bytes to read");
  return src.kind === "bytes" ? src.bytes : readRange(src.path, src.offset, src.length);
}

function readRange(path: string, offset: number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  const fd = openSync(path, "r");
  try {
    let done = 0;
    while (done < length) {
      const n = readSync(fd, out, done, length - done, offset + done);
      if (n === 0) throw new ChunkCorruptError(`chunk file ${path} ends before ${offset + length}`);
      done += n;
    }
  } finally {
    closeSync(fd);
  }
  return out;
}

/**
 * chunkMayContain for a chunk where it is: from a file, reads only the
 * header and the bloom (a few percent of the chunk). True when in doubt
 * (format 1, no bloom, a read that fails: the decode reports it).
 */
export function sourceMayContain(src: ChunkSource, literals: string[]): boolean {
  if (src.kind === "columns") return true;
  if (src.kind === "bytes") return chunkMayContain(src.bytes, literals);
  try {
    const at = bloomSection(readRange(src.path, src.offset, Math.min(CHUNK_HEADER_BYTES, src.length)), src.length);
    return at ? bloomMayContain(readRange(src.path, src.offset + at[0], at[1] - at[0]), literals) : true;
  } catch {
    return true;
  }
}

/** the columns of a chunk in any stored format */
export function decodeColumns(data: Uint8Array, options: DecodeOptions = {}): ChunkColumns {
  // format 2 (chunk-format.ts): columns; throws ChunkCorruptError when its checks fail
  if (isFormat2(data)) return decodeChunk2(data, options);
  // format 1: gzip (1f 8b) of JSON rows [ts, line, metadata?]
  if (data[0] !== 0x1f || data[1] !== 0x8b) throw new ChunkCorruptError("chunk has a bad magic");
  let entries: Entry[];
  try {
    entries = decodeChunk(data);
  } catch (err) {
    throw new ChunkCorruptError(`format 1 chunk does not decode: ${String(err)}`);
  }
  const count = entries.length;
  const ts = new BigInt64Array(count);
  const offsets = new Uint32Array(count + 1);
  const parts: Uint8Array[] = [];
  let size = 0;
  let metadata: Array<Record<string, string> | undefined> | undefined;
  entries.forEach((e, i) => {
    ts[i] = e.ts;
    const bytes = encoder.encode(e.line);
    parts.push(bytes);
    size += bytes.length;
    offsets[i + 1] = size;
    if (e.metadata) (metadata ??= new Array(count).fill(undefined))[i] = e.metadata;
  });
  let lines = new Uint8Array(0);
  if (options.lines !== false) {
    lines = new Uint8Array(size);
    let at = 0;
    for (const p of parts) {
      lines.set(p, at);
      at += p.length;
    }
  }
  return { count, ts, offsets, lines, metadata };
}
