// OTLP/HTTP metrics requests as an OpenTelemetry exporter sends them: an
// ExportMetricsServiceRequest built from plain objects (the OTLP/JSON shape),
// encoded as protobuf with the store's own message definitions, or as JSON;
// and the answers read back (ExportMetricsServiceResponse or google.rpc.Status).
import { gzipSync } from "node:zlib";
import { otlpType } from "../../src/lib/otlp/proto.ts";

export type Attrs = Record<string, string | number | boolean>;

/** Unix nanoseconds of a time in ms, as OTLP/JSON writes them */
export const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);

export const kv = (attrs: Attrs = {}) =>
  Object.entries(attrs).map(([key, v]) => ({
    key,
    value: typeof v === "string" ? { stringValue: v } : typeof v === "boolean" ? { boolValue: v } : Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v },
  }));

/** one resource with one scope and its metrics */
export function request(resource: Attrs, metrics: object[], scope: { name?: string; version?: string; attributes?: Attrs; schemaUrl?: string } = {}) {
  return {
    resourceMetrics: [
      {
        resource: { attributes: kv(resource) },
        scopeMetrics: [{ scope: { name: scope.name ?? "", version: scope.version ?? "", attributes: kv(scope.attributes) }, schemaUrl: scope.schemaUrl ?? "", metrics }],
      },
    ],
  };
}

const CUMULATIVE = 2;
const DELTA = 1;

export const gauge = (name: string, unit: string, points: Array<{ t: number; v: number; attrs?: Attrs; flags?: number }>) => ({
  name,
  unit,
  gauge: { dataPoints: points.map((p) => ({ attributes: kv(p.attrs), timeUnixNano: ns(p.t), asDouble: p.v, ...(p.flags ? { flags: p.flags } : {}) })) },
});

export const sum = (name: string, unit: string, points: Array<{ t: number; v: number; attrs?: Attrs; flags?: number }>, opts: { monotonic?: boolean; delta?: boolean } = {}) => ({
  name,
  unit,
  sum: {
    aggregationTemporality: opts.delta ? DELTA : CUMULATIVE,
    isMonotonic: opts.monotonic ?? true,
    dataPoints: points.map((p) => ({ attributes: kv(p.attrs), timeUnixNano: ns(p.t), ...(Number.isInteger(p.v) ? { asInt: String(p.v) } : { asDouble: p.v }), ...(p.flags ? { flags: p.flags } : {}) })),
  },
});

export const histogram = (name: string, unit: string, points: Array<{ t: number; count: number; sum?: number; bounds: number[]; counts: number[]; attrs?: Attrs }>) => ({
  name,
  unit,
  histogram: {
    aggregationTemporality: CUMULATIVE,
    dataPoints: points.map((p) => ({
      attributes: kv(p.attrs),
      timeUnixNano: ns(p.t),
      count: String(p.count),
      ...(p.sum === undefined ? {} : { sum: p.sum }),
      bucketCounts: p.counts.map(String),
      explicitBounds: p.bounds,
    })),
  },
});

export const summary = (name: string, unit: string, points: Array<{ t: number; count: number; sum: number; quantiles: Array<[number, number]>; attrs?: Attrs }>) => ({
  name,
  unit,
  summary: {
    dataPoints: points.map((p) => ({
      attributes: kv(p.attrs),
      timeUnixNano: ns(p.t),
      count: String(p.count),
      sum: p.sum,
      quantileValues: p.quantiles.map(([quantile, value]) => ({ quantile, value })),
    })),
  },
});

export const exponentialHistogram = (name: string, t: number) => ({
  name,
  unit: "s",
  exponentialHistogram: {
    aggregationTemporality: CUMULATIVE,
    dataPoints: [{ timeUnixNano: ns(t), count: "3", sum: 1.5, scale: 2, zeroCount: "0", positive: { offset: 1, bucketCounts: ["1", "2"] } }],
  },
});

const REQUEST = otlpType("ExportMetricsServiceRequest");

/** the request as protobuf bytes */
export function protobufBody(message: object): Uint8Array<ArrayBuffer> {
  return REQUEST.encode(REQUEST.fromObject(message)).finish() as Uint8Array<ArrayBuffer>;
}

export interface OtlpReply {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
  /** the decoded answer: ExportMetricsServiceResponse on 200, google.rpc.Status otherwise (plain objects, int64 as text) */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
}

export interface SendOptions {
  tenant?: string;
  json?: boolean;
  gzip?: boolean;
  headers?: Record<string, string>;
  /** bytes sent as they are instead of the encoded message */
  raw?: Uint8Array;
}

export function otlpClient(base: string) {
  return async (message: object | undefined, o: SendOptions = {}): Promise<OtlpReply> => {
    let body: Uint8Array = o.raw ?? (o.json ? new TextEncoder().encode(JSON.stringify(message)) : protobufBody(message!));
    if (o.gzip) body = gzipSync(body);
    const headers: Record<string, string> = {
      "Content-Type": o.json ? "application/json" : "application/x-protobuf",
      ...(o.tenant === undefined ? {} : { "X-Scope-OrgID": o.tenant }),
      ...(o.gzip ? { "Content-Encoding": "gzip" } : {}),
      ...o.headers,
    };
    const res = await fetch(`${base}/otlp/v1/metrics`, { method: "POST", headers, body: body as Uint8Array<ArrayBuffer> });
    const bytes = new Uint8Array(await res.arrayBuffer());
    const text = new TextDecoder().decode(bytes);
    const type = res.headers.get("content-type") ?? "";
    let decoded: unknown;
    if (type.includes("json")) decoded = JSON.parse(text);
    else if (type.includes("protobuf")) {
      const t = otlpType(res.status === 200 ? "ExportMetricsServiceResponse" : "Status");
      decoded = t.toObject(t.decode(bytes), { longs: String });
    }
    return { status: res.status, headers: res.headers, bytes, body: decoded, text };
  };
}
