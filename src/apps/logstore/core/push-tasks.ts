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
import { WorkerDiedError } from "../../../lib/worker-pool.ts";
import { memoryPacer } from "../../../platform/memory.ts";
import { batchOf, type HeadBatch } from "./head.ts";
import { decodeContent, decodePush, decodePushSync, type PushEntry, type PushStream } from "./push-decode.ts";
import { decodeOtlpLogs, decodeOtlpLogsSync, type DecodeOtlpLogsInput, type OtlpLogs } from "./otlp-logs.ts";

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

/** a task's answer: what the decoder returned, or the refusal as it threw it */
function settled<T extends object>(decode: () => T, transfer: (t: T) => ArrayBuffer[]): { result: T | { error: { status: number; message: string } }; transfer?: ArrayBuffer[] } {
  let out: T;
  try {
    out = decode();
  } catch (err) {
    if (err instanceof ApiError) return { result: { error: { status: err.status, message: err.message } } };
    throw err;
  }
  return { result: out, transfer: transfer(out) };
}

const buffersOf = (streams: PackedStream[]) => streams.flatMap((s) => [s.batch.ends.buffer, s.batch.sizes.buffer, s.batch.ts.buffer] as ArrayBuffer[]);

type PackedOtlp = Omit<OtlpLogs, "streams"> & { streams: PackedStream[] };

export const pushTasks: Record<string, TaskFn> = {
  decodePush(input: DecodePushInput) {
    release(input.body.length);
    return settled(() => ({ streams: pack(decodePushSync(input.body, input.contentType, input.contentEncoding, input.maxBytes)) }), (d) => buffersOf(d.streams));
  },
  decodeOtlpLogs(input: DecodeOtlpLogsInput) {
    release(input.body.length);
    return settled((): PackedOtlp => {
      const logs = decodeOtlpLogsSync(input);
      return { ...logs, streams: pack(logs.streams) };
    }, (d) => buffersOf(d.streams));
  },
};

/**
 * `task` on a worker of `decoder` when the body is large and the decoder has workers; `here`
 * otherwise, and when no worker could take the task (the pool closing). A worker that died running
 * it is a 503: the body may be what killed it, and decoding it here could take the process down.
 * A refusal the worker answered is thrown as it was.
 */
async function decodeOn<T extends object, P extends object>(decoder: TaskRunner | undefined, task: string, input: { body: Uint8Array }, here: () => Promise<T>, unpacked: (p: P) => T): Promise<T> {
  if (!decoder || decoder.inline || input.body.length < OFF_THREAD_BYTES) return here();
  let decoded: P | { error: { status: number; message: string } };
  try {
    decoded = await decoder.run<P | { error: { status: number; message: string } }>(task, input);
  } catch (err) {
    // the worker died on this body (out of memory, say): decoding it here could take the whole process down
    if (err instanceof WorkerDiedError) throw new ApiError(503, "the decoder ended while decoding this request; it was not stored", { headers: { "Retry-After": "5" } });
    return here();
  }
  if ("error" in decoded) throw new ApiError(decoded.error.status, decoded.error.message);
  return unpacked(decoded);
}

/** decodePush, on a worker for large bodies (decodeOn) */
export function decodePushOn(decoder: TaskRunner | undefined, input: DecodePushInput): Promise<PushStream[]> {
  return decodeOn<PushStream[], { streams: PackedStream[] }>(
    decoder, "decodePush", input,
    () => decodePush(input.body, input.contentType, input.contentEncoding, input.maxBytes),
    (d) => unpack(d.streams),
  );
}

/**
 * an OTLP logs body as streams, on a worker for large bodies (decodeOn); a small compressed body is
 * inflated first (off the event loop: node:zlib's asynchronous form), as it may inflate a thousandfold,
 * and then decoded on a worker when it grew large
 */
export async function decodeOtlpLogsOn(decoder: TaskRunner | undefined, input: DecodeOtlpLogsInput): Promise<OtlpLogs> {
  let onWorker = input;
  const encoding = (input.contentEncoding ?? "").trim().toLowerCase();
  if (decoder && !decoder.inline && input.body.length < OFF_THREAD_BYTES && (encoding === "gzip" || encoding === "deflate")) {
    onWorker = { ...input, body: await decodeContent(input.body, input.contentEncoding, input.maxBytes), contentEncoding: "" };
  }
  return decodeOn<OtlpLogs, PackedOtlp>(decoder, "decodeOtlpLogs", onWorker, () => decodeOtlpLogs(onWorker), (d) => ({ ...d, streams: unpack(d.streams) }));
}
