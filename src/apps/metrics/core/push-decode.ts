// Remote-write pushes decoded off the event loop (issue 19): inflating a
// snappy body and walking its protobuf were half of the event loop's time
// under full-speed ingest. A worker of the ingest decoder (server.ts: one of
// its own, shared with the log store's pushes) does both and sends the
// request back packed: the protobuf bytes, and per series the hash of its
// label fields' bytes, where those fields are, and its samples as typed
// arrays (all moved, not copied). The event loop then decodes the labels of
// the series its head does not know by their bytes, and nothing else.
// Small bodies, and any body when no worker can take it (the pool closing),
// are decoded here; both paths give the same request and the same errors. A
// body whose worker died decoding it is not decoded again here (workerDied).
import { ApiError } from "../../../lib/errors.ts";
import type { TaskFn, TaskRunner } from "../../../lib/tasks.ts";
import { WorkerDiedError } from "../../../lib/worker-pool.ts";
import { memoryPacer } from "../../../platform/memory.ts";
import { decodeWriteRequest, labelsFrom, uncompressBody, walkWriteRequest, type Sample, type WriteRequest, type WriteSeries } from "./remote-write.ts";

/** bodies from this size up are decoded on a worker (below it, the round trip costs more than the walk) */
export const OFF_THREAD_BYTES = 16 * 1024;

/** a WriteRequest as numbers, over its protobuf bytes */
export interface PackedWrite {
  raw: Uint8Array;
  keys: Float64Array;
  checks: Uint32Array;
  /** series i's label fields are ranges[rangeEnd[i-1] .. rangeEnd[i]) ([start, end) pairs into raw) */
  rangeEnd: Uint32Array;
  ranges: Uint32Array;
  /** series i's samples are [sampleEnd[i-1], sampleEnd[i]) of ts, values and stale */
  sampleEnd: Uint32Array;
  ts: Float64Array;
  values: Float64Array;
  stale: Uint8Array;
  exemplars: Uint32Array;
  histograms: Uint32Array;
  metadata: WriteRequest["metadata"];
}

/** a typed array twice as long with the same first `n` items */
function grown<T extends Float64Array | Uint32Array | Uint8Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a.subarray(0, n));
  return b;
}

/** the request of an uncompressed body, packed (throws on malformed protobuf); written straight into typed arrays grown as needed */
export function packWriteRequest(raw: Uint8Array): PackedWrite {
  // a series takes ~100 bytes of a body, a sample ~20: first guesses, doubled when short
  let seriesCap = Math.max(16, raw.length >> 6);
  let keys = new Float64Array(seriesCap);
  let checks = new Uint32Array(seriesCap);
  let rangeEnd = new Uint32Array(seriesCap);
  let sampleEnd = new Uint32Array(seriesCap);
  let exemplars = new Uint32Array(seriesCap);
  let histograms = new Uint32Array(seriesCap);
  let ranges = new Uint32Array(seriesCap * 8);
  let sampleCap = seriesCap;
  let ts = new Float64Array(sampleCap);
  let values = new Float64Array(sampleCap);
  let stale = new Uint8Array(sampleCap);
  let n = 0;
  let nRanges = 0;
  let nSamples = 0;
  const metadata: WriteRequest["metadata"] = [];
  walkWriteRequest<number>(raw, {
    series(key, check, labelRanges, ex, hist) {
      if (n > 0) sampleEnd[n - 1] = nSamples;
      if (n === seriesCap) {
        keys = grown(keys, n);
        checks = grown(checks, n);
        rangeEnd = grown(rangeEnd, n);
        sampleEnd = grown(sampleEnd, n);
        exemplars = grown(exemplars, n);
        histograms = grown(histograms, n);
        seriesCap *= 2;
      }
      while (nRanges + labelRanges.length > ranges.length) ranges = grown(ranges, nRanges);
      for (let i = 0; i < labelRanges.length; i++) ranges[nRanges++] = labelRanges[i]!;
      keys[n] = key;
      checks[n] = check;
      rangeEnd[n] = nRanges;
      exemplars[n] = ex;
      histograms[n] = hist;
      n++;
      return 0;
    },
    sample(_s, t, v, isStale) {
      if (nSamples === sampleCap) {
        ts = grown(ts, nSamples);
        values = grown(values, nSamples);
        stale = grown(stale, nSamples);
        sampleCap *= 2;
      }
      ts[nSamples] = t;
      values[nSamples] = v;
      stale[nSamples] = isStale ? 1 : 0;
      nSamples++;
    },
    metadata: (m) => metadata.push(m),
  });
  if (n > 0) sampleEnd[n - 1] = nSamples;
  return {
    raw,
    keys: keys.subarray(0, n),
    checks: checks.subarray(0, n),
    rangeEnd: rangeEnd.subarray(0, n),
    ranges: ranges.subarray(0, nRanges),
    sampleEnd: sampleEnd.subarray(0, n),
    ts: ts.subarray(0, nSamples),
    values: values.subarray(0, nSamples),
    stale: stale.subarray(0, nSamples),
    exemplars: exemplars.subarray(0, n),
    histograms: histograms.subarray(0, n),
    metadata,
  };
}

const NO_LABELS: WriteSeries["labels"] = [];

/** the request again; the labels of the series `known` knows by their bytes are not decoded (as decodeWriteRequest) */
export function unpackWriteRequest(p: PackedWrite, known?: (rawKey: number, check: number) => boolean): WriteRequest {
  const n = p.keys.length;
  const timeseries = new Array<WriteSeries>(n);
  let rangeAt = 0;
  let sampleAt = 0;
  for (let i = 0; i < n; i++) {
    const rawKey = p.keys[i]!;
    const rawCheck = p.checks[i]!;
    const rangeTo = p.rangeEnd[i]!;
    const sampleTo = p.sampleEnd[i]!;
    const skip = known?.(rawKey, rawCheck) === true;
    const labels = skip ? NO_LABELS : labelsFrom(p.raw, p.ranges, rangeAt, rangeTo);
    const samples = new Array<Sample>(sampleTo - sampleAt);
    for (let k = sampleAt; k < sampleTo; k++) {
      samples[k - sampleAt] = p.stale[k] === 1 ? { value: p.values[k]!, timestampMs: p.ts[k]!, stale: true } : { value: p.values[k]!, timestampMs: p.ts[k]! };
    }
    timeseries[i] = { labels, rawKey, rawCheck, labelsSkipped: skip, samples, exemplars: p.exemplars[i]!, histograms: p.histograms[i]! };
    rangeAt = rangeTo;
    sampleAt = sampleTo;
  }
  return { timeseries, metadata: p.metadata };
}

interface DecodeWriteInput {
  body: Uint8Array;
  maxBytes: number;
}

/** the packed request, a refusal to answer with, or `walk: false` (decodeWriteRequest words the problem) */
type Decoded = { packed: PackedWrite } | { error: { status: number; message: string } } | { walk: false };

/** a decoding worker's garbage given back as on the event loop */
const release = memoryPacer(32 * 1024 * 1024, 250);

export const metricsPushTasks: Record<string, TaskFn> = {
  decodeWrite(input: DecodeWriteInput) {
    release(input.body.length * 4);
    let raw: Uint8Array;
    try {
      raw = uncompressBody(input.body, input.maxBytes);
    } catch (err) {
      if (err instanceof ApiError) return { result: { error: { status: err.status, message: err.message } } satisfies Decoded };
      throw err;
    }
    let packed: PackedWrite;
    try {
      packed = packWriteRequest(raw);
    } catch {
      return { result: { walk: false } satisfies Decoded };
    }
    const p = packed;
    const transfer = [p.raw, p.keys, p.checks, p.rangeEnd, p.ranges, p.sampleEnd, p.ts, p.values, p.stale, p.exemplars, p.histograms].map((a) => a.buffer as ArrayBuffer);
    return { result: { packed } satisfies Decoded, transfer: [...new Set(transfer)] };
  },
};

/**
 * The answer to a push whose decoding worker died on it (WorkerDiedError): the body may be what killed
 * it, so it is not decoded again on the event loop, where it could take the process down. 413 when the
 * worker ran out of memory (the body asks for more than the decoder has: sending it again will not
 * help), else 503 as the log store's decoder answers; nothing was stored either way.
 */
export function workerDied(err: WorkerDiedError): ApiError {
  const cause = err.cause as { code?: unknown } | undefined;
  if (cause?.code === "ERR_WORKER_OUT_OF_MEMORY") return new ApiError(413, "decoding this request needs more memory than the decoder has; it was not stored");
  return new ApiError(503, "the decoder ended while decoding this request; it was not stored", { headers: { "Retry-After": "5" } });
}

/** a push decoded: packed by a worker (unpackWriteRequest makes the request), or the request itself */
export type DecodedWrite = { packed: PackedWrite } | { request: WriteRequest };

/**
 * A push body's WriteRequest: decoded on a worker of `decoder` when the
 * body is large and the decoder has workers (and left packed), here
 * otherwise (and when no worker could take it, or the worker cannot walk the
 * body: decodeWriteRequest words the error); a worker that died on it is
 * workerDied()'s answer. `known` is asked here.
 */
export async function decodeWriteOn(decoder: TaskRunner | undefined, body: Uint8Array, maxBytes: number, known?: (rawKey: number, check: number) => boolean): Promise<DecodedWrite> {
  const here = () => ({ request: decodeWriteRequest(uncompressBody(body, maxBytes), known) });
  if (!decoder || decoder.inline || body.length < OFF_THREAD_BYTES) return here();
  let decoded: Decoded;
  try {
    // the body is copied to the worker: the event loop keeps it for the write-ahead log
    decoded = await decoder.run<Decoded>("decodeWrite", { body, maxBytes } satisfies DecodeWriteInput);
  } catch (err) {
    if (err instanceof WorkerDiedError) throw workerDied(err);
    return here();
  }
  if ("error" in decoded) throw new ApiError(decoded.error.status, decoded.error.message);
  if ("walk" in decoded) return here();
  return { packed: decoded.packed };
}
