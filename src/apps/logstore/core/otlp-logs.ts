// OTLP log records as log store streams, mapped as the real product maps
// them (its push/otlp.go): resource attributes chosen as index labels become
// the stream's labels (names normalized: dots to underscores), the others
// structured metadata; scope attributes, scope name and version, log
// attributes, severity, trace and span ids, flags and the observed time
// become structured metadata; the body becomes the line (pdata's AsString:
// maps and arrays as JSON). A resource without service.name gets
// service_name="unknown_service". Records whose labels are invalid are
// refused and counted, not the whole request.
import { list, own, str, num, idHex, valueText, attributeToLabels } from "../../../lib/otlp/values.ts";
import { nanos } from "../../../lib/otlp/proto.ts";
import { toWellFormed } from "../../../lib/storable-text.ts";
import { ApiError } from "../../../lib/errors.ts";
import { decodeContent, decodeContentSync, tooLarge } from "../../../lib/content-encoding.ts";
import { ITEM_COST } from "../../../lib/decoded-budget.ts";
import { decodeOtlp, otlpEncodingOf, type OtlpEncoding } from "../../../lib/otlp/http.ts";
import { otlpRules, type OtlpConfig } from "./otlp-config.ts";
import { labelText, type PushEntry, type PushStream } from "./push-decode.ts";
import type { OtlpRules } from "./otlp-config.ts";

/** what a request may cost once mapped, and the per-entry structured metadata limits */
export interface OtlpLogsLimits {
  /** max_recv_msg_size: the entries made (lines, metadata, ITEM_COST each) are charged against it */
  maxBytes: number;
  /** max_structured_metadata_entries_count, max_structured_metadata_size (0: none) */
  metadataCount: number;
  metadataSize: number;
}

export interface OtlpLogs {
  streams: PushStream[];
  /** log records in the request */
  records: number;
  /** records refused while mapping (invalid labels), with why */
  refused: number;
  errors: string[];
}

const SERVICE_NAME = "service_name";
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

type Pairs = Array<[string, string]>;

/** attributes sorted by the rules into labels and metadata (drop: neither) */
function split(kvs: unknown[], where: string, choose: (name: string) => string, labels: Record<string, string> | null, metadata: Pairs): void {
  for (let i = 0; i < kvs.length; i++) {
    const key = str(kvs[i], "key", `${where}[${i}]`);
    const action = choose(key);
    if (action === "drop") continue;
    const pairs = attributeToLabels(kvs[i], `${where}[${i}]`, []);
    if (action === "index_label" && labels) {
      for (const [k, v] of pairs) if (k !== "__proto__") labels[k] = toWellFormed(v);
    }
    else for (const p of pairs) metadata.push(p);
  }
}

/** pairs' UTF-8 bytes (names and values), as the real product sizes structured metadata */
const bytesOf = (pairs: Pairs) => pairs.reduce((n, [k, v]) => n + Buffer.byteLength(k) + Buffer.byteLength(v), 0);

/** a record's time field, its range checked (OTLP/JSON may write any integer) */
function timeOf(rec: Record<string, unknown>, field: string, at: string): bigint {
  try {
    return nanos(own(rec, field) ? rec[field] : undefined);
  } catch (err) {
    throw new TypeError(`${at}.${field}: ${(err as Error).message}`);
  }
}

const tooManyMetadata = (text: string, count: number, limit: number) =>
  `stream '${text}' has too many structured metadata labels: '${count}', limit: '${limit}'. Please see \`limits_config.max_structured_metadata_entries_count\` or contact your svc administrator to increase it.`;
const metadataTooLarge = (text: string, size: number, limit: number) =>
  `stream '${text}' has structured metadata too large: '${size}' bytes, limit: '${limit}' bytes. Please see \`limits_config.max_structured_metadata_size\` or contact your svc administrator to increase it.`;

/**
 * The request's records grouped into streams; `nowNs`: the time of records that carry none. Every
 * record carries its resource's and scope's metadata, so what the mapping makes is charged as it is
 * made (a thousand resource attributes over ten thousand empty records is a small body); over
 * `limits.maxBytes` the request is refused (413). A record whose structured metadata is over the
 * per-entry limits is refused before it is built.
 */
export function otlpLogsToStreams(request: Record<string, unknown>, rules: OtlpRules, nowNs: bigint, limits: OtlpLogsLimits): OtlpLogs {
  let charged = 0;
  const charge = (cost: number) => {
    charged += cost;
    if (charged > limits.maxBytes) throw tooLarge(charged, limits.maxBytes);
  };
  const byText = new Map<string, PushStream>();
  const out: OtlpLogs = { streams: [], records: 0, refused: 0, errors: [] };
  const resourceLogs = list(request, "resourceLogs", "resourceLogs");
  for (let r = 0; r < resourceLogs.length; r++) {
    const rl = resourceLogs[r];
    const at = `resourceLogs[${r}]`;
    const resource = own(rl, "resource") ? (rl as Record<string, unknown>).resource : undefined;
    const resourceAttrs = list(resource, "attributes", `${at}.resource.attributes`);
    const labels: Record<string, string> = {};
    const resourceMetadata: Pairs = [];
    split(resourceAttrs, `${at}.resource.attributes`, rules.resource, labels, resourceMetadata);
    const hasServiceName = resourceAttrs.some((kv, i) => str(kv, "key", `${at}.resource.attributes[${i}]`) === "service.name" && valueText((kv as Record<string, unknown>).value, `${at}.resource.attributes[${i}].value`) !== "");
    if (!hasServiceName) labels[SERVICE_NAME] = "unknown_service";
    const scopeLogs = list(rl, "scopeLogs", at);
    let count = 0;
    for (let s = 0; s < scopeLogs.length; s++) count += list(scopeLogs[s], "logRecords", `${at}.scopeLogs[${s}]`).length;
    out.records += count;
    const badName = Object.keys(labels).find((k) => !LABEL_NAME.test(k));
    if (badName !== undefined) {
      out.refused += count;
      out.errors.push(`invalid labels: "${badName}" is not a valid label name`);
      continue;
    }
    for (const [k, v] of Object.entries(labels)) if (v === "") delete labels[k];
    const resourceText = labelText(labels);
    for (let s = 0; s < scopeLogs.length; s++) {
      const sl = scopeLogs[s] as Record<string, unknown>;
      const sat = `${at}.scopeLogs[${s}]`;
      const scope = own(sl, "scope") ? sl.scope : undefined;
      const scopeMetadata: Pairs = [];
      split(list(scope, "attributes", `${sat}.scope.attributes`), `${sat}.scope.attributes`, rules.scope, null, scopeMetadata);
      const scopeName = str(scope, "name", `${sat}.scope`);
      const scopeVersion = str(scope, "version", `${sat}.scope`);
      const scopeDropped = num(scope, "droppedAttributesCount", `${sat}.scope`);
      if (scopeName) scopeMetadata.push(["scope_name", scopeName]);
      if (scopeVersion) scopeMetadata.push(["scope_version", scopeVersion]);
      if (scopeDropped) scopeMetadata.push(["scope_dropped_attributes_count", String(scopeDropped)]);
      const records = list(sl, "logRecords", sat);
      // what every record of the scope carries besides its own
      const sharedCount = resourceMetadata.length + scopeMetadata.length;
      const sharedBytes = bytesOf(resourceMetadata) + bytesOf(scopeMetadata);
      const sharedCost = sharedCount * (ITEM_COST / 4) + sharedBytes;
      // over a limit with the shared part alone: every record of the scope is refused at once
      const sharedProblem =
        limits.metadataCount > 0 && sharedCount > limits.metadataCount ? tooManyMetadata(resourceText, sharedCount, limits.metadataCount)
        : limits.metadataSize > 0 && sharedBytes > limits.metadataSize ? metadataTooLarge(resourceText, sharedBytes, limits.metadataSize)
        : undefined;
      if (sharedProblem !== undefined) {
        out.refused += records.length;
        if (records.length) out.errors.push(sharedProblem);
        continue;
      }
      for (let i = 0; i < records.length; i++) {
        const rec = records[i] as Record<string, unknown>;
        const rat = `${sat}.logRecords[${i}]`;
        const recordLabels: Record<string, string> = {};
        const metadata: Pairs = [];
        split(list(rec, "attributes", `${rat}.attributes`), `${rat}.attributes`, rules.log, recordLabels, metadata);
        const time = timeOf(rec, "timeUnixNano", rat);
        const observed = timeOf(rec, "observedTimeUnixNano", rat);
        if (time !== 0n && observed !== 0n) metadata.push(["observed_timestamp", observed.toString()]);
        const severityNumber = num(rec, "severityNumber", rat);
        if (severityNumber) metadata.push(["severity_number", String(severityNumber)]);
        const severityText = str(rec, "severityText", rat);
        if (severityText) {
          if (rules.severityTextAsLabel) recordLabels.severity_text = toWellFormed(severityText);
          metadata.push(["severity_text", severityText]);
        }
        const dropped = num(rec, "droppedAttributesCount", rat);
        if (dropped) metadata.push(["dropped_attributes_count", String(dropped)]);
        const flags = num(rec, "flags", rat);
        if (flags) metadata.push(["flags", String(flags)]);
        const traceId = idHex(rec, "traceId", rat);
        if (traceId) metadata.push(["trace_id", traceId]);
        const spanId = idHex(rec, "spanId", rat);
        if (spanId) metadata.push(["span_id", spanId]);
        let streamLabels = labels;
        let text = resourceText;
        const badRecordLabel = Object.keys(recordLabels).find((k) => !LABEL_NAME.test(k));
        if (badRecordLabel !== undefined) {
          out.refused++;
          out.errors.push(`invalid labels with log attributes: "${badRecordLabel}" is not a valid label name`);
          continue;
        }
        if (Object.keys(recordLabels).length) {
          streamLabels = { ...labels, ...recordLabels };
          for (const [k, v] of Object.entries(streamLabels)) if (v === "") delete streamLabels[k];
          text = labelText(streamLabels);
        }
        // the per-entry limits, before anything of the entry is built (counted before repeated names merge)
        const count = metadata.length + sharedCount;
        const size = bytesOf(metadata) + sharedBytes;
        if (limits.metadataCount > 0 && count > limits.metadataCount) {
          out.refused++;
          out.errors.push(tooManyMetadata(text, count, limits.metadataCount));
          continue;
        }
        if (limits.metadataSize > 0 && size > limits.metadataSize) {
          out.refused++;
          out.errors.push(metadataTooLarge(text, size, limits.metadataSize));
          continue;
        }
        const line = toWellFormed(valueText(own(rec, "body") ? rec.body : undefined, `${rat}.body`));
        charge(ITEM_COST + line.length + sharedCost + metadata.length * (ITEM_COST / 4) + size - sharedBytes);
        for (const p of resourceMetadata) metadata.push(p);
        for (const p of scopeMetadata) metadata.push(p);
        let stream = byText.get(text);
        if (!stream) {
          stream = { labels: streamLabels, text, entries: [] };
          byText.set(text, stream);
        }
        const entry: PushEntry = {
          ts: time !== 0n ? time : observed !== 0n ? observed : nowNs,
          line,
        };
        if (metadata.length) {
          const m: Record<string, string> = {};
          // the first of a name wins: the record's own attributes before the resource's and the scope's
          for (const [k, v] of metadata) if (!Object.hasOwn(m, k) && k !== "" && k !== "__proto__") m[k] = toWellFormed(v);
          entry.metadata = m;
        }
        stream.entries.push(entry);
      }
    }
  }
  out.streams = [...byText.values()];
  return out;
}


export interface DecodeOtlpLogsInput {
  body: Uint8Array;
  contentType: string | undefined;
  contentEncoding: string | undefined;
  maxBytes: number;
  /** the tenant's otlp_config and the process's default index labels */
  config: OtlpConfig;
  defaultIndexLabels: readonly string[];
  /** the time given to records that carry none, ns */
  nowNs: bigint;
  /** the tenant's max_structured_metadata_entries_count and max_structured_metadata_size */
  metadataCount: number;
  metadataSize: number;
}

/** the real product's refusal of another Content-Type */
const unsupported = (type: string) => new ApiError(400, `content type: ${type} is not supported`);

/** a body's records as streams; every problem with the body a 400 naming what failed */
export async function decodeOtlpLogs(input: DecodeOtlpLogsInput): Promise<OtlpLogs> {
  const encoding = otlpEncodingOf(input.contentType, unsupported);
  return mapped(await decodeContent(input.body, input.contentEncoding, input.maxBytes), encoding, input);
}

/** decodeOtlpLogs on a thread that may block (a decoding worker) */
export function decodeOtlpLogsSync(input: DecodeOtlpLogsInput): OtlpLogs {
  const encoding = otlpEncodingOf(input.contentType, unsupported);
  return mapped(decodeContentSync(input.body, input.contentEncoding, input.maxBytes), encoding, input);
}

function mapped(bytes: Uint8Array, encoding: OtlpEncoding, input: DecodeOtlpLogsInput): OtlpLogs {
  const request = decodeOtlp("ExportLogsServiceRequest", bytes, encoding, input.maxBytes);
  try {
    return otlpLogsToStreams(request, otlpRules(input.config, input.defaultIndexLabels), input.nowNs, {
      maxBytes: input.maxBytes,
      metadataCount: input.metadataCount,
      metadataSize: input.metadataSize,
    });
  } catch (err) {
    if (err instanceof TypeError || err instanceof RangeError) throw new ApiError(400, `invalid OTLP logs request: ${err.message}`);
    throw err;
  }
}
