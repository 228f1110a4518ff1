// Push request bodies as log shippers send them (reference §2): JSON
// ({streams:[{stream, values:[[ns, line, metadata?]]}]}, optionally gzip or
// deflate encoded) or the real product's protobuf PushRequest compressed with
// block snappy. Both decode to the same streams, so every path stores alike.
import protobuf from "protobufjs/light.js";
import { chargedSize, countProtobufItems, type ItemShape, ITEM_COST, LEAF } from "../../../lib/decoded-budget.ts";
import { ApiError } from "../../../lib/errors.ts";
import { decodeContent, decodeContentSync } from "../../../lib/content-encoding.ts";
import { SnappyError, snappyUncompress } from "../../../lib/snappy.ts";
import { isWellFormed, toWellFormed } from "../../../lib/storable-text.ts";
import { parseLabelSet } from "./labels.ts";
import type { HeadBatch } from "./head.ts";

export interface PushEntry {
  /** nanoseconds since the epoch */
  ts: bigint;
  line: string;
  metadata?: Record<string, string>;
  /** `ts` as canonical decimal text, when the body carried it so */
  text?: string;
  /** the line's size in UTF-8 bytes, when the decoder measured it (a worker did: push-tasks.ts) */
  size?: number;
}

export interface PushStream {
  labels: Record<string, string>;
  /** the labels as the client wrote them, for messages; empty when they came as an object (JSON): the canonical text then */
  text: string;
  entries: PushEntry[];
  /** the same entries as a decoding worker packed them (push-tasks.ts): stored as they are when all are accepted */
  packed?: HeadBatch | undefined;
}

const bad = (message: string) => new ApiError(400, message);

// logproto.PushRequest (pkg/push/push.proto), defined in code: no .proto file to ship. Its
// strings are read as the real store's gogo-generated code reads them, without refusing invalid
// UTF-8 (which then reads back as U+FFFD): protobufjs verifies them under proto3's default
// features, so each message is given proto2's
const root = protobuf.Root.fromJSON({
  nested: {
    logproto: {
      nested: {
        PushRequest: { edition: "proto2", fields: { streams: { rule: "repeated", type: "StreamAdapter", id: 1 }, format: { type: "string", id: 2 } } },
        StreamAdapter: {
          edition: "proto2",
          fields: {
            labels: { type: "string", id: 1 },
            entries: { rule: "repeated", type: "EntryAdapter", id: 2 },
            hash: { type: "uint64", id: 3 },
          },
        },
        EntryAdapter: {
          edition: "proto2",
          fields: {
            timestamp: { type: "Timestamp", id: 1 },
            line: { type: "string", id: 2 },
            structuredMetadata: { rule: "repeated", type: "LabelPairAdapter", id: 3 },
          },
        },
        LabelPairAdapter: { edition: "proto2", fields: { name: { type: "string", id: 1 }, value: { type: "string", id: 2 } } },
        Timestamp: { edition: "proto2", fields: { seconds: { type: "int64", id: 1 }, nanos: { type: "int32", id: 2 } } },
      },
    },
  },
});
const PushRequest = root.lookupType("logproto.PushRequest");

export { PushRequest as PushRequestType };
export { decodeContent, decodeContentSync };

/** the media type of a Content-Type value; none or an unparsable one is refused as the real product does */
export function mediaTypeOf(contentType: string | undefined): string {
  const type = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (!type) throw bad("mime: no media type");
  if (!/^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type)) throw bad("mime: expected token after slash");
  return type;
}

export async function decodePush(body: Uint8Array, contentType: string | undefined, encoding: string | undefined, maxBytes: number): Promise<PushStream[]> {
  return decodeBytes(await decodeContent(body, encoding, maxBytes), contentType, maxBytes);
}

/** decodePush on a thread that may block (push-tasks.ts: a worker decoding a large push) */
export function decodePushSync(body: Uint8Array, contentType: string | undefined, encoding: string | undefined, maxBytes: number): PushStream[] {
  return decodeBytes(decodeContentSync(body, encoding, maxBytes), contentType, maxBytes);
}

function decodeBytes(bytes: Uint8Array, contentType: string | undefined, maxBytes: number): PushStream[] {
  return mediaTypeOf(contentType) === "application/json" ? decodeJson(bytes, maxBytes) : decodeProtobuf(bytes, maxBytes);
}

/** the real store's util.ParseProtoReader over max_recv_msg_size: decoded bytes, plus each decoded item's cost here */
const overMax = (size: number, limit: number) => bad(`received message larger than max (${size} vs ${limit})`);

function decodeJson(bytes: Uint8Array, maxBytes: number): PushStream[] {
  let data: unknown;
  // decoded text is well-formed (invalid UTF-8 becomes U+FFFD): an unpaired surrogate in a parsed
  // string can only come from a \u escape, so without any the per-string checks are skipped
  let escapes = true;
  try {
    const text = new TextDecoder().decode(bytes);
    escapes = text.includes("\\u");
    data = JSON.parse(text);
  } catch (err) {
    throw bad(`failed to parse JSON push request: ${(err as Error).message}`);
  }
  if (!data || typeof data !== "object" || Array.isArray(data)) throw bad("failed to parse JSON push request: the body must be an object with a streams array");
  const streams = (data as { streams?: unknown }).streams;
  if (streams === undefined || streams === null) return [];
  if (!Array.isArray(streams)) throw bad("failed to parse JSON push request: streams must be an array");
  // each stream and entry is charged as it is mapped: refused once over the limit
  let charged = chargedSize(bytes.length, streams.length);
  if (charged > maxBytes) throw overMax(charged, maxBytes);
  return streams.map((s, i) => {
    if (!s || typeof s !== "object") throw bad(`failed to parse JSON push request: streams[${i}] must be an object`);
    const { stream, values } = s as { stream?: unknown; values?: unknown };
    const labels: Record<string, string> = {};
    if (stream !== undefined && stream !== null) {
      if (typeof stream !== "object" || Array.isArray(stream)) throw bad(`failed to parse JSON push request: streams[${i}].stream must be an object`);
      for (const [k, v] of Object.entries(stream)) {
        if (typeof v !== "string") throw bad(`failed to parse JSON push request: streams[${i}].stream.${k}: Value is not a string`);
        // the real product reads labels with jsonparser, which refuses a \u escape of a lone surrogate
        if (escapes && (!isWellFormed(k) || !isWellFormed(v))) {
          throw bad(`failed to parse JSON push request: streams[${i}].stream.${toWellFormed(k)}: Encountered an invalid escape sequence in a string`);
        }
        labels[k] = v;
      }
    }
    const entries: PushEntry[] = [];
    if (values !== undefined && values !== null) {
      if (!Array.isArray(values)) throw bad(`failed to parse JSON push request: streams[${i}].values must be an array`);
      charged += values.length * ITEM_COST;
      if (charged > maxBytes) throw overMax(charged, maxBytes);
      values.forEach((v, j) => {
        if (v === null) return;
        if (!Array.isArray(v) || v.length < 2 || v.length > 3) {
          throw bad(`failed to parse JSON push request: streams[${i}].values[${j}] must be [timestamp, line] or [timestamp, line, metadata]`);
        }
        const [ts, line, metadata] = v as unknown[];
        if (typeof ts !== "string" || typeof line !== "string") {
          throw bad(`failed to parse JSON push request: streams[${i}].values[${j}]: Value is string, but can't find closing '"' symbol`);
        }
        // lines are read with jsoniter, which turns a lone surrogate into U+FFFD
        const entry: PushEntry = { ts: parseNanos(ts, `streams[${i}].values[${j}][0]`), line: escapes ? toWellFormed(line) : line };
        if (isCanonicalInteger(ts)) entry.text = ts;
        if (metadata !== undefined && metadata !== null) {
          if (typeof metadata !== "object" || Array.isArray(metadata) || Object.values(metadata).some((x) => typeof x !== "string")) {
            throw bad(`failed to parse JSON push request: streams[${i}].values[${j}][2]: Value looks like object, but can't find closing '}' symbol`);
          }
          if (Object.keys(metadata).length) entry.metadata = wellFormedPairs(Object.entries(metadata as Record<string, string>));
        }
        entries.push(entry);
      });
    }
    // no text form was sent: ingest writes the canonical one (made once, there)
    return { labels, text: "", entries };
  });
}

/** whether digits (already checked) are the text String(BigInt(raw)) gives: no sign but "-", no leading zero */
function isCanonicalInteger(raw: string): boolean {
  const d = raw.charCodeAt(raw.charCodeAt(0) === 45 ? 1 : 0);
  return (d > 48 && d <= 57) || raw === "0";
}

function parseNanos(raw: string, where: string): bigint {
  if (!/^[+-]?\d+$/.test(raw)) throw bad(`failed to parse JSON push request: ${where}: strconv.ParseInt: parsing "${raw}": invalid syntax`);
  const n = BigInt(raw);
  if (n > 9223372036854775807n || n < -9223372036854775808n) {
    throw bad(`failed to parse JSON push request: ${where}: strconv.ParseInt: parsing "${raw}": value out of range`);
  }
  return n;
}

/** the decoded items of a PushRequest: streams, their entries, each entry's timestamp and metadata pairs */
const PUSH_REQUEST_ITEMS: ItemShape = { 1: { 2: { 1: LEAF, 3: LEAF } } };

function decodeProtobuf(bytes: Uint8Array, maxBytes: number): PushStream[] {
  let raw: Uint8Array;
  try {
    raw = snappyUncompress(bytes, maxBytes);
  } catch (err) {
    // the real store's util.ParseProtoReader: a declared length over the limit, before decoding
    if (err instanceof SnappyError && err.kind === "too-large" && err.declared !== undefined && err.declared <= 0xffffffff) {
      throw overMax(err.declared, maxBytes);
    }
    throw bad((err as Error).message);
  }
  // a 2-byte empty entry is several objects once decoded: items are counted, and charged, before decoding
  let items: number;
  try {
    items = countProtobufItems(raw, PUSH_REQUEST_ITEMS, maxBytes);
  } catch (err) {
    throw bad(`failed to parse protobuf push request: ${(err as Error).message}`);
  }
  const charged = chargedSize(raw.length, items);
  if (charged > maxBytes) throw overMax(charged, maxBytes);
  let message: { streams?: Array<{ labels?: string; entries?: Array<{ timestamp?: { seconds?: unknown; nanos?: number }; line?: string; structuredMetadata?: Array<{ name: string; value: string }> }> }> };
  try {
    // seconds as a number: exact to 2^53 s, far past any timestamp the store takes (Long's decimal text divides, slowly)
    message = PushRequest.toObject(PushRequest.decode(raw), { longs: Number }) as typeof message;
  } catch (err) {
    throw bad(`failed to parse protobuf push request: ${(err as Error).message}`);
  }
  return (message.streams ?? []).map((s) => {
    const text = s.labels ?? "";
    const labels = parseLabelSet(text);
    const entries = (s.entries ?? []).map((e) => {
      const seconds = BigInt(Math.trunc(Number(e.timestamp?.seconds ?? 0)));
      // invalid UTF-8 reads back as U+FFFD, as the real product's JSON answers show it
      const entry: PushEntry = { ts: seconds * 1_000_000_000n + BigInt(e.timestamp?.nanos ?? 0), line: toWellFormed(e.line ?? "") };
      if (e.structuredMetadata?.length) entry.metadata = wellFormedPairs(e.structuredMetadata.map((p) => [p.name, p.value]));
      return entry;
    });
    return { labels, text, entries };
  });
}

/** structured metadata with invalid text made well-formed (the real product strips invalid UTF-8 from it) */
function wellFormedPairs(pairs: Array<[string, string]>): Record<string, string> {
  return Object.fromEntries(pairs.map(([k, v]) => [toWellFormed(k), toWellFormed(v)]));
}

/** a name as written, or quoted when it holds characters that need escaping (NUL, quotes, control characters) */
function quotedIfEscaped(name: string): string {
  const quoted = JSON.stringify(name);
  return quoted.slice(1, -1) === name ? name : quoted;
}

/** a label set in the Prometheus text form, labels sorted: {a="1", b="2"} */
export function labelText(labels: Record<string, string>): string {
  return `{${Object.keys(labels)
    .sort()
    .map((k) => `${quotedIfEscaped(k)}=${JSON.stringify(labels[k])}`)
    .join(", ")}}`;
}
