// The write-ahead log of the log store: every accepted push is appended as a
// record (see lib/segment-wal.ts for the file format) before it is
// acknowledged, so entries still in memory heads survive a crash.
//
// Two kinds of record:
//   - a push stored whole (every entry of it accepted, the common case): its
//     body as it came, compressed or not, behind a small header
//     (0x01, u32 header length, header JSON {seq, tenant, contentType,
//     contentEncoding}). Nothing is re-serialised on the push path, and a
//     compressed body (snappy protobuf, gzip JSON) stays compressed on disk.
//     Replay decodes it with the push decoder again.
//   - otherwise the accepted entries as JSON {seq, tenant, streams}.
import type { SegmentWal, WalSource } from "../../../lib/segment-wal.ts";
import type { Entry } from "./chunks.ts";
import { decodePush } from "./push-decode.ts";

export interface WalStream {
  labels: Record<string, string>;
  /** [ts ns as decimal string, line, metadata?] */
  entries: Array<[string, string, Record<string, string>?]>;
}

export interface WalRecord {
  seq: number;
  tenant: string;
  streams: WalStream[];
}

/** a push body as it came, for a record of a push stored whole */
export interface RawPush {
  body: Uint8Array;
  contentType: string | undefined;
  contentEncoding: string | undefined;
}

/** a record read back: entries of each stream, in the push's order */
export interface ReplayRecord {
  seq: number;
  tenant: string;
  streams: Array<{ labels: Record<string, string>; entries: Entry[] }>;
}

export interface Wal extends Omit<SegmentWal, "append" | "written"> {
  append(record: WalRecord): void;
  /** a push every entry of which was accepted: its body is the record */
  appendRaw(seq: number, tenant: string, push: RawPush): void;
}

const RAW = 0x01;
/** a body's decoded size on replay: it was accepted under max_recv_msg_size, which may have been lowered since (2 GiB: the most zlib's output may be) */
const REPLAY_MAX_BYTES = 2 ** 31;
const decoder = new TextDecoder();
const encoder = new TextEncoder();

/** every intact record of the log, in order (a torn tail ends a segment's read) */
export async function readWal(source: WalSource): Promise<ReplayRecord[]> {
  const out: ReplayRecord[] = [];
  const payloads: Uint8Array[] = [];
  await source.read(0, (payload) => payloads.push(payload));
  for (const payload of payloads) {
    if (payload[0] === RAW) {
      const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
      const headerLength = view.getUint32(1, true);
      const header = JSON.parse(decoder.decode(payload.subarray(5, 5 + headerLength))) as { seq: number; tenant: string; contentType?: string; contentEncoding?: string };
      const streams = await decodePush(payload.subarray(5 + headerLength), header.contentType, header.contentEncoding, REPLAY_MAX_BYTES);
      out.push({
        seq: header.seq,
        tenant: header.tenant,
        streams: streams.filter((s) => s.entries.length).map((s) => ({ labels: s.labels, entries: s.entries.map((e) => (e.metadata ? { ts: e.ts, line: e.line, metadata: e.metadata } : { ts: e.ts, line: e.line })) })),
      });
      continue;
    }
    const r = JSON.parse(decoder.decode(payload)) as WalRecord;
    out.push({
      seq: r.seq,
      tenant: r.tenant,
      streams: r.streams.map((ws) => ({ labels: ws.labels, entries: ws.entries.map(([ts, line, metadata]) => (metadata ? { ts: BigInt(ts), line, metadata, text: ts } : { ts: BigInt(ts), line, text: ts })) })),
    });
  }
  return out;
}

export async function openWal(source: WalSource): Promise<Wal> {
  const wal = await source.open();
  return {
    get segment() {
      return wal.segment;
    },
    append: (record) => wal.append(Buffer.from(JSON.stringify(record), "utf8")),
    appendRaw(seq, tenant, push) {
      const header = encoder.encode(JSON.stringify({ seq, tenant, contentType: push.contentType, contentEncoding: push.contentEncoding }));
      const head = new Uint8Array(5 + header.length);
      head[0] = RAW;
      new DataView(head.buffer).setUint32(1, header.length, true);
      head.set(header, 5);
      wal.append(head, push.body);
    },
    maybeRotate: () => wal.maybeRotate(),
    rotate: () => wal.rotate(),
    truncateBefore: (segment) => wal.truncateBefore(segment),
    segments: () => wal.segments(),
    close: () => wal.close(),
    clear: () => wal.clear(),
    durable: () => wal.durable(),
  };
}
