// The OpenTelemetry protocol's messages (opentelemetry-proto v1.5: common,
// resource, logs, metrics and their collector services' responses, plus
// google.rpc.Status for refusals), defined in code for protobufjs as the log
// store's push is: no .proto file to ship. Field names are the JSON mapping's
// lowerCamelCase, so a decoded protobuf message and an OTLP/JSON body have the
// same shape (otlp/decode.ts reads both). Unknown fields are skipped, as the
// specification requires of receivers.
//
// 64-bit integers: a log record's time is nanoseconds, more than a double
// holds exactly, so protobufjs is given long.js explicitly (under the test
// runners it finds it on its own; in the compiled executable it would not,
// and times would be rounded to ~256 ns). Every int64 then reads as a Long:
// readers here convert with int64Text()/int64Number().
import Long from "long";
import protobuf from "protobufjs/light.js";

protobuf.util.Long = Long;
protobuf.configure();

const m = (fields: Record<string, { type: string; id: number; rule?: "repeated" }>, oneofs?: Record<string, { oneof: string[] }>) =>
  oneofs ? { fields, oneofs } : { fields };
const repeated = (type: string, id: number) => ({ type, id, rule: "repeated" as const });

export const otlpRoot = protobuf.Root.fromJSON({
  nested: {
    otlp: {
      nested: {
        // common/v1/common.proto, resource/v1/resource.proto
        AnyValue: m(
          {
            stringValue: { type: "string", id: 1 },
            boolValue: { type: "bool", id: 2 },
            intValue: { type: "int64", id: 3 },
            doubleValue: { type: "double", id: 4 },
            arrayValue: { type: "ArrayValue", id: 5 },
            kvlistValue: { type: "KeyValueList", id: 6 },
            bytesValue: { type: "bytes", id: 7 },
          },
          { value: { oneof: ["stringValue", "boolValue", "intValue", "doubleValue", "arrayValue", "kvlistValue", "bytesValue"] } },
        ),
        ArrayValue: m({ values: repeated("AnyValue", 1) }),
        KeyValueList: m({ values: repeated("KeyValue", 1) }),
        KeyValue: m({ key: { type: "string", id: 1 }, value: { type: "AnyValue", id: 2 } }),
        InstrumentationScope: m({
          name: { type: "string", id: 1 },
          version: { type: "string", id: 2 },
          attributes: repeated("KeyValue", 3),
          droppedAttributesCount: { type: "uint32", id: 4 },
        }),
        Resource: m({ attributes: repeated("KeyValue", 1), droppedAttributesCount: { type: "uint32", id: 2 } }),
        // logs/v1/logs.proto, collector/logs/v1/logs_service.proto
        ExportLogsServiceRequest: m({ resourceLogs: repeated("ResourceLogs", 1) }),
        ResourceLogs: m({ resource: { type: "Resource", id: 1 }, scopeLogs: repeated("ScopeLogs", 2), schemaUrl: { type: "string", id: 3 } }),
        ScopeLogs: m({ scope: { type: "InstrumentationScope", id: 1 }, logRecords: repeated("LogRecord", 2), schemaUrl: { type: "string", id: 3 } }),
        LogRecord: m({
          timeUnixNano: { type: "fixed64", id: 1 },
          observedTimeUnixNano: { type: "fixed64", id: 11 },
          severityNumber: { type: "int32", id: 2 },
          severityText: { type: "string", id: 3 },
          body: { type: "AnyValue", id: 5 },
          attributes: repeated("KeyValue", 6),
          droppedAttributesCount: { type: "uint32", id: 7 },
          flags: { type: "fixed32", id: 8 },
          traceId: { type: "bytes", id: 9 },
          spanId: { type: "bytes", id: 10 },
          eventName: { type: "string", id: 12 },
        }),
        ExportLogsServiceResponse: m({ partialSuccess: { type: "ExportLogsPartialSuccess", id: 1 } }),
        ExportLogsPartialSuccess: m({ rejectedLogRecords: { type: "int64", id: 1 }, errorMessage: { type: "string", id: 2 } }),
        // metrics/v1/metrics.proto, collector/metrics/v1/metrics_service.proto
        ExportMetricsServiceRequest: m({ resourceMetrics: repeated("ResourceMetrics", 1) }),
        ResourceMetrics: m({ resource: { type: "Resource", id: 1 }, scopeMetrics: repeated("ScopeMetrics", 2), schemaUrl: { type: "string", id: 3 } }),
        ScopeMetrics: m({ scope: { type: "InstrumentationScope", id: 1 }, metrics: repeated("Metric", 2), schemaUrl: { type: "string", id: 3 } }),
        Metric: m(
          {
            name: { type: "string", id: 1 },
            description: { type: "string", id: 2 },
            unit: { type: "string", id: 3 },
            gauge: { type: "Gauge", id: 5 },
            sum: { type: "Sum", id: 7 },
            histogram: { type: "Histogram", id: 9 },
            exponentialHistogram: { type: "ExponentialHistogram", id: 10 },
            summary: { type: "Summary", id: 11 },
            metadata: repeated("KeyValue", 12),
          },
          { data: { oneof: ["gauge", "sum", "histogram", "exponentialHistogram", "summary"] } },
        ),
        Gauge: m({ dataPoints: repeated("NumberDataPoint", 1) }),
        Sum: m({ dataPoints: repeated("NumberDataPoint", 1), aggregationTemporality: { type: "int32", id: 2 }, isMonotonic: { type: "bool", id: 3 } }),
        Histogram: m({ dataPoints: repeated("HistogramDataPoint", 1), aggregationTemporality: { type: "int32", id: 2 } }),
        ExponentialHistogram: m({ dataPoints: repeated("ExponentialHistogramDataPoint", 1), aggregationTemporality: { type: "int32", id: 2 } }),
        Summary: m({ dataPoints: repeated("SummaryDataPoint", 1) }),
        NumberDataPoint: m(
          {
            attributes: repeated("KeyValue", 7),
            startTimeUnixNano: { type: "fixed64", id: 2 },
            timeUnixNano: { type: "fixed64", id: 3 },
            asDouble: { type: "double", id: 4 },
            asInt: { type: "sfixed64", id: 6 },
            exemplars: repeated("Exemplar", 5),
            flags: { type: "uint32", id: 8 },
          },
          { value: { oneof: ["asDouble", "asInt"] } },
        ),
        HistogramDataPoint: m(
          {
            attributes: repeated("KeyValue", 9),
            startTimeUnixNano: { type: "fixed64", id: 2 },
            timeUnixNano: { type: "fixed64", id: 3 },
            count: { type: "fixed64", id: 4 },
            sum: { type: "double", id: 5 },
            bucketCounts: repeated("fixed64", 6),
            explicitBounds: repeated("double", 7),
            exemplars: repeated("Exemplar", 8),
            flags: { type: "uint32", id: 10 },
            min: { type: "double", id: 11 },
            max: { type: "double", id: 12 },
          },
          { _sum: { oneof: ["sum"] }, _min: { oneof: ["min"] }, _max: { oneof: ["max"] } },
        ),
        ExponentialHistogramDataPoint: m(
          {
            attributes: repeated("KeyValue", 1),
            startTimeUnixNano: { type: "fixed64", id: 2 },
            timeUnixNano: { type: "fixed64", id: 3 },
            count: { type: "fixed64", id: 4 },
            sum: { type: "double", id: 5 },
            scale: { type: "sint32", id: 6 },
            zeroCount: { type: "fixed64", id: 7 },
            positive: { type: "Buckets", id: 8 },
            negative: { type: "Buckets", id: 9 },
            flags: { type: "uint32", id: 10 },
            exemplars: repeated("Exemplar", 11),
            min: { type: "double", id: 12 },
            max: { type: "double", id: 13 },
            zeroThreshold: { type: "double", id: 14 },
          },
          { _sum: { oneof: ["sum"] }, _min: { oneof: ["min"] }, _max: { oneof: ["max"] } },
        ),
        Buckets: m({ offset: { type: "sint32", id: 1 }, bucketCounts: repeated("uint64", 2) }),
        SummaryDataPoint: m({
          attributes: repeated("KeyValue", 7),
          startTimeUnixNano: { type: "fixed64", id: 2 },
          timeUnixNano: { type: "fixed64", id: 3 },
          count: { type: "fixed64", id: 4 },
          sum: { type: "double", id: 5 },
          quantileValues: repeated("ValueAtQuantile", 6),
          flags: { type: "uint32", id: 8 },
        }),
        ValueAtQuantile: m({ quantile: { type: "double", id: 1 }, value: { type: "double", id: 2 } }),
        Exemplar: m(
          {
            filteredAttributes: repeated("KeyValue", 7),
            timeUnixNano: { type: "fixed64", id: 2 },
            asDouble: { type: "double", id: 3 },
            asInt: { type: "sfixed64", id: 6 },
            spanId: { type: "bytes", id: 4 },
            traceId: { type: "bytes", id: 5 },
          },
          { value: { oneof: ["asDouble", "asInt"] } },
        ),
        ExportMetricsServiceResponse: m({ partialSuccess: { type: "ExportMetricsPartialSuccess", id: 1 } }),
        ExportMetricsPartialSuccess: m({ rejectedDataPoints: { type: "int64", id: 1 }, errorMessage: { type: "string", id: 2 } }),
        // google/rpc/status.proto: the body of a refusal (OTLP/HTTP "Failures")
        Status: m({ code: { type: "int32", id: 1 }, message: { type: "string", id: 2 } }),
      },
    },
  },
});

export const otlpType = (name: string): protobuf.Type => otlpRoot.lookupType(`otlp.${name}`);

/** a Long's 64 bits as a bigint, signed or not as the Long says (no decimal conversion: Long's toString divides) */
function longBig(v: Long): bigint {
  const bits = (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return v.unsigned ? bits : BigInt.asIntN(64, bits);
}

/** an int64 field as decoded (a Long, a number from JSON, or decimal text from JSON) as a bigint; absent: 0n */
export function int64Big(v: unknown): bigint {
  if (v === undefined || v === null || v === "") return 0n;
  if (typeof v === "object" && Long.isLong(v)) return longBig(v as Long);
  if (typeof v === "string") {
    const t = v.trim();
    if (!/^-?\d{1,20}$/.test(t)) throw new TypeError(`"${v.slice(0, 40)}" is not an integer`);
    return BigInt(t);
  }
  if (typeof v === "number") {
    if (!Number.isInteger(v)) throw new TypeError(`${v} is not an integer`);
    return BigInt(v);
  }
  if (typeof v === "bigint") return v;
  throw new TypeError("not an integer");
}

/** int64Big as exact decimal text */
export function int64Text(v: unknown): string {
  return int64Big(v).toString();
}

const UINT64_END = 1n << 64n;
const INT64_MIN = -(1n << 63n);
const INT64_END = 1n << 63n;

/** an unsigned 64-bit time in nanoseconds (fixed64) as a bigint; absent: 0n; outside 0..2^64-1 (JSON) refused */
export function nanos(v: unknown): bigint {
  if (typeof v === "object" && v !== null && Long.isLong(v)) return BigInt.asUintN(64, longBig(v as Long));
  const t = int64Big(v);
  if (t < 0n || t >= UINT64_END) throw new RangeError(`${t} is not a 64-bit unsigned time`);
  return t;
}

/** a signed 64-bit integer (int64, sfixed64) as a bigint; outside its range (JSON) refused */
export function int64Value(v: unknown): bigint {
  const t = int64Big(v);
  if (t < INT64_MIN || t >= INT64_END) throw new RangeError(`${t} is out of the int64 range`);
  return t;
}

/** an int64 as a number (counts, values: a double's precision is what the stores keep) */
export function int64Number(v: unknown): number {
  if (v === undefined || v === null || v === "") return 0;
  if (typeof v === "number") return v;
  if (typeof v === "object" && Long.isLong(v)) return (v as Long).toNumber();
  return Number(int64Big(v));
}
