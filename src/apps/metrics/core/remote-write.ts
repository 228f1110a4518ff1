// Prometheus remote-write 1.0 request bodies (reference §7): a protobuf
// WriteRequest compressed with snappy block format.
import protobuf from "protobufjs/light.js";
import snappy from "snappyjs";
import { chargedSize, countProtobufItems, type ItemShape, LEAF } from "../../../lib/decoded-budget.ts";
import { ApiError } from "../../../lib/errors.ts";
import { snappyDecodedLength, snappyUncompress } from "../../../lib/snappy.ts";
import { utf8Slice } from "../../../lib/utf8-slice.ts";

import { rawCheck, rawLabelsHash, type LabelPair } from "./label-hash.ts";

export type { LabelPair };

export interface WriteSeries {
  /** the label pairs as sent; empty when the caller said it knows the series by its raw key */
  labels: LabelPair[];
  /** a hash of the series' label fields exactly as encoded (label-hash.ts): the same series sent alike has the same key; 0 for none */
  rawKey: number;
  /** 32 more bits of that hash, to check a hit */
  rawCheck: number;
  /** true when `labels` was not decoded because the caller knew `rawKey` */
  labelsSkipped: boolean;
  samples: Sample[];
  exemplars: number;
  histograms: number;
}

export interface Sample {
  value: number;
  timestampMs: number;
  /** Prometheus's stale marker, recognised by its bits while they are still bytes */
  stale?: boolean;
}

export interface WriteRequest {
  timeseries: WriteSeries[];
  metadata: Array<{ type: number; metricFamilyName: string; help: string; unit: string }>;
}

// prompb's messages and field numbers, read and written field by field with
// protobufjs's reader and writer as a generated codec does:
//   WriteRequest { repeated TimeSeries timeseries = 1; repeated MetricMetadata metadata = 3; }
//   TimeSeries { repeated Label labels = 1; repeated Sample samples = 2;
//                repeated Exemplar exemplars = 3; repeated Histogram histograms = 4; }
//   Label { string name = 1; string value = 2; }
//   Sample { double value = 1; int64 timestamp = 2; }
//   MetricMetadata { MetricType type = 1; string metric_family_name = 2; string help = 4; string unit = 5; }
// Exemplars and native histograms are counted, not stored.

/**
 * The snappy-compressed body as its protobuf bytes, with Mimir's messages: a
 * declared length over `maxBytes` (max_recv_msg_size) is refused before
 * anything is allocated; corrupt or truncated input is a 400 too, never an
 * empty push answered 200 (issue 16 #0, #4, #19). Each decoded item is
 * charged against the same limit (src/lib/decoded-budget.ts), so 2-byte
 * empty series cannot grow memory a hundredfold.
 */
export function uncompressBody(body: Uint8Array, maxBytes: number, into?: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  let declared: number;
  try {
    declared = snappyDecodedLength(body).length;
  } catch (err) {
    throw new ApiError(400, `getting snappy decoded length: ${(err as Error).message}`);
  }
  if (declared > maxBytes) throw tooLarge(declared, maxBytes);
  let raw: Uint8Array<ArrayBuffer>;
  try {
    raw = snappyUncompress(body, maxBytes, into);
  } catch (err) {
    throw new ApiError(400, `decompress snappy: ${(err as Error).message}`);
  }
  // no limit (a record of the write-ahead log, accepted under the limit of its day): nothing to count
  if (maxBytes === Number.POSITIVE_INFINITY) return raw;
  // each series, label, sample and metadata costs memory once decoded: counted before decoding
  let items: number;
  try {
    items = countProtobufItems(raw, WRITE_REQUEST_ITEMS, maxBytes);
  } catch (err) {
    throw new ApiError(400, `failed to parse remote write request: ${(err as Error).message}`);
  }
  const charged = chargedSize(raw.length, items);
  if (charged > maxBytes) throw tooLarge(charged, maxBytes);
  return raw;
}

/** Mimir's answer to a push over -distributor.max-recv-msg-size */
const tooLarge = (size: number, limit: number) =>
  new ApiError(
    400,
    `the incoming push request has been rejected because its message size of ${size} bytes is larger than the allowed limit of ${limit} bytes (err-mimir-distributor-max-write-message-size). To adjust the related limit, configure -distributor.max-recv-msg-size, or contact your service administrator.`,
  );

/** the decoded items of a WriteRequest: series with their labels and samples, and metadata (exemplars and histograms are only counted) */
const WRITE_REQUEST_ITEMS: ItemShape = { 1: { 1: LEAF, 2: LEAF }, 3: LEAF };

const NO_LABELS: LabelPair[] = [];

/**
 * Decodes an uncompressed WriteRequest with protobufjs's reader, field by
 * field as a generated decoder does. A series whose raw label bytes the
 * caller already knows (`known`) is not decoded into strings: label decoding
 * is most of the cost of a push, and senders repeat the same series.
 * A malformed body is a 400 naming the decoder's complaint.
 */
export function decodeWriteRequest(raw: Uint8Array, known?: (rawKey: number, check: number) => boolean): WriteRequest {
  try {
    return readWriteRequest(protobuf.Reader.create(raw), raw, known);
  } catch (err) {
    throw new ApiError(400, `failed to parse remote write request: ${(err as Error).message}`);
  }
}

function readWriteRequest(r: protobuf.Reader, buf: Uint8Array, known?: (rawKey: number, check: number) => boolean): WriteRequest {
  const out: WriteRequest = { timeseries: [], metadata: [] };
  const bytes = buf;
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

function readSeries(r: protobuf.Reader, end: number, bytes: Uint8Array, known?: (rawKey: number, check: number) => boolean): WriteSeries {
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
  const rawKey = rawLabelsHash(bytes, ranges, contiguous, keyStart, keyEnd);
  const check = rawCheck;
  if (known?.(rawKey, check)) return { labels: NO_LABELS, rawKey, rawCheck: check, labelsSkipped: true, samples, exemplars, histograms };
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
  return { labels, rawKey, rawCheck: check, labelsSkipped: false, samples, exemplars, histograms };
}

function readSample(r: protobuf.Reader, start: number, stop: number): Sample {
  r.pos = start;
  let value = 0;
  let timestampMs = 0;
  let stale = false;
  while (r.pos < stop) {
    const t = r.uint32();
    if (t === 9) {
      // little-endian double: the stale marker is 02 00 00 00 00 00 f0 7f
      const b = r.buf;
      const p = r.pos;
      stale = b[p] === 2 && b[p + 1] === 0 && b[p + 2] === 0 && b[p + 3] === 0 && b[p + 4] === 0 && b[p + 5] === 0 && b[p + 6] === 0xf0 && b[p + 7] === 0x7f;
      value = r.double();
    } else if (t === 16) timestampMs = readInt64(r);
    else r.skipType(t & 7);
  }
  return stale ? { value, timestampMs, stale } : { value, timestampMs };
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
    // bit 63 (the sign) is the low bit of a tenth byte: int64 max (nine bytes) rounds to 2^63 but stays positive
    if (b < 0x80) return i === 9 && (b & 1) === 1 ? result - 2 ** 64 : result;
    mul *= 128;
  }
  throw new Error("invalid varint encoding");
}

/**
 * Encodes a WriteRequest (the write-ahead log, tests, benchmarks) as
 * snappy-compressed protobuf, with protobufjs's writer; a stale marker is
 * written as its exact bits.
 */
export function encodeWriteRequest(request: { timeseries: Array<{ labels: LabelPair[]; samples: Sample[] }> }): Uint8Array<ArrayBuffer> {
  return snappy.compress(encodeWriteRequestBytes(request)) as Uint8Array<ArrayBuffer>;
}

/** encodeWriteRequest's protobuf bytes, before snappy (an OTLP push translated on a worker is packed from them) */
export function encodeWriteRequestBytes(request: { timeseries: Array<{ labels: LabelPair[]; samples: Sample[] }> }): Uint8Array<ArrayBuffer> {
  const w = protobuf.Writer.create();
  for (const ts of request.timeseries) {
    w.uint32(10).fork();
    for (const l of ts.labels) w.uint32(10).fork().uint32(10).string(l.name).uint32(18).string(l.value).ldelim();
    for (const sample of ts.samples) {
      w.uint32(18).fork();
      if (sample.stale) w.uint32(9).fixed64(STALE_BITS as never);
      else w.uint32(9).double(sample.value);
      w.uint32(16).int64(sample.timestampMs).ldelim();
    }
    w.ldelim();
  }
  return w.finish() as Uint8Array<ArrayBuffer>;
}

const STALE_BITS = { low: 2, high: 0x7ff00000 };

/** what walkWriteRequest calls back for each series of a request, each of its samples, and each metadata entry */
export interface WalkSink<S> {
  /**
   * a series: the hash of its label fields' raw bytes and its check (as
   * decodeWriteRequest makes them), where the label fields are ([start, end)
   * pairs: labelsFrom decodes them), and its exemplars and histograms (counted)
   */
  series(rawKey: number, check: number, ranges: readonly number[], exemplars: number, histograms: number): S;
  sample(series: S, timestampMs: number, value: number, stale: boolean): void;
  metadata?(m: WriteRequest["metadata"][number]): void;
}

let at = 0;

function varint32(buf: Uint8Array, end: number): number {
  let n = 0;
  let shift = 0;
  for (;;) {
    if (at >= end) throw new Error("index out of range");
    const b = buf[at++]!;
    if (shift < 28) n |= (b & 0x7f) << shift;
    else n += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) return n >>> 0;
    shift += 7;
    if (shift > 63) throw new Error("invalid varint encoding");
  }
}

function skipField(buf: Uint8Array, wire: number, end: number): void {
  if (wire === 0) varint32(buf, end);
  else if (wire === 1) at += 8;
  else if (wire === 2) {
    // not `at += varint32(...)`: that adds to the position before the length was read
    const n = varint32(buf, end);
    at += n;
  } else if (wire === 5) at += 4;
  else throw new Error(`invalid wire type ${wire}`);
  if (at > end) throw new Error("index out of range");
}

function readText(buf: Uint8Array, end: number): string {
  const n = varint32(buf, end);
  if (at + n > end) throw new Error("index out of range");
  const s = utf8Slice(buf, at, at + n);
  at += n;
  return s;
}


/**
 * the names of the last label set decoded, by position: the series of a push
 * name the same labels in the same order, so a name whose bytes are those of
 * the name before at its place is that string again, not decoded anew
 */
const lastNames: string[] = [];

/** whether bytes [from, to) of buf are the string s (which is ASCII) */
function bytesAre(buf: Uint8Array, from: number, to: number, s: string): boolean {
  if (to - from !== s.length) return false;
  for (let i = from; i < to; i++) if (buf[i] !== s.charCodeAt(i - from)) return false;
  return true;
}

/** a label name's text at `at` (its length first): the name at its place in the set before when the bytes are the same */
function readName(buf: Uint8Array, end: number, place: number): string {
  const n = varint32(buf, end);
  if (at + n > end) throw new Error("index out of range");
  const before = lastNames[place];
  if (before !== undefined && bytesAre(buf, at, at + n, before)) {
    at += n;
    return before;
  }
  const s = utf8Slice(buf, at, at + n);
  // only an ASCII name is kept: other bytes could match the char codes of another string
  let ascii = true;
  for (let i = at; i < at + n && ascii; i++) ascii = buf[i]! < 0x80;
  at += n;
  if (ascii) lastNames[place] = s;
  return s;
}

/** the label pairs of label fields at `ranges` ([start, end) of each Label message; those of ranges[from .. to)) */
export function labelsFrom(raw: Uint8Array, ranges: ArrayLike<number>, from = 0, to = ranges.length): LabelPair[] {
  const labels: LabelPair[] = [];
  for (let i = from; i < to; i += 2) {
    at = ranges[i]!;
    const stop = ranges[i + 1]!;
    let name = "";
    let value = "";
    while (at < stop) {
      const t = varint32(raw, stop);
      if (t === 10) name = readName(raw, stop, (i - from) >> 1);
      else if (t === 18) value = readText(raw, stop);
      else skipField(raw, t & 7, stop);
    }
    labels.push({ name, value });
  }
  return labels;
}

/**
 * Walks an uncompressed WriteRequest without protobufjs and without an
 * object per series or sample: the same series (raw keys, label fields) and
 * samples decodeWriteRequest gives, to `sink`. Throws on malformed input
 * (decodeWriteRequest then gives the message to answer with).
 */
export function walkWriteRequest<S>(raw: Uint8Array, sink: WalkSink<S>): void {
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  const len = raw.length;
  at = 0;
  const ranges: number[] = [];
  while (at < len) {
    const tag = varint32(raw, len);
    if (tag === 26 && sink.metadata) {
      const end = varint32(raw, len) + at;
      if (end > len) throw new Error("index out of range");
      const m = { type: 0, metricFamilyName: "", help: "", unit: "" };
      while (at < end) {
        const t = varint32(raw, end);
        if (t === 8) m.type = varint32(raw, end) | 0;
        else if (t === 18) m.metricFamilyName = readText(raw, end);
        else if (t === 34) m.help = readText(raw, end);
        else if (t === 42) m.unit = readText(raw, end);
        else skipField(raw, t & 7, end);
      }
      sink.metadata(m);
      continue;
    }
    if (tag !== 10) {
      skipField(raw, tag & 7, len);
      continue;
    }
    const end = varint32(raw, len) + at;
    if (end > len) throw new Error("index out of range");
    // first pass: the label fields (the raw key), exemplars and histograms
    ranges.length = 0;
    let keyStart = -1;
    let keyEnd = -1;
    let contiguous = true;
    let exemplars = 0;
    let histograms = 0;
    const seriesStart = at;
    while (at < end) {
      const tagAt = at;
      const t = varint32(raw, end);
      if ((t & 7) !== 2) {
        skipField(raw, t & 7, end);
        continue;
      }
      const n = varint32(raw, end);
      const start = at;
      at += n;
      if (at > end) throw new Error("index out of range");
      const field = t >>> 3;
      if (field === 1) {
        if (keyStart < 0) keyStart = tagAt;
        else if (keyEnd !== tagAt) contiguous = false;
        keyEnd = at;
        ranges.push(start, at);
      } else if (field === 3) exemplars++;
      else if (field === 4) histograms++;
    }
    const rawKey = rawLabelsHash(raw, ranges, contiguous, keyStart, keyEnd);
    const series = sink.series(rawKey, rawCheck, ranges, exemplars, histograms);
    // second pass: the samples
    at = seriesStart;
    while (at < end) {
      const t = varint32(raw, end);
      if (t !== 18) {
        skipField(raw, t & 7, end);
        continue;
      }
      const stop = varint32(raw, end) + at;
      if (stop > end) throw new Error("index out of range");
      let value = 0;
      let timestampMs = 0;
      let stale = false;
      while (at < stop) {
        const f = varint32(raw, stop);
        if (f === 9) {
          if (at + 8 > stop) throw new Error("index out of range");
          // little-endian double: the stale marker is 02 00 00 00 00 00 f0 7f
          stale = raw[at] === 2 && raw[at + 1] === 0 && raw[at + 2] === 0 && raw[at + 3] === 0 && raw[at + 4] === 0 && raw[at + 5] === 0 && raw[at + 6] === 0xf0 && raw[at + 7] === 0x7f;
          value = view.getFloat64(at, true);
          at += 8;
        } else if (f === 16) timestampMs = varintInt64(raw, stop);
        else skipField(raw, f & 7, stop);
      }
      sink.sample(series, timestampMs, value, stale);
    }
    at = end;
  }
}

/** what replayWriteRequest calls back for each series of a request and each of its samples */
export interface ReplaySink<S> {
  /** the series whose labels' raw bytes hash to `rawKey` and `check` (as decodeWriteRequest makes them), if known */
  known(rawKey: number, check: number): S | undefined;
  /** a series not known by its raw key: its labels as sent */
  make(rawKey: number, check: number, labels: LabelPair[]): S;
  sample(series: S, timestampMs: number, value: number, stale: boolean): void;
}

/** walks a request (the write-ahead log's records), decoding the labels only of series `known` does not know */
export function replayWriteRequest<S>(raw: Uint8Array, sink: ReplaySink<S>): void {
  walkWriteRequest<S>(raw, {
    series(rawKey, check, ranges) {
      const found = sink.known(rawKey, check);
      if (found !== undefined) return found;
      const resume = at;
      const labels = labelsFrom(raw, ranges);
      at = resume;
      return sink.make(rawKey, check, labels);
    },
    sample: sink.sample,
  });
}

/** an int64 varint as a number, as readInt64 reads it */
function varintInt64(buf: Uint8Array, end: number): number {
  let result = 0;
  let mul = 1;
  for (let i = 0; i < 10; i++) {
    if (at >= end) throw new Error("index out of range");
    const b = buf[at++]!;
    result += (b & 0x7f) * mul;
    if (b < 0x80) return i === 9 && (b & 1) === 1 ? result - 2 ** 64 : result;
    mul *= 128;
  }
  throw new Error("invalid varint encoding");
}
