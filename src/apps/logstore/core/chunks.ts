// Log entries, and chunk format 1: a stream's entries, ordered by time, as
// JSON rows [ts, line, metadata?] compressed with gzip (node:zlib). Releases
// before issue 18 wrote it to log_chunks.data; it is still read (and written
// by tests that make such a data dir). New chunks are format 2 (chunk-format.ts).
import { gunzipSync, gzipSync } from "node:zlib";

export interface Entry {
  /** nanoseconds since the epoch */
  ts: bigint;
  line: string;
  metadata?: Record<string, string> | undefined;
  /** `ts` as decimal text once known (the push carried it, or it was written out): converting a bigint costs ~0.4 µs */
  text?: string | undefined;
}

/** an entry's timestamp as decimal text, remembered on the entry */
export function tsText(e: Entry): string {
  return (e.text ??= String(e.ts));
}

export function encodeChunk(entries: readonly Entry[]): Uint8Array {
  const rows = entries.map((e) => (e.metadata ? [tsText(e), e.line, e.metadata] : [tsText(e), e.line]));
  return gzipSync(JSON.stringify(rows), { level: 1 });
}

export function decodeChunk(data: Uint8Array): Entry[] {
  const rows = JSON.parse(gunzipSync(data).toString("utf8")) as Array<[string, string, Record<string, string>?]>;
  return rows.map(([ts, line, metadata]) => ({ ts: BigInt(ts), line, metadata }));
}

/** bytes an entry counts for against rate limits and chunk sizes: the line and its metadata */
export function entrySize(line: string, metadata?: Record<string, string>): number {
  let n = Buffer.byteLength(line);
  if (metadata) for (const [k, v] of Object.entries(metadata)) n += Buffer.byteLength(k) + Buffer.byteLength(v);
  return n;
}
