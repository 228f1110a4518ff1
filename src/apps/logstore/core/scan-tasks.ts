// The log store's tasks for the worker pool (lib/tasks.ts): decoding and
// scanning chunks for queries, encoding chunks for the write path.
import type { TaskFn } from "../../../lib/tasks.ts";
import { encodeChunk2, type ChunkInput } from "./chunk-format.ts";

export const logTasks: Record<string, TaskFn> = {
  /** a cut head's columns (ChunkInput) to a format 2 chunk; the chunk's buffer is moved back */
  encodeChunk(input: ChunkInput) {
    const blob = encodeChunk2(input);
    return { result: blob, transfer: [blob.buffer as ArrayBuffer] };
  },
};
