// Prometheus remote-write 1.0 request bodies (reference §7): a protobuf
// WriteRequest compressed with snappy block format, decoded with protobufjs
// from a descriptor defined in code (prompb's field numbers, Mimir's names).
import protobuf from "protobufjs/light.js";
import snappy from "snappyjs";
import { ApiError } from "../../../lib/errors.ts";

export interface LabelPair {
  name: string;
  value: string;
}

export interface WriteSeries {
  /** the label pairs as sent; empty when the caller said it knows the series by its raw key */
  labels: LabelPair[];
  /** the series' label fields exactly as encoded (latin1): the same series sent alike has the same key */
  rawKey: string;
  /** true when `labels` was not decoded because the caller knew `rawKey` */
  labelsSkipped: boolean;
  samples: Array<{ value: number; timestampMs: number }>;
  exemplars: number;
  histograms: number;
}

export interface WriteRequest {
  timeseries: WriteSeries[];
  metadata: Array<{ type: number; metricFamilyName: string; help: string; unit: string }>;
}

const root = protobuf.Root.fromJSON({
  nested: {
    prometheus: {
      nested: {
        WriteRequest: {
          fields: {
            timeseries: { rule: "repeated", type: "TimeSeries", id: 1 },
            metadata: { rule: "repeated", type: "MetricMetadata", id: 3 },
          },
        },
        TimeSeries: {
          fields: {
            labels: { rule: "repeated", type: "Label", id: 1 },
            samples: { rule: "repeated", type: "Sample", id: 2 },
            exemplars: { rule: "repeated", type: "Exemplar", id: 3 },
            histograms: { rule: "repeated", type: "Histogram", id: 4 },
          },
        },
        Label: { fields: { name: { type: "string", id: 1 }, value: { type: "string", id: 2 } } },
        Sample: { fields: { value: { type: "double", id: 1 }, timestamp: { type: "int64", id: 2 } } },
        Exemplar: {
          fields: {
            labels: { rule: "repeated", type: "Label", id: 1 },
            value: { type: "double", id: 2 },
            timestamp: { type: "int64", id: 3 },
          },
        },
        // native histograms are recognised (and counted), not stored
        Histogram: { fields: { timestamp: { type: "int64", id: 15 } } },
        MetricMetadata: {
          fields: {
            type: { type: "int32", id: 1 },
            metricFamilyName: { type: "string", id: 2 },
            help: { type: "string", id: 4 },
            unit: { type: "string", id: 5 },
          },
        },
      },
    },
  },
});
const WriteRequestType = root.lookupType("prometheus.WriteRequest");

export { WriteRequestType };

/** the snappy-compressed body as its protobuf bytes */
export function uncompressBody(body: Uint8Array): Uint8Array {
  try {
    return snappy.uncompress(body);
  } catch (err) {
    throw new ApiError(400, `snappy: corrupt input (${(err as Error).message})`);
  }
}

const NO_LABELS: LabelPair[] = [];

/**
 * Decodes an uncompressed WriteRequest with protobufjs's reader, field by
 * field as a generated decoder does. A series whose raw label bytes the
 * caller already knows (`known`) is not decoded into strings: label decoding
 * is most of the cost of a push, and senders repeat the same series.
 * A malformed body is a 400 naming the decoder's complaint.
 */
export function decodeWriteRequest(raw: Uint8Array, known?: (rawKey: string) => boolean): WriteRequest {
  try {
    return readWriteRequest(protobuf.Reader.create(raw), raw, known);
  } catch (err) {
    throw new ApiError(400, `failed to parse remote write request: ${(err as Error).message}`);
  }
}

function readWriteRequest(r: protobuf.Reader, buf: Uint8Array, known?: (rawKey: string) => boolean): WriteRequest {
  const out: WriteRequest = { timeseries: [], metadata: [] };
  const bytes = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  while (r.pos < r.len) {
    const tag = r.uint32();
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === 2) {
      const end = r.uint32() + r.pos;
      out.timeseries.push(readSeries(r, end, bytes, known));
    } else if (field === 3 && (tag & 7) === 2) {
      const end = r.uint32() + r.pos;
      const m = { type: 0, metricFamilyName: "", help: "", unit: "" };
      while (r.pos < end) {
        const t = r.uint32();
        switch (t >>> 3) {
          case 1: m.type = r.int32(); break;
          case 2: m.metricFamilyName = r.string(); break;
          case 4: m.help = r.string(); break;
          case 5: m.unit = r.string(); break;
          default: r.skipType(t & 7);
        }
      }
      out.metadata.push(m);
    } else r.skipType(tag & 7);
  }
  return out;
}

function readSeries(r: protobuf.Reader, end: number, bytes: Buffer, known?: (rawKey: string) => boolean): WriteSeries {
  // label fields: [start, end) of each LabelPair message
  const ranges: number[] = [];
  let keyStart = -1;
  let keyEnd = -1;
  let contiguous = true;
  const samples: WriteSeries["samples"] = [];
  let exemplars = 0;
  let histograms = 0;
  while (r.pos < end) {
    const tagAt = r.pos;
    const tag = r.uint32();
    const field = tag >>> 3;
    if ((tag & 7) !== 2) {
      r.skipType(tag & 7);
      continue;
    }
    const len = r.uint32();
    const start = r.pos;
    r.pos = start + len;
    if (r.pos > end) throw new Error(`index out of range: ${r.pos} + 0 > ${end}`);
    if (field === 1) {
      if (keyStart < 0) keyStart = tagAt;
      else if (keyEnd !== tagAt) contiguous = false;
      keyEnd = r.pos;
      ranges.push(start, r.pos);
    } else if (field === 2) {
      samples.push(readSample(r, start, r.pos));
    } else if (field === 3) exemplars++;
    else if (field === 4) histograms++;
  }
  let rawKey = "";
  if (keyStart >= 0) {
    if (contiguous) rawKey = bytes.toString("latin1", keyStart, keyEnd);
    else for (let i = 0; i < ranges.length; i += 2) rawKey += `${bytes.toString("latin1", ranges[i]!, ranges[i + 1]!)}\u0000`;
  }
  if (known?.(rawKey)) return { labels: NO_LABELS, rawKey, labelsSkipped: true, samples, exemplars, histograms };
  const labels: LabelPair[] = [];
  const resume = r.pos;
  for (let i = 0; i < ranges.length; i += 2) {
    r.pos = ranges[i]!;
    const stop = ranges[i + 1]!;
    let name = "";
    let value = "";
    while (r.pos < stop) {
      const t = r.uint32();
      if (t === 10) name = r.string();
      else if (t === 18) value = r.string();
      else r.skipType(t & 7);
    }
    labels.push({ name, value });
  }
  r.pos = resume;
  return { labels, rawKey, labelsSkipped: false, samples, exemplars, histograms };
}

function readSample(r: protobuf.Reader, start: number, stop: number): { value: number; timestampMs: number } {
  r.pos = start;
  let value = 0;
  let timestampMs = 0;
  while (r.pos < stop) {
    const t = r.uint32();
    if (t === 9) value = r.double();
    else if (t === 16) timestampMs = readInt64(r);
    else r.skipType(t & 7);
  }
  return { value, timestampMs };
}

/** an int64 varint as a number (exact up to 2^53, which millisecond timestamps are) */
function readInt64(r: protobuf.Reader): number {
  const buf = r.buf;
  let result = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (r.pos >= r.len) throw new Error("index out of range");
    const b = buf[r.pos++]!;
    result += (b & 0x7f) * mul;
    if (b < 0x80) return result >= 2 ** 63 ? result - 2 ** 64 : result;
    mul *= 128;
  }
  throw new Error("invalid varint encoding");
}

/** encodes a WriteRequest (tests, the write-ahead log, benchmarks) as snappy-compressed protobuf */
export function encodeWriteRequest(request: { timeseries: Array<{ labels: LabelPair[]; samples: Array<{ value: number; timestampMs: number }> }> }): Uint8Array<ArrayBuffer> {
  const message = WriteRequestType.fromObject({
    timeseries: request.timeseries.map((ts) => ({ labels: ts.labels, samples: ts.samples.map((s) => ({ value: s.value, timestamp: s.timestampMs })) })),
  });
  return snappy.compress(WriteRequestType.encode(message).finish()) as Uint8Array<ArrayBuffer>;
}
