// A stream's head: the entries not yet in a chunk, held as the batches they
// came in (per push, per stream: the lines joined in one string, their ends,
// UTF-8 sizes and timestamps as typed arrays), not as an object per line.
// A head of 1 MiB held ~5,000 lines as ~15,000 heap cells (the entry, its
// timestamp, its text): ~1.5 million cells at 100 streams, all kept alive
// for minutes (issue 18). Batches are a few cells each, and a cut writes
// their text with one call per batch. Entries are made from them only
// when something reads the head (a query, which reads a snapshot: batches
// never change once added).
import type { ChunkInput } from "./chunk-format.ts";
import type { Entry } from "./chunks.ts";

export interface HeadBatch {
  /** the lines back to back */
  text: string;
  /** entry i's line is text.slice(ends[i - 1] ?? 0, ends[i]) */
  ends: Uint32Array;
  /** each line's size in UTF-8 bytes */
  sizes: Uint32Array;
  ts: BigInt64Array;
  /** structured metadata per entry, when any entry has some */
  metadata?: Array<Record<string, string> | undefined> | undefined;
}

/** what a reader holds of a head: its batches as they were (a cut or later appends do not change it) */
export interface HeadSnapshot {
  batches: readonly HeadBatch[];
  sorted: boolean;
  count: number;
}

/** the batch of some entries (pushes decoded on the event loop, write-ahead log replay) */
export function batchOf(entries: readonly Entry[]): HeadBatch {
  const n = entries.length;
  const ends = new Uint32Array(n);
  const sizes = new Uint32Array(n);
  const ts = new BigInt64Array(n);
  const lines = new Array<string>(n);
  let metadata: Array<Record<string, string> | undefined> | undefined;
  let end = 0;
  for (let i = 0; i < n; i++) {
    const e = entries[i]!;
    lines[i] = e.line;
    end += e.line.length;
    ends[i] = end;
    sizes[i] = (e as { size?: number }).size ?? Buffer.byteLength(e.line);
    ts[i] = e.ts;
    if (e.metadata) (metadata ??= new Array<Record<string, string> | undefined>(n).fill(undefined))[i] = e.metadata;
  }
  return { text: lines.join(""), ends, sizes, ts, metadata };
}

/** the entries of batches, in the order they were added */
function entriesOfBatches(batches: readonly HeadBatch[], count: number): Entry[] {
  const out = new Array<Entry>(count);
  let k = 0;
  for (const b of batches) {
    let start = 0;
    for (let i = 0; i < b.ts.length; i++) {
      const end = b.ends[i]!;
      const e: Entry = { ts: b.ts[i]!, line: b.text.slice(start, end) };
      const m = b.metadata?.[i];
      if (m) e.metadata = m;
      out[k++] = e;
      start = end;
    }
  }
  return out;
}

const byTime = (a: Entry, b: Entry) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0);

/** a snapshot's entries in time order (equal timestamps in the order they came: a stable sort) */
export function snapshotEntries(s: HeadSnapshot): Entry[] {
  const entries = entriesOfBatches(s.batches, s.count);
  return s.sorted ? entries : entries.sort(byTime);
}

/** entries and line bytes of a snapshot with from <= ts <= to (index stats) */
export function countIn(s: HeadSnapshot, from: bigint, to: bigint): { entries: number; bytes: number } {
  let entries = 0;
  let bytes = 0;
  for (const b of s.batches) {
    for (let i = 0; i < b.ts.length; i++) {
      const t = b.ts[i]!;
      if (t < from || t > to) continue;
      entries++;
      bytes += b.sizes[i]!;
    }
  }
  return { entries, bytes };
}

/**
 * A snapshot as chunk columns (a cut, or a query's tasks reading the head): in order, each batch's
 * text written into the line block at once (its sizes give the offsets); out of order, its
 * entries sorted first.
 */
export function snapshotColumns(s: HeadSnapshot): ChunkInput {
  if (!s.sorted) return chunkInputOf(snapshotEntries(s));
  const count = s.count;
  let total = 0;
  for (const b of s.batches) for (let i = 0; i < b.sizes.length; i++) total += b.sizes[i]!;
  const lines = Buffer.allocUnsafeSlow(total);
  const ts = new BigInt64Array(count);
  const offsets = new Uint32Array(count + 1);
  let metadata: Array<Record<string, string> | undefined> | undefined;
  let at = 0;
  let k = 0;
  for (const b of s.batches) {
    const wrote = lines.write(b.text, at);
    let end = at;
    for (let i = 0; i < b.ts.length; i++) {
      end += b.sizes[i]!;
      offsets[k + i + 1] = end;
      const m = b.metadata?.[i];
      if (m) (metadata ??= new Array<Record<string, string> | undefined>(count).fill(undefined))[k + i] = m;
    }
    // a line's UTF-8 size is what its own encoding takes: joined text encodes the same unless
    // lines split a surrogate pair between them (never, lines are well-formed); checked anyway
    if (wrote !== end - at) return chunkInputOf(snapshotEntries(s));
    ts.set(b.ts, k);
    k += b.ts.length;
    at = end;
  }
  return { count, ts, offsets, lines: new Uint8Array(lines.buffer, lines.byteOffset, total), metadata };
}

export class Head {
  batches: HeadBatch[] = [];
  /** entries held */
  length = 0;
  /** their size as cuts count it: UTF-16 units of the lines, plus the metadata's JSON */
  bytes = 0;
  /** oldest and newest timestamp (meaningless while empty) */
  from = 0n;
  to = 0n;
  /** false once an entry came older than one before it: readers sort */
  sorted = true;
  /** the last entry added (the same timestamp and line again is dropped) */
  private lastTs: bigint | undefined;
  private lastLine: string | undefined;

  /** adds a batch; an entry repeating the one added just before it (same timestamp and line) is dropped, as in the real product */
  add(batch: HeadBatch): void {
    const { text, ends, ts } = batch;
    const n = ts.length;
    const lineAt = (i: number) => text.slice(i > 0 ? ends[i - 1]! : 0, ends[i]!);
    /** the indexes kept, once one was dropped */
    let kept: number[] | undefined;
    let prevTs = this.lastTs;
    /** the last kept entry's index in this batch; -1: the head's last entry */
    let prev = -1;
    let count = this.length;
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const t = ts[i]!;
      if (t === prevTs && lineAt(i) === (prev < 0 ? this.lastLine : lineAt(prev))) {
        kept ??= Array.from({ length: i }, (_, k) => k);
        continue;
      }
      kept?.push(i);
      if (count === 0) {
        this.from = t;
        this.to = t;
      } else {
        if (t < this.to) this.sorted = false;
        if (t < this.from) this.from = t;
        if (t > this.to) this.to = t;
      }
      count++;
      prevTs = t;
      prev = i;
      bytes += ends[i]! - (i > 0 ? ends[i - 1]! : 0);
      const m = batch.metadata?.[i];
      if (m) bytes += JSON.stringify(m).length;
    }
    if (prev < 0) return;
    this.lastTs = prevTs;
    this.lastLine = lineAt(prev);
    this.batches.push(kept ? filtered(batch, kept) : batch);
    this.length = count;
    this.bytes += bytes;
  }

  snapshot(): HeadSnapshot {
    return { batches: this.batches.slice(), sorted: this.sorted, count: this.length };
  }

  /** the head's entries in time order */
  entries(): Entry[] {
    return snapshotEntries(this.snapshot());
  }

  /** the head as a cut chunk's columns (snapshotColumns) */
  toInput(): ChunkInput {
    return snapshotColumns(this.snapshot());
  }
}

/** the batch with only the entries at `kept` (repeats dropped) */
function filtered(b: HeadBatch, kept: number[]): HeadBatch {
  return batchOf(
    kept.map((i) => {
      const e: Entry & { size: number } = { ts: b.ts[i]!, line: b.text.slice(i > 0 ? b.ends[i - 1]! : 0, b.ends[i]!), size: b.sizes[i]! };
      const m = b.metadata?.[i];
      if (m) e.metadata = m;
      return e;
    }),
  );
}

/** a cut head as the "encodeChunk" task's input: typed arrays (moved to a worker, not copied) */
export function chunkInputOf(entries: readonly Entry[]): ChunkInput {
  const count = entries.length;
  const ts = new BigInt64Array(count);
  const offsets = new Uint32Array(count + 1);
  let chars = 0;
  for (const e of entries) chars += e.line.length;
  // UTF-8 takes at least a byte per UTF-16 unit: ASCII lines fit exactly, others grow it. Written
  // with Buffer#write at an offset: no view object per line (encodeInto needs one)
  let lines = Buffer.allocUnsafeSlow(chars + 16);
  let at = 0;
  let metadata: Array<Record<string, string> | undefined> | undefined;
  for (let i = 0; i < count; i++) {
    const e = entries[i]!;
    ts[i] = e.ts;
    // a line surely fits when the room left is three bytes per UTF-16 unit; else it is measured
    if (lines.length - at < e.line.length * 3) {
      const need = Buffer.byteLength(e.line);
      if (lines.length - at < need) {
        const bigger = Buffer.allocUnsafeSlow(Math.max(lines.length * 2, at + need));
        lines.copy(bigger, 0, 0, at);
        lines = bigger;
      }
    }
    at += lines.write(e.line, at);
    offsets[i + 1] = at;
    if (e.metadata) (metadata ??= new Array<Record<string, string> | undefined>(count).fill(undefined))[i] = e.metadata;
  }
  // held until written: no room to spare. A plain Uint8Array over its own buffer (moved to a worker)
  const out = lines.length - at > 4096 ? new Uint8Array(lines.subarray(0, at)) : new Uint8Array(lines.buffer, lines.byteOffset, at);
  return { count, ts, offsets, lines: out, metadata };
}
