// Large pushes decoded off the event loop. Inflating, parsing (JSON or
// protobuf) and checking a ~1 MB push body took about a third of the event
// loop's time under full-speed ingest (issue 18); a worker of the ingest
// decoder (server.ts: a pool of its own, so a push never queues behind a
// query's tasks) does it and sends the streams back packed: per stream its
// lines joined in one string, their ends, their UTF-8 sizes and their
// timestamps as typed arrays (moved, not copied). The event loop then only
// cuts the lines out (substrings share the joined string) and stores them.
// Small bodies, and any body when no worker can run it, are decoded here as
// before; both paths give the same streams and the same errors.
import { ApiError } from "../../../lib/errors.ts";
import type { TaskFn, TaskRunner } from "../../../lib/tasks.ts";
import { memoryPacer } from "../../../platform/memory.ts";
import { batchOf, type HeadBatch } from "./head.ts";
import { decodePush, decodePushSync, type PushEntry, type PushStream } from "./push-decode.ts";

/** bodies from this size up are decoded on a worker (below it, the round trip costs more than the parse) */
export const OFF_THREAD_BYTES = 64 * 1024;

interface PackedStream {
  labels: Record<string, string>;
  text: string;
  /** the stream's entries: lines joined, ends, UTF-8 sizes, timestamps (head.ts) */
  batch: HeadBatch;
}

export interface DecodePushInput {
  body: Uint8Array;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  maxBytes: number;
}

/** the streams, or the refusal the event loop answers with (status and message as decodePush throws them) */
type Decoded = { streams: PackedStream[] } | { error: { status: number; message: string } };

function pack(streams: PushStream[]): PackedStream[] {
  return streams.map((s) => ({ labels: s.labels, text: s.text, batch: batchOf(s.entries) }));
}

function unpack(packed: PackedStream[]): PushStream[] {
  return packed.map((p) => {
    const { text: lines, ends, sizes, ts, metadata } = p.batch;
    const n = ts.length;
    const entries = new Array<PushEntry>(n);
    let start = 0;
    for (let i = 0; i < n; i++) {
      const end = ends[i]!;
      const entry: PushEntry = { ts: ts[i]!, line: lines.slice(start, end), size: sizes[i]! };
      const m = metadata?.[i];
      if (m) entry.metadata = m;
      entries[i] = entry;
      start = end;
    }
    return { labels: p.labels, text: p.text, entries, packed: p.batch };
  });
}

/** a decoding worker's garbage (each body parsed) given back as on the event loop (routes/push.ts) */
const release = memoryPacer(32 * 1024 * 1024, 250);

export const pushTasks: Record<string, TaskFn> = {
  decodePush(input: DecodePushInput) {
    release(input.body.length);
    let streams: PackedStream[];
    try {
      streams = pack(decodePushSync(input.body, input.contentType, input.contentEncoding, input.maxBytes));
    } catch (err) {
      if (err instanceof ApiError) return { result: { error: { status: err.status, message: err.message } } satisfies Decoded };
      throw err;
    }
    return { result: { streams } satisfies Decoded, transfer: streams.flatMap((s) => [s.batch.ends.buffer, s.batch.sizes.buffer, s.batch.ts.buffer] as ArrayBuffer[]) };
  },
};

/**
 * decodePush, on a worker of `decoder` when the body is large and the decoder
 * has workers; here otherwise, and when the worker fails (it ended: the body
 * was copied to it, so it is decoded here instead).
 */
export async function decodePushOn(decoder: TaskRunner | undefined, input: DecodePushInput): Promise<PushStream[]> {
  const here = () => decodePush(input.body, input.contentType, input.contentEncoding, input.maxBytes);
  if (!decoder || decoder.inline || input.body.length < OFF_THREAD_BYTES) return here();
  let decoded: Decoded;
  try {
    decoded = await decoder.run<Decoded>("decodePush", input);
  } catch {
    return here();
  }
  if ("error" in decoded) throw new ApiError(decoded.error.status, decoded.error.message);
  return unpack(decoded.streams);
}
