// OTLP/HTTP as both stores serve it (the specification's "OTLP/HTTP"
// section): a POST of an Export*ServiceRequest, binary protobuf
// (application/x-protobuf) or JSON (application/json), optionally gzip; the
// answer in the request's own encoding: 200 with the Export*ServiceResponse
// (partial_success when some items were refused), or a failure status with a
// google.rpc.Status body whose message says why.
import type { Context } from "hono";
import { ApiError } from "../errors.ts";
import { tooLarge } from "../content-encoding.ts";
import { chargedSize, countProtobufItems, FIXED64_VALUES, type ItemShape, LEAF, VARINT_VALUES } from "../decoded-budget.ts";
import { otlpType } from "./proto.ts";

export type OtlpEncoding = "protobuf" | "json";

export const OTLP_MEDIA_TYPES: Record<string, OtlpEncoding> = {
  "application/x-protobuf": "protobuf",
  "application/json": "json",
};

/** the encoding a Content-Type names; anything else is `unsupported`'s error */
export function otlpEncodingOf(contentType: string | undefined, unsupported: (type: string) => ApiError): OtlpEncoding {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  const encoding = OTLP_MEDIA_TYPES[type];
  if (!encoding) throw unsupported(contentType ?? "");
  return encoding;
}

/** the response for an encoding: JSON when the request was JSON or could not be told, else protobuf */
export function answerEncoding(contentType: string | undefined): OtlpEncoding {
  return OTLP_MEDIA_TYPES[(contentType ?? "").split(";")[0]!.trim().toLowerCase()] ?? "protobuf";
}

// The messages of a request, by field number, counted before decoding (lib/decoded-budget.ts): an
// empty record is 2 bytes on the wire but objects once decoded. AnyValue and KeyValue nest.
const anyValue: Record<number, ItemShape> = {};
const keyValue: ItemShape = { 2: anyValue };
anyValue[5] = { 1: anyValue };
anyValue[6] = { 1: keyValue };
const resource: ItemShape = { 1: keyValue };
const scope: ItemShape = { 3: keyValue };
const exemplar: ItemShape = { 7: keyValue };
const numberPoint: ItemShape = { 7: keyValue, 5: exemplar };
const REQUEST_ITEMS: Record<string, ItemShape> = {
  ExportLogsServiceRequest: { 1: { 1: resource, 2: { 1: scope, 2: { 5: anyValue, 6: keyValue } } } },
  ExportMetricsServiceRequest: {
    1: {
      1: resource,
      2: {
        1: scope,
        2: {
          5: { 1: numberPoint },
          7: { 1: numberPoint },
          // bucket counts and bounds: one Long or number each once decoded
          9: { 1: { 9: keyValue, 8: exemplar, 6: FIXED64_VALUES, 7: FIXED64_VALUES } },
          10: { 1: { 1: keyValue, 8: { 2: VARINT_VALUES }, 9: { 2: VARINT_VALUES }, 11: exemplar } },
          11: { 1: { 7: keyValue, 6: LEAF } },
          12: keyValue,
        },
      },
    },
  },
};

/**
 * A request message decoded: protobuf through its type (unknown fields skipped), JSON parsed as
 * it is (the JSON mapping's names are the decoded message's names; readers take both shapes).
 * Anything unreadable is a 400 naming what failed; a protobuf body whose decoded messages would
 * cost more than `maxBytes` (max_recv_msg_size) is refused before it is decoded.
 */
export function decodeOtlp(typeName: string, bytes: Uint8Array, encoding: OtlpEncoding, maxBytes: number): Record<string, unknown> {
  if (encoding === "json") {
    // each object and array is charged before parsing, as a protobuf body's messages are: `[{},{}]` is 3 bytes an object
    const charged = chargedSize(bytes.length, jsonItems(bytes));
    if (charged > maxBytes) throw tooLarge(charged, maxBytes);
    let doc: unknown;
    try {
      doc = JSON.parse(new TextDecoder().decode(bytes));
    } catch (err) {
      throw new ApiError(400, `cannot parse the OTLP/JSON body: ${(err as Error).message}`);
    }
    if (!doc || typeof doc !== "object" || Array.isArray(doc)) throw new ApiError(400, `cannot parse the OTLP/JSON body: the body must be an ${typeName} object`);
    return doc as Record<string, unknown>;
  }
  let charged: number;
  try {
    const shape = REQUEST_ITEMS[typeName];
    // a message is at least 2 bytes on the wire: a body this small cannot cost more than the limit
    const uncounted = !shape || chargedSize(bytes.length, Math.floor(bytes.length / 2)) <= maxBytes;
    charged = uncounted ? bytes.length : chargedSize(bytes.length, countProtobufItems(bytes, shape, maxBytes));
    if (charged <= maxBytes) return otlpType(typeName).decode(bytes) as unknown as Record<string, unknown>;
  } catch (err) {
    throw new ApiError(400, `cannot parse the OTLP protobuf body: ${(err as Error).message}`);
  }
  throw tooLarge(charged, maxBytes);
}

/** JSON's items, counted in the text before parsing: each object and array, and each eighth element (a comma) */
function jsonItems(bytes: Uint8Array): number {
  let containers = 0;
  let commas = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x7b || b === 0x5b) containers++;
    else if (b === 0x2c) commas++;
  }
  return containers + Math.ceil(commas / 8);
}

/** the success answer: 200 with the response message (partial_success only when something was refused) */
export function otlpAnswer(c: Context, typeName: string, encoding: OtlpEncoding, message: Record<string, unknown>): Response {
  if (encoding === "json") return c.body(JSON.stringify(message), 200, { "Content-Type": "application/json" });
  const type = otlpType(typeName);
  return c.body(new Uint8Array(type.encode(type.fromObject(message)).finish()), 200, { "Content-Type": "application/x-protobuf" });
}

/** gRPC codes of the HTTP statuses a store answers (google.rpc.Code), for the Status body */
function grpcCode(status: number): number {
  switch (status) {
    case 400: case 413: case 415: case 422: return 3; // INVALID_ARGUMENT
    case 401: return 16; // UNAUTHENTICATED
    case 403: return 7; // PERMISSION_DENIED
    case 404: return 5; // NOT_FOUND
    case 429: return 8; // RESOURCE_EXHAUSTED
    case 503: return 14; // UNAVAILABLE
    case 504: return 4; // DEADLINE_EXCEEDED
    default: return 13; // INTERNAL
  }
}

/** a refusal as OTLP/HTTP answers it: the status, a google.rpc.Status body in the request's encoding, the error's headers */
export function otlpFailure(c: Context, err: ApiError, encoding: OtlpEncoding): Response {
  const status = { code: grpcCode(err.status), message: err.message };
  const headers: Record<string, string> = { ...(err.options.headers ?? {}) };
  if (encoding === "json") {
    headers["Content-Type"] = "application/json";
    return c.body(JSON.stringify(status), err.status as 400, headers);
  }
  headers["Content-Type"] = "application/x-protobuf";
  const type = otlpType("Status");
  return c.body(new Uint8Array(type.encode(type.fromObject(status)).finish()), err.status as 400, headers);
}

/** runs an OTLP handler: every ApiError (credentials, body, limits) answered as OTLP/HTTP answers failures */
export async function otlpHandler(c: Context, handle: () => Promise<Response>): Promise<Response> {
  try {
    return await handle();
  } catch (err) {
    if (err instanceof ApiError) return otlpFailure(c, err, answerEncoding(c.req.header("Content-Type")));
    throw err;
  }
}
