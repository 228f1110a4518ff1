// An OTLP metrics push body as the series to ingest: inflated (gzip,
// deflate) with the decoded size capped at max_recv_msg_size, its decoded
// items charged against the same limit before anything is built
// (lib/decoded-budget.ts, as remote write's and the log push's), decoded
// (protobuf or JSON) and translated (otlp-translate.ts), whose series are
// charged too. A large body is decoded on a worker of the ingest decoder
// (server.ts), as remote write's is (push-decode.ts): the worker translates,
// encodes the series as a remote-write request and packs it, so the event
// loop stores it through remote write's own path (ingestPacked, or ingest
// with the labels of known series left undecoded); the snappy form is what
// the write-ahead log keeps. Small bodies are decoded here, and any body when
// no worker could take it (the pool closing). A body whose worker died
// translating it is not translated again here, where it could take the
// process down: 413 when the worker ran out of memory, else 503.
import snappy from "snappyjs";
import { decodeContent, decodeContentSync } from "../../../lib/content-encoding.ts";
import { ApiError } from "../../../lib/errors.ts";
import { decodeOtlp, type OtlpEncoding } from "../../../lib/otlp/http.ts";
import type { TaskFn, TaskRunner } from "../../../lib/tasks.ts";
import { WorkerDiedError } from "../../../lib/worker-pool.ts";
import { OtlpTooLarge, translateMetrics, type OtlpSettings, type OtlpTranslation } from "./otlp-translate.ts";
import { OFF_THREAD_BYTES, packWriteRequest, workerDied, type PackedWrite } from "./push-decode.ts";
import { encodeWriteRequestBytes, type WriteRequest } from "./remote-write.ts";

export interface OtlpDecodeInput {
  body: Uint8Array;
  /** the Content-Encoding header (checked already: empty, identity, gzip or deflate) */
  contentEncoding: string | undefined;
  encoding: OtlpEncoding;
  /** max_recv_msg_size */
  maxBytes: number;
  settings: OtlpSettings;
}

/** what a push carried besides its series: for the answer and the statistics */
export interface OtlpCounts {
  dataPoints: number;
  dropped: number;
  errors: string;
  /** per series, the index of the data point it was made of (-1: target_info), as OtlpTranslation's */
  seriesPoints: ArrayLike<number>;
}

/** a push decoded: packed by a worker (with the write-ahead log's record), or the request itself */
export type DecodedOtlp = OtlpCounts & ({ packed: PackedWrite; wal: Uint8Array } | { request: WriteRequest });

/**
 * Mimir's answer to an OTLP request over -distributor.max-otlp-request-size
 * (here max_recv_msg_size): 413, with the size when it is known
 */
export function otlpTooLarge(limit: number, size?: number, compressed = false): ApiError {
  const of = size === undefined ? "" : ` of ${size} bytes (${compressed ? "compressed" : "uncompressed"})`;
  return new ApiError(
    413,
    `the incoming OTLP request has been rejected because its message size${of} is larger than the allowed limit of ${limit} bytes (err-mimir-distributor-max-otlp-request-size). To adjust the related limit, configure -distributor.max-otlp-request-size, or contact your service administrator.`,
  );
}

/**
 * An inflated body's series: decoded (decodeOtlp charges a protobuf or JSON
 * body's items before it is decoded) and translated
 * (its series charged on top of the body's bytes); 400 naming what was
 * wrong, 413 over the limit.
 */
function translateBody(raw: Uint8Array, input: OtlpDecodeInput): OtlpTranslation {
  const { encoding, maxBytes } = input;
  let message: Record<string, unknown>;
  try {
    message = decodeOtlp("ExportMetricsServiceRequest", raw, encoding, maxBytes);
  } catch (err) {
    return sizeRefused(err, maxBytes);
  }
  try {
    return translateMetrics(message, input.settings, { charged: raw.length, limit: maxBytes });
  } catch (err) {
    if (err instanceof OtlpTooLarge) throw otlpTooLarge(maxBytes, err.charged);
    // a field of the wrong type (JSON), or values nested too deep
    if (err instanceof TypeError || err instanceof RangeError) {
      throw new ApiError(400, `cannot parse the OTLP${encoding === "json" ? "/JSON" : " protobuf"} body: ${err.message.replace(/^\./, "")}`);
    }
    throw err;
  }
}

/** a 413 of the shared decoders (inflating, a protobuf body's items) in Mimir's OTLP words */
function sizeRefused(err: unknown, maxBytes: number): never {
  if (err instanceof ApiError && err.status === 413) {
    const size = err.options.extra?.size;
    throw otlpTooLarge(maxBytes, typeof size === "number" ? size : undefined);
  }
  throw err;
}

const counts = (t: OtlpTranslation): Omit<OtlpCounts, "seriesPoints"> => ({ dataPoints: t.dataPoints, dropped: t.dropped, errors: t.errors });

/** the body inflated off the event loop (node:zlib's asynchronous forms) */
const inflate = (input: OtlpDecodeInput): Promise<Uint8Array> =>
  decodeContent(input.body, input.contentEncoding, input.maxBytes).catch((err) => sizeRefused(err, input.maxBytes));

/** an inflated body translated here, on the event loop */
function translateHere(raw: Uint8Array, input: OtlpDecodeInput): DecodedOtlp {
  const t = translateBody(raw, input);
  return { ...counts(t), seriesPoints: t.seriesPoints, request: t };
}

type WorkerAnswer = (OtlpCounts & { packed: PackedWrite; wal: Uint8Array }) | { error: { status: number; message: string } };

export const otlpMetricsTasks: Record<string, TaskFn> = {
  decodeOtlpMetrics(input: OtlpDecodeInput) {
    let t: OtlpTranslation;
    try {
      let raw: Uint8Array;
      try {
        raw = decodeContentSync(input.body, input.contentEncoding, input.maxBytes);
      } catch (err) {
        sizeRefused(err, input.maxBytes);
      }
      t = translateBody(raw, input);
    } catch (err) {
      if (err instanceof ApiError) return { result: { error: { status: err.status, message: err.message } } satisfies WorkerAnswer };
      throw err;
    }
    const bytes = encodeWriteRequestBytes(t);
    const packed = packWriteRequest(bytes);
    packed.metadata = t.metadata;
    const wal = snappy.compress(bytes) as Uint8Array<ArrayBuffer>;
    const seriesPoints = Int32Array.from(t.seriesPoints);
    const p = packed;
    const transfer = [p.raw, p.keys, p.checks, p.rangeEnd, p.ranges, p.sampleEnd, p.ts, p.values, p.stale, p.exemplars, p.histograms, wal, seriesPoints].map((a) => a.buffer as ArrayBuffer);
    return { result: { ...counts(t), seriesPoints, packed, wal } satisfies WorkerAnswer, transfer: [...new Set(transfer)] };
  },
};

/**
 * An OTLP push body decoded and translated: on a worker of `decoder` when the
 * body is large (or inflates to a large one) and the decoder has workers
 * (packed, as a remote-write push), here otherwise, and when no worker could
 * take it (the pool closing); a worker that died on it is workerDied()'s
 * answer. Both paths give the same series and the same errors.
 */
export async function decodeOtlpOn(decoder: TaskRunner | undefined, input: OtlpDecodeInput): Promise<DecodedOtlp> {
  if (!decoder || decoder.inline) return translateHere(await inflate(input), input);
  let onWorker = input;
  if (input.body.length < OFF_THREAD_BYTES) {
    // a small gzip body may inflate a thousandfold: inflated first (off the event loop), then sent on when large
    const raw = await inflate(input);
    if (raw.length < OFF_THREAD_BYTES) return translateHere(raw, input);
    onWorker = { ...input, body: raw, contentEncoding: "" };
  }
  let answer: WorkerAnswer;
  try {
    // the body is copied to the worker
    answer = await decoder.run<WorkerAnswer>("decodeOtlpMetrics", onWorker);
  } catch (err) {
    // the worker died on this body (out of memory, say): translating it here could take the whole process down
    if (err instanceof WorkerDiedError) throw workerDied(err);
    return translateHere(await inflate(onWorker), onWorker);
  }
  if ("error" in answer) throw new ApiError(answer.error.status, answer.error.message);
  return answer;
}
