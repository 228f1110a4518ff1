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
  labels: LabelPair[];
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

type Int64 = number | { toNumber(): number };
const toNumber = (v: Int64 | undefined | null): number => (v === undefined || v === null ? 0 : typeof v === "number" ? v : v.toNumber());

/** the snappy-compressed body as its protobuf bytes */
export function uncompressBody(body: Uint8Array): Uint8Array {
  try {
    return snappy.uncompress(body);
  } catch (err) {
    throw new ApiError(400, `snappy: corrupt input (${(err as Error).message})`);
  }
}

/** decodes an uncompressed WriteRequest; a malformed one is a 400 naming the decoder's complaint */
export function decodeWriteRequest(raw: Uint8Array): WriteRequest {
  let message: {
    timeseries?: Array<{ labels?: LabelPair[]; samples?: Array<{ value?: number; timestamp?: Int64 }>; exemplars?: unknown[]; histograms?: unknown[] }>;
    metadata?: Array<{ type?: number; metricFamilyName?: string; help?: string; unit?: string }>;
  };
  try {
    message = WriteRequestType.decode(raw) as typeof message;
  } catch (err) {
    throw new ApiError(400, `failed to parse remote write request: ${(err as Error).message}`);
  }
  return {
    timeseries: (message.timeseries ?? []).map((ts) => ({
      labels: ts.labels ?? [],
      samples: (ts.samples ?? []).map((s) => ({ value: s.value ?? 0, timestampMs: toNumber(s.timestamp) })),
      exemplars: ts.exemplars?.length ?? 0,
      histograms: ts.histograms?.length ?? 0,
    })),
    metadata: (message.metadata ?? []).map((m) => ({ type: m.type ?? 0, metricFamilyName: m.metricFamilyName ?? "", help: m.help ?? "", unit: m.unit ?? "" })),
  };
}

/** encodes a WriteRequest (tests, the write-ahead log, benchmarks) as snappy-compressed protobuf */
export function encodeWriteRequest(request: { timeseries: Array<{ labels: LabelPair[]; samples: Array<{ value: number; timestampMs: number }> }> }): Uint8Array<ArrayBuffer> {
  const message = WriteRequestType.fromObject({
    timeseries: request.timeseries.map((ts) => ({ labels: ts.labels, samples: ts.samples.map((s) => ({ value: s.value, timestamp: s.timestampMs })) })),
  });
  return snappy.compress(WriteRequestType.encode(message).finish()) as Uint8Array<ArrayBuffer>;
}
