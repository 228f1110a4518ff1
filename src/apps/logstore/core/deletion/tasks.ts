// The worker pool's side of processing a delete request (process.ts): a
// stored chunk is read and decoded, the entries the request matches are
// found, and when some but not all of them go, the kept entries are encoded
// again (chunk format 2) — all off the event loop. Only the new chunk's bytes
// and counts come back, never the deleted lines.
import { Buffer } from "node:buffer";
import type { TaskContext, TaskFn } from "../../../../lib/tasks.ts";
import { encodeChunk2, type ChunkInput } from "../chunk-format.ts";
import { decodeColumns, readSource, type ChunkSource } from "../columns.ts";
import { deleteTestOf, type DeleteInput } from "./query.ts";

export interface DeleteLinesInput {
  source: ChunkSource;
  /** the request (its query's text and range) */
  request: DeleteInput;
  /** the stream's labels */
  labels: Record<string, string>;
}

export interface DeleteLinesResult {
  /** the chunk's entries */
  count: number;
  /** entries the request deletes, and their size as the store counts it (UTF-16 units of the line plus its metadata's JSON) */
  removed: number;
  removedBytes: number;
  /** with some entries left: the chunk of those, encoded, and its time bounds */
  blob?: Uint8Array | undefined;
  from?: bigint | undefined;
  to?: bigint | undefined;
  /** the chunk failed its checks (ChunkCorruptError's message): nothing was done */
  corrupt?: string | undefined;
  /** the chunk's file is gone (retention or the disk cap removed it meanwhile) */
  missing?: boolean | undefined;
  /** the caller gave up: nothing was done */
  cancelled?: boolean | undefined;
}

/** lines between two looks at `ctx.cancelled()` */
const POLL_EVERY = 1024;

const nothing = (count: number): DeleteLinesResult => ({ count, removed: 0, removedBytes: 0 });

export function deleteLines(input: DeleteLinesInput, ctx: TaskContext): DeleteLinesResult {
  let bytes: Uint8Array;
  try {
    bytes = readSource(input.source);
  } catch (err) {
    if ((err as { code?: string }).code === "ENOENT") return { ...nothing(0), missing: true };
    throw err;
  }
  const c = decodeColumns(bytes);
  const { from, to } = input.request;
  const test = deleteTestOf([input.request], input.labels)!;
  const block = Buffer.from(c.lines.buffer, c.lines.byteOffset, c.lines.byteLength);
  const gone = new Uint8Array(c.count);
  let removed = 0;
  let removedBytes = 0;
  for (let i = 0; i < c.count; i++) {
    if (i % POLL_EVERY === POLL_EVERY - 1 && ctx.cancelled()) return { ...nothing(c.count), cancelled: true };
    const ts = c.ts[i]!;
    if (ts < from || ts > to) continue;
    // (its length counts for the chunk's size whatever the request's stages)
    const line = block.toString("utf8", c.offsets[i]!, c.offsets[i + 1]!);
    const metadata = c.metadata?.[i];
    if (!test(ts, line, metadata)) continue;
    gone[i] = 1;
    removed++;
    removedBytes += line.length + (metadata ? JSON.stringify(metadata).length : 0);
  }
  if (removed === 0 || removed === c.count) return { count: c.count, removed, removedBytes };
  const kept = keptColumns(c, gone, c.count - removed);
  return { count: c.count, removed, removedBytes, blob: encodeChunk2(kept), from: kept.ts[0]!, to: kept.ts[kept.count - 1]! };
}

/** the entries not marked gone, as the encoder's input (in their order: time order) */
function keptColumns(c: ChunkInput, gone: Uint8Array, count: number): ChunkInput {
  const ts = new BigInt64Array(count);
  const offsets = new Uint32Array(count + 1);
  let size = 0;
  for (let i = 0; i < c.count; i++) if (!gone[i]) size += c.offsets[i + 1]! - c.offsets[i]!;
  const lines = new Uint8Array(size);
  let metadata: Array<Record<string, string> | undefined> | undefined;
  let k = 0;
  let at = 0;
  for (let i = 0; i < c.count; i++) {
    if (gone[i]) continue;
    ts[k] = c.ts[i]!;
    lines.set(c.lines.subarray(c.offsets[i]!, c.offsets[i + 1]!), at);
    at += c.offsets[i + 1]! - c.offsets[i]!;
    offsets[k + 1] = at;
    const m = c.metadata?.[i];
    if (m) (metadata ??= new Array<Record<string, string> | undefined>(count).fill(undefined))[k] = m;
    k++;
  }
  return { count, ts, offsets, lines, metadata };
}

export const deletionTasks: Record<string, TaskFn> = {
  /** several chunks of one stream against one request, in the order given; a corrupt chunk is answered as such, the others done */
  deleteLines: (inputs: DeleteLinesInput[], ctx) => {
    const results = inputs.map((input): DeleteLinesResult => {
      if (ctx.cancelled()) return { ...nothing(0), cancelled: true };
      try {
        return deleteLines(input, ctx);
      } catch (err) {
        if (err instanceof Error && err.name === "ChunkCorruptError") return { ...nothing(0), corrupt: err.message };
        throw err;
      }
    });
    return { result: results, transfer: results.flatMap((r) => (r.blob ? [r.blob.buffer as ArrayBuffer] : [])) };
  },
};
