// The log store's storage engine (DESIGN rule 7): per-stream head blocks in
// memory, cut into chunks by size or age; a cut head is encoded (format 2,
// chunk-format.ts) as a task of the runner (off the event loop with the
// worker pool), its bytes appended to a segment file and fsynced
// (chunk-store.ts), then its metadata row committed to PGlite. Every
// accepted push is in the write-ahead log before it is acknowledged; the log
// is truncated only past what is in committed chunks. On start, stored
// streams and chunk metadata are loaded and the write-ahead log is replayed
// past what the chunks already hold. Without a data dir, chunk bytes stay in
// the (in-memory) database rows.
import type { Sql } from "../../../db/sql.ts";
import { setImmediate } from "node:timers";
import { filesIn, pinCounter, type BackupPin } from "../../../lib/backup-pin.ts";
import type { Logger } from "../../../lib/logger.ts";
import { inlineRunner, type TaskRunner } from "../../../lib/tasks.ts";
import { CHUNK_DEFLATE_LEVEL, CHUNK_DEFLATE_LEVEL_FAST, type ChunkInput } from "./chunk-format.ts";
import { openFileChunkStore, type ChunkLocation, type ChunkStore } from "./chunk-store.ts";
import { createChunkRewriter, type ChunkRewriter } from "./chunk-rewrite.ts";
import { decodeChunk, tsText, type Entry } from "./chunks.ts";
import { batchOf, chunkInputOf, Head, snapshotColumns, snapshotEntries, type HeadBatch } from "./head.ts";
import { decodeColumns, readSource, type ChunkSource } from "./columns.ts";
import { logTasks } from "./scan-tasks.ts";
import { streamKey } from "./labels.ts";
import { mergeLanes, type Run } from "./merge.ts";
import { openWal, readWal, type RawPush, type Wal, type WalRecord } from "./wal.ts";
import { fileWalSource, type WalSource } from "../../../lib/segment-wal.ts";

const DURABLE = Promise.resolve();

export interface ChunkMeta {
  id: number;
  /** the stream's id */
  stream: number;
  from: bigint;
  to: bigint;
  lines: number;
  bytes: number;
  /** where the bytes are in the chunk files; undefined: in the row (format 1 rows, the in-memory store) */
  at?: ChunkLocation | undefined;
}

interface Pending {
  /**
   * the cut head as columns (about its line bytes in memory, not the entries' objects), until
   * moved to a worker to be encoded; undefined then
   */
  input: ChunkInput | undefined;
  /** the encoded chunk, until committed */
  blob?: Uint8Array | undefined;
  /** while a worker has the columns: settles once `blob` (or, the encoding failed, `input` again) is set */
  encoding?: Promise<void> | undefined;
  /** the first write-ahead record the chunk holds (the columns can be rebuilt from the log) */
  firstSeq: number;
  count: number;
  from: bigint;
  to: bigint;
  bytes: number;
  lastSeq: number;
  segment: number;
}

export interface Stream {
  id: number;
  tenant: string;
  labels: Record<string, string>;
  key: string;
  /** entries not yet in a chunk, as the batches they came in (head.ts) */
  head: Head;
  headStarted: number;
  headSeq: number;
  /** the first write-ahead record in the head */
  headFirstSeq: number;
  /** the oldest write-ahead segment holding an entry of the head */
  headSegment: number;
  pending: Pending[];
  chunks: ChunkMeta[];
  lastWrite: number;
}

export interface StoreOptions {
  pg: Sql;
  logger: Logger;
  /** undefined: in memory, no write-ahead log (unless `walSource`) */
  walDir: string | undefined;
  /** the write-ahead log kept elsewhere than walDir's files: the database, for nodes sharing one (db/shared-wal.ts) */
  walSource?: WalSource | undefined;
  now: () => number;
  /** uncompressed bytes at which a head is cut (default 1 MiB) */
  chunkTargetBytes?: number;
  /** age at which a head is cut whatever its size (default 5 minutes) */
  chunkMaxAgeMs?: number;
  /** the chunk segment files' folder; undefined: chunk bytes stay in the database rows (in memory) */
  chunkDir?: string | undefined;
  /** runs the "encodeChunk" task (default: on this thread); the store does not close it */
  runner?: TaskRunner | undefined;
  /** line bytes of cut chunks waiting to be written past which pushes wait (default BACKLOG_WAIT_BYTES) */
  backlogWaitBytes?: number;
  /** counts a chunk found corrupt (once per chunk), for /metrics */
  onCorrupt?: ((tenant: string) => void) | undefined;
}

export interface LogStore {
  /** resolves once every push appended so far is in the write-ahead log for good (a push is acknowledged after it) */
  durable(): Promise<void>;
  streams(tenant: string): Stream[];
  find(tenant: string, labels: Record<string, string>): Stream | undefined;
  tenants(): string[];
  /** finds or creates a stream; creation writes its row */
  stream(tenant: string, labels: Record<string, string>): Promise<Stream>;
  /**
   * Appends accepted entries: written ahead, then to the heads. `raw`: the
   * push's body, when the batch is every entry of it (the record is then the
   * body as it came, wal.ts)
   */
  append(tenant: string, batch: Array<{ stream: Stream; entries: Entry[]; packed?: HeadBatch | undefined }>, raw?: RawPush): void;
  /** where a stored chunk's bytes are, for a query task to read (columns.ts); undefined when it is gone */
  chunkSource(chunk: ChunkMeta): Promise<ChunkSource | undefined>;
  /** the stream's time-ordered runs (stored chunks, chunks being written, the head), in rank order for merge.ts */
  runs(stream: Stream): Run[];
  /**
   * Calls `visit` with the stream's entries in [from, to) in time order
   * (newest first when backward) until it returns false.
   */
  scan(stream: Stream, from: bigint, to: bigint, backward: boolean, visit: (e: Entry) => boolean): Promise<void>;
  /**
   * Resolves when a push may go on: at once unless more than `backlog_bytes`
   * of cut chunks wait to be encoded and written (ingest beyond what the
   * encoders keep up with); then once the writes have brought it under, so
   * memory stays bounded (after at most `maxWaitMs`, whatever the backlog).
   */
  admit(): Promise<void> | undefined;
  /** line bytes of cut chunks waiting to be written */
  backlogBytes(): number;
  /** how many cut chunks wait to be written */
  backlogChunks(): number;
  /** writes cut chunks now (and cuts every head first when `all`) */
  flush(all?: boolean): Promise<void>;
  /**
   * deletes chunks of `tenant` that end before `before`; with `reclaim` (the default) the rows' space
   * is then made reusable (a vacuum and checkpoint: leave it to reclaimSpace after many calls)
   */
  deleteChunksBefore(tenant: string, before: bigint, reclaim?: boolean): Promise<number>;
  /** marks deleted chunk rows' space reusable (PGlite runs no autovacuum) and checkpoints, after the writes under way */
  reclaimSpace(): Promise<void>;
  /**
   * Keeps the write-ahead segments and chunk files until released (a backup
   * copies them). Chunk bytes are fsynced before the row naming them is
   * committed, and the log is truncated only past committed chunks, so the
   * files as they are at any moment, with the database as it is then, hold
   * every acknowledged push.
   */
  pinForBackup(): BackupPin;
  /** takes deleted lines out of chunks, heads and the write-ahead log (delete requests: chunk-rewrite.ts) */
  readonly rewriter: ChunkRewriter;
  /** bytes of chunk files emptied by deletes and not yet removed (their grace period) */
  pendingUnlinkBytes(): number;
  /**
   * A stored chunk failed to read or decode (ChunkCorruptError, a truncated
   * file): logged once per chunk and counted in /metrics; the caller skips it.
   */
  reportCorrupt(chunk: ChunkMeta, reason: string): void;
  close(): Promise<void>;
}

/** bytes of cut chunks waiting to be written past which they are encoded at the fast level (a safety valve) */
const BACKLOG_FAST_BYTES = 128 * 1024 * 1024;
/** bytes of cut chunks waiting to be written past which a push waits for the writes (memory stays bounded) */
const BACKLOG_WAIT_BYTES = 256 * 1024 * 1024;
/** the longest a push waits for the backlog (a store that cannot write does not stop ingest) */
const BACKLOG_MAX_WAIT_MS = 10_000;
/** chunks one encoding task takes at most (~10–20 ms each) */
const ENCODE_TASK_CHUNKS = 4;
/** chunks encoded, fsynced and committed together: the write-ahead log shrinks and memory is freed group by group */
const WRITE_GROUP = 32;

/** line characters of decoded chunks kept in memory (about three times as many bytes once decoded) */
const DECODED_CACHE_BYTES = 32 * 1024 * 1024;

const cmp = (a: Entry, b: Entry) => (a.ts < b.ts ? -1 : a.ts > b.ts ? 1 : 0);

const textDecoder = new TextDecoder();

/** a cut head as the "encodeChunk" task's input (head.ts) */
export const chunkInput = chunkInputOf;

/** the entries of a cut head's columns (a query reading a chunk not yet written) */
function entriesOfInput(c: ChunkInput): Entry[] {
  const out: Entry[] = new Array(c.count);
  for (let i = 0; i < c.count; i++) {
    const e: Entry = { ts: c.ts[i]!, line: textDecoder.decode(c.lines.subarray(c.offsets[i]!, c.offsets[i + 1]!)) };
    const m = c.metadata?.[i];
    if (m) e.metadata = m;
    out[i] = e;
  }
  return out;
}

/** a stored chunk's entries as objects (format 1 or 2), for runs() and scan() */
function entriesOf(bytes: Uint8Array): Entry[] {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return decodeChunk(bytes);
  return entriesOfInput(decodeColumns(bytes));
}

export async function openLogStore(o: StoreOptions): Promise<LogStore> {
  const { pg, logger, now } = o;
  const target = o.chunkTargetBytes ?? 1024 * 1024;
  const runner = o.runner ?? inlineRunner(logTasks);
  const maxAge = o.chunkMaxAgeMs ?? 5 * 60_000;
  const byTenant = new Map<string, Map<string, Stream>>();
  const byId = new Map<number, Stream>();
  // a small cache of decoded chunks, least recently used first: at most 64 chunks and
  // DECODED_CACHE_BYTES of lines, so memory stays bounded (chunks just written are not put in:
  // under steady ingest that would fill it with chunks no query reads)
  const decoded = new Map<number, { entries: Entry[]; bytes: number }>();
  let decodedBytes = 0;
  const forget = (id: number) => {
    const hit = decoded.get(id);
    if (!hit) return;
    decoded.delete(id);
    decodedBytes -= hit.bytes;
  };
  const cacheDecoded = (id: number, entries: Entry[]) => {
    forget(id);
    const bytes = entries.reduce((n, e) => n + e.line.length, 0);
    while (decoded.size && (decoded.size >= 64 || decodedBytes + bytes > DECODED_CACHE_BYTES)) forget(decoded.keys().next().value!);
    decoded.set(id, { entries, bytes });
    decodedBytes += bytes;
  };
  let seq = 0;

  const remember = (s: Stream) => {
    let m = byTenant.get(s.tenant);
    if (!m) byTenant.set(s.tenant, (m = new Map()));
    m.set(s.key, s);
    byId.set(s.id, s);
  };
  const newStream = (id: number, tenant: string, labels: Record<string, string>, key: string): Stream => ({
    id, tenant, labels, key, head: new Head(), headStarted: 0, headSeq: 0, headFirstSeq: 0, headSegment: 0, pending: [], chunks: [], lastWrite: 0,
  });

  // what is stored: streams and chunk metadata, and how far each stream's chunks reach in the write-ahead log
  const flushedSeq = new Map<number, number>();
  for (const r of (await pg.query<{ id: number; tenant: string; key: string; labels: Record<string, string> }>("select id, tenant, key, labels from log_streams")).rows) {
    remember(newStream(r.id, r.tenant, r.labels, r.key));
  }
  const metas = await pg.query<{ id: string; stream_id: number; from_ns: string; to_ns: string; lines: number; bytes: string; last_seq: string; segment: number | null; seg_offset: string | null; seg_length: number | null }>(
    "select id::text, stream_id, from_ns::text, to_ns::text, lines, bytes::text, last_seq::text, segment, seg_offset::text, seg_length from log_chunks order by to_ns",
  );
  const liveSegments = new Map<number, number>();
  for (const c of metas.rows) {
    const s = byId.get(c.stream_id);
    if (!s) continue;
    const at = c.segment === null ? undefined : { segment: c.segment, offset: Number(c.seg_offset), length: c.seg_length! };
    if (at) liveSegments.set(at.segment, (liveSegments.get(at.segment) ?? 0) + 1);
    s.chunks.push({ id: Number(c.id), stream: s.id, from: BigInt(c.from_ns), to: BigInt(c.to_ns), lines: c.lines, bytes: Number(c.bytes), at });
    flushedSeq.set(s.id, Math.max(flushedSeq.get(s.id) ?? 0, Number(c.last_seq)));
    seq = Math.max(seq, Number(c.last_seq));
  }

  // cut chunks waiting to be written: their line bytes, and the pushes waiting for them to go down
  let backlog = 0;
  const backlogLimit = o.backlogWaitBytes ?? BACKLOG_WAIT_BYTES;
  let admitted: { promise: Promise<void>; resolve: () => void } | undefined;
  const backlogDown = (bytes: number) => {
    backlog -= bytes;
    if (admitted && backlog <= backlogLimit) {
      admitted.resolve();
      admitted = undefined;
    }
  };
  const admit = (): Promise<void> | undefined => {
    if (backlog <= backlogLimit) return undefined;
    if (!admitted) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      admitted = { promise, resolve };
      const waiting = admitted;
      const timer = setTimeout(() => {
        if (admitted === waiting) admitted = undefined;
        waiting.resolve();
      }, BACKLOG_MAX_WAIT_MS);
      (timer as { unref?: () => void }).unref?.();
      void promise.then(() => clearTimeout(timer));
    }
    return admitted.promise;
  };

  const cut = (s: Stream) => {
    const h = s.head;
    if (!h.length) return;
    // held as columns until written: about the line bytes (the head's batches write their text straight in)
    s.pending.push({ input: h.toInput(), firstSeq: s.headFirstSeq, count: h.length, from: h.from, to: h.to, bytes: h.bytes, lastSeq: s.headSeq, segment: s.headSegment });
    backlog += h.bytes;
    // a new head: readers hold snapshots of the old one's batches
    s.head = new Head();
  };

  let wal: Wal | undefined;
  /** `packed`: the entries as the push decoder packed them (push-tasks.ts), when every one was accepted */
  const addToHead = (s: Stream, entries: Entry[], recordSeq: number, segment: number, packed?: HeadBatch) => {
    if (!s.head.length) {
      s.headStarted = now();
      s.headSegment = segment;
      s.headFirstSeq = recordSeq;
    }
    s.head.add(packed ?? batchOf(entries));
    s.headSeq = recordSeq;
    s.lastWrite = now();
    if (s.head.bytes >= target) cut(s);
  };

  const walSource = o.walSource ?? (o.walDir ? fileWalSource(o.walDir) : undefined);
  // replay: records past what each stream's chunks hold go back into the heads
  if (walSource) {
    const records = await readWal(walSource);
    for (const r of records) {
      seq = Math.max(seq, r.seq);
      for (const ws of r.streams) {
        const key = streamKey(ws.labels);
        const s = byTenant.get(r.tenant)?.get(key);
        if (!s || r.seq <= (flushedSeq.get(s.id) ?? 0)) continue;
        addToHead(s, ws.entries, r.seq, 0);
      }
    }
    if (records.length) logger.info("log store replayed its write-ahead log", { records: records.length });
  }

  // chunk files (a data dir), or chunk bytes in the rows (in memory)
  const files: ChunkStore | undefined = o.chunkDir ? openFileChunkStore(o.chunkDir, liveSegments) : undefined;

  let flushing: Promise<void> = Promise.resolve();
  /**
   * Writes every chunk being written: encoded by the runner (all at once: a
   * pool spreads them over its workers), appended to the chunk files and
   * fsynced, then their rows committed in one transaction. Only then are they
   * the stream's chunks, and the write-ahead log may lose what they hold.
   */
  /** encodes, stores and commits the chunks cut so far, a group at a time (each group frees its memory and its write-ahead segments) */
  const writePending = async () => {
    const batch: Array<[Stream, Pending]> = [];
    for (const s of byId.values()) for (const p of s.pending) batch.push([s, p]);
    // a group is encoded while the one before is written and committed (their waits overlap)
    let storing: Promise<void> = Promise.resolve();
    for (let at = 0; at < batch.length; at += WRITE_GROUP) {
      const group = batch.slice(at, at + WRITE_GROUP);
      const blobs = await encodeGroup(group);
      await storing;
      storing = storeGroup(group, blobs).then(() => void truncateWal());
    }
    await storing;
  };
  const encodeGroup = async (batch: Array<[Stream, Pending]>): Promise<Uint8Array[]> => {
    // as many at once as the runner runs; on this thread (no pool) a turn of the event loop
    // after each, so a push waits for one chunk's encoding at most. With workers there is no
    // such turn: under a stream of pushes one turn of the loop can take a few hundred ms, and
    // encoding would fall behind ingest.
    // chunks cut faster than they are encoded (ingest above the encoders' speed): the fast level,
    // so the backlog held in memory stops growing; the normal level again once it is worked off
    const level = backlog > BACKLOG_FAST_BYTES ? CHUNK_DEFLATE_LEVEL_FAST : CHUNK_DEFLATE_LEVEL;
    // encoded by an earlier flush whose store failed: not again
    const todo = batch.filter(([, p]) => !p.blob);
    if (runner.inline) {
      for (const [, p] of todo) {
        p.blob = await runner.run<Uint8Array>("encodeChunk", { ...p.input!, level });
        p.input = undefined;
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } else {
      // tasks of at most ENCODE_TASK_CHUNKS chunks, shared over the workers (a query's task waits for
      // one such task at most: queries go first in the pool's queue). The columns are moved to the worker, not
      // copied (copies cost the event loop ~6% of its time under ingest): with a write-ahead log,
      // an encoding that fails rebuilds them from it; without one (in memory), a copy is moved
      const share = Math.min(ENCODE_TASK_CHUNKS, Math.ceil(todo.length / Math.max(1, runner.size)));
      const tasks: Promise<void>[] = [];
      for (let from = 0; from < todo.length; from += share) {
        const part = todo.slice(from, from + share);
        const inputs = part.map(([, p]): ChunkInput => {
          const input = p.input!;
          return wal ? { ...input, level } : { ...input, ts: input.ts.slice(), offsets: input.offsets.slice(), lines: input.lines.slice(), level };
        });
        const moved = inputs.flatMap((input) => [input.ts.buffer as ArrayBuffer, input.offsets.buffer as ArrayBuffer, input.lines.buffer as ArrayBuffer]);
        const task = runner.run<Uint8Array[]>("encodeChunks", inputs, { transfer: moved, priority: "background" }).then(
          (out) => {
            part.forEach(([, p], k) => {
              p.blob = out[k]!;
              p.input = undefined;
            });
          },
          async (err: unknown) => {
            // the worker failed or went away with the columns: they come back from the write-ahead log
            if (wal) for (const [st, p] of part) if (p.input && p.input.ts.length < p.count) p.input = await rebuildPending(st, p);
            throw err;
          },
        );
        const settled = task.then(
          () => undefined,
          () => undefined,
        );
        for (const [, p] of part) {
          p.encoding = settled;
          void settled.then(() => {
            if (p.encoding === settled) p.encoding = undefined;
          });
        }
        tasks.push(task);
      }
      await Promise.all(tasks);
    }
    return batch.map(([, p]) => p.blob!);
  };
  /**
   * A pending chunk's columns read again from the write-ahead log: its stream's entries in the
   * records it holds (firstSeq..lastSeq, all in segments the log still keeps), with the head's
   * rules (a repeat of the entry just before dropped, a stable sort by time).
   */
  const rebuildPending = async (s: Stream, p: Pending): Promise<ChunkInput> => {
    const kept: Entry[] = [];
    for (const r of await readWal(walSource!)) {
      if (r.seq < p.firstSeq || r.seq > p.lastSeq || r.tenant !== s.tenant) continue;
      for (const ws of r.streams) {
        if (streamKey(ws.labels) !== s.key) continue;
        for (const e of ws.entries) {
          const last = kept.at(-1);
          if (last && last.ts === e.ts && last.line === e.line) continue;
          kept.push(e);
        }
      }
    }
    logger.warn("a chunk being encoded was lost with its worker; its entries were read again from the write-ahead log", { tenant: s.tenant, stream: s.key, entries: kept.length });
    return chunkInput(kept.sort(cmp));
  };
  // chunk ids taken from the sequence ahead, a thousand at a time: a group's rows are then one
  // statement, one await (ids an unclean stop leaves unused are only gaps)
  const spareIds: number[] = [];
  const chunkIds = async (n: number): Promise<number[]> => {
    if (spareIds.length < n) {
      const r = await pg.query<{ id: string }>("select nextval(pg_get_serial_sequence('log_chunks', 'id'))::text as id from generate_series(1, $1)", [Math.max(n, 1024)]);
      for (const row of r.rows) spareIds.push(Number(row.id));
    }
    return spareIds.splice(0, n);
  };
  const storeGroup = async (batch: Array<[Stream, Pending]>, blobs: Uint8Array[]) => {
    const places = files ? await files.put(blobs) : undefined;
    // the group's rows in one statement (one statement is one transaction): each await is a turn of
    // an event loop that pushes keep busy, and a query per row held the writes back behind them
    const ids = await chunkIds(batch.length);
    const params: unknown[] = [];
    const rows = batch.map(([s, p], i) => {
      const at = places?.[i];
      const row = [ids[i]!, s.id, s.tenant, String(p.from), String(p.to), p.count, p.bytes, p.lastSeq, at ? null : blobs[i]!, at?.segment ?? null, at?.offset ?? null, at?.length ?? null];
      const first = params.length;
      params.push(...row);
      return `(${row.map((_, k) => `$${first + k + 1}`).join(", ")})`;
    });
    await pg.query(`insert into log_chunks (id, stream_id, tenant, from_ns, to_ns, lines, bytes, last_seq, data, segment, seg_offset, seg_length) values ${rows.join(", ")}`, params);
    batch.forEach(([s, p], i) => {
      const at = places?.[i];
      if (at) files!.commit(at);
      s.chunks.push({ id: ids[i]!, stream: s.id, from: p.from, to: p.to, lines: p.count, bytes: p.bytes, at });
      s.pending.splice(s.pending.indexOf(p), 1);
      backlogDown(p.bytes);
    });
  };
  const walPins = pinCounter();
  /** segments no longer needed: everything in them is in stored chunks */
  const reclaimRows = async () => {
    await pg.exec("vacuum log_chunks");
    await pg.checkpoint();
  };
  /** false when a backup holds the log's segments (truncated once it is done) */
  const truncateWal = (): boolean => {
    if (!wal) return true;
    if (walPins.pinned()) return false;
    let keep = wal.segment;
    for (const s of byId.values()) {
      if (s.head.length) keep = Math.min(keep, s.headSegment);
      for (const p of s.pending) keep = Math.min(keep, p.segment);
    }
    wal.truncateBefore(keep);
    return true;
  };
  const flush = (all = false) => {
    flushing = flushing.then(async () => {
      const t = now();
      const segments = wal?.segments() ?? [];
      for (const s of byId.values()) {
        // heads are cut when old, or when they hold the oldest of many write-ahead segments
        const pinsOld = segments.length > 8 && s.head.length > 0 && s.headSegment <= segments[0]!;
        if (all || (s.head.length && t - s.headStarted >= maxAge) || pinsOld) cut(s);
      }
      await writePending();
      wal?.maybeRotate();
      truncateWal();
    }).catch((err: unknown) => logger.error("log store flush failed; chunks stay in memory and in the write-ahead log", { err: String(err) }));
    return flushing;
  };

  if (walSource) {
    // everything replayed is stored before new writes arrive, so the old segments can go;
    // a failure here stops startup and leaves the write-ahead log untouched
    for (const st of byId.values()) cut(st);
    await writePending();
    wal = await openWal(walSource);
    wal.truncateBefore(wal.segment);
  }
  /** runs `work` alone after the writes under way (as deleteChunksBefore does) */
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const done = flushing.then(work);
    flushing = done.then(() => undefined, () => undefined);
    return done;
  };
  const rewriter = await createChunkRewriter({ pg, logger, files, streams: () => byId.values(), exclusive, cut, writePending, truncateWal, wal: () => wal, forget, chunkIds });
  // a timed flush is not queued again while one waits or runs (a long flush does not pile them up)
  let timedFlush = false;
  const timer = setInterval(() => {
    if (timedFlush) return;
    timedFlush = true;
    void flush().finally(() => (timedFlush = false));
  }, 1000);
  (timer as { unref?: () => void }).unref?.();

  const sourceOf = async (chunk: ChunkMeta): Promise<ChunkSource | undefined> => {
    if (chunk.at && files) return files.source(chunk.at);
    const r = await pg.query<{ data: Uint8Array | null }>("select data from log_chunks where id = $1", [chunk.id]);
    const data = r.rows[0]?.data;
    return data ? { kind: "bytes", bytes: data } : undefined;
  };

  const corrupt = new Set<number>();
  const reportCorrupt = (chunk: ChunkMeta, reason: string) => {
    if (corrupt.has(chunk.id)) return;
    corrupt.add(chunk.id);
    const s = byId.get(chunk.stream);
    logger.error("log chunk is corrupt; queries skip it", { chunk: chunk.id, tenant: s?.tenant, stream: s?.key, ...(chunk.at ?? {}), reason });
    o.onCorrupt?.(s?.tenant ?? "");
  };

  const loadChunk = async (chunk: ChunkMeta): Promise<Entry[]> => {
    const { id } = chunk;
    const hit = decoded.get(id);
    if (hit) {
      // most recently used last
      decoded.delete(id);
      decoded.set(id, hit);
      return hit.entries;
    }
    let entries: Entry[] = [];
    try {
      const src = await sourceOf(chunk);
      if (src) entries = entriesOf(readSource(src));
    } catch (err) {
      reportCorrupt(chunk, String(err));
      return [];
    }
    cacheDecoded(id, entries);
    return entries;
  };

  /** a chunk not yet written, read: its columns, or its encoded bytes, or (a worker has the columns) once it is done */
  const pendingEntries = (p: Pending): Entry[] | Promise<Entry[]> => {
    if (p.blob) return entriesOf(p.blob);
    // columns still here (a copy went to the worker, or none yet)
    if (p.input && p.input.ts.length === p.count) return entriesOfInput(p.input);
    if (p.encoding) return p.encoding.then(() => pendingEntries(p));
    return [];
  };
  /**
   * a chunk not yet written as a task reads it: its encoded bytes, or a copy of its columns (the
   * columns themselves may be moved to an encoding worker before the query's task is sent: a
   * detached buffer cannot be sent), or once a worker encoding them is done, its bytes
   */
  const pendingSource = async (p: Pending): Promise<ChunkSource | undefined> => {
    if (!p.blob && !(p.input && p.input.ts.length === p.count) && p.encoding) await p.encoding;
    if (p.blob) return { kind: "bytes", bytes: p.blob };
    const c = p.input;
    return c && c.ts.length === p.count ? { kind: "columns", columns: { count: c.count, ts: c.ts.slice(), offsets: c.offsets.slice(), lines: c.lines.slice(), metadata: c.metadata } } : undefined;
  };
  const runsOf = (stream: Stream): Run[] => {
    const runs: Run[] = stream.chunks.map((c) => ({ from: c.from, to: c.to, chunk: c, load: () => loadChunk(c) }));
    for (const p of stream.pending) runs.push({ from: p.from, to: p.to, load: () => pendingEntries(p), source: () => pendingSource(p) });
    const head = stream.head;
    if (head.length) {
      // a snapshot: batches never change once added, so appends and cuts after this do not move it
      const snap = head.snapshot();
      runs.push({
        from: head.from,
        to: head.to,
        load: () => snapshotEntries(snap),
        // queries with stages scan it in a task, as a waiting chunk: its columns (the query's own) move to the worker.
        // Built in a turn of its own (~1 ms a MiB): a query reading a hundred heads must not hold the event loop for all of them
        source: async () => {
          await new Promise((resolve) => setImmediate(resolve));
          const c = snapshotColumns(snap);
          return { kind: "columns", columns: { count: c.count, ts: c.ts, offsets: c.offsets, lines: c.lines, metadata: c.metadata } };
        },
      });
    }
    // runs may overlap in time (out-of-order writes): their rank is their order by oldest entry
    return runs.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : 0));
  };

  return {
    streams: (tenant) => [...(byTenant.get(tenant)?.values() ?? [])],
    find: (tenant, labels) => byTenant.get(tenant)?.get(streamKey(labels)),
    tenants: () => [...byTenant.keys()],
    async stream(tenant, labels) {
      const key = streamKey(labels);
      const found = byTenant.get(tenant)?.get(key);
      if (found) return found;
      const r = await pg.query<{ id: number }>(
        `insert into log_streams (tenant, key, labels, created_at) values ($1, $2, $3, $4)
         on conflict (tenant, md5(key)) do update set key = excluded.key returning id`,
        [tenant, key, labels, now()],
      );
      const again = byTenant.get(tenant)?.get(key);
      if (again) return again;
      const s = newStream(r.rows[0]!.id, tenant, labels, key);
      remember(s);
      return s;
    },
    append(tenant, batch, raw) {
      const recordSeq = ++seq;
      // a full segment is rotated here, not only by a flush: a flush busy encoding a long
      // backlog must not leave one ever-growing segment that nothing can truncate. Before
      // the append, so the heads note the segment that really holds the record.
      if (wal) {
        wal.maybeRotate();
        if (raw) wal.appendRaw(recordSeq, tenant, raw);
        else {
          const record: WalRecord = {
            seq: recordSeq,
            tenant,
            streams: batch.map(({ stream, entries }) => ({
              labels: stream.labels,
              entries: entries.map((e) => (e.metadata ? [tsText(e), e.line, e.metadata] : [tsText(e), e.line])),
            })),
          };
          wal.append(record);
        }
      }
      for (const { stream, entries, packed } of batch) addToHead(stream, entries, recordSeq, wal?.segment ?? 0, packed);
    },
    durable: () => (wal ? wal.durable() : DURABLE),
    chunkSource: (chunk) => sourceOf(chunk),
    admit,
    backlogBytes: () => backlog,
    backlogChunks: () => {
      let n = 0;
      for (const s of byId.values()) n += s.pending.length;
      return n;
    },
    reportCorrupt,
    runs: (stream) => runsOf(stream),
    scan: (stream, from, to, backward, visit) => mergeLanes([{ runs: runsOf(stream) }], from, to, backward, (_, e) => visit(e)),
    flush: (all) => flush(all),
    pinForBackup() {
      const releaseWal = walPins.hold();
      const releaseFiles = files?.pin();
      return {
        files: () => [...filesIn(o.walDir, /^\d{8}\.wal$/), ...filesIn(o.chunkDir, /^\d{8}\.seg$/)],
        release() {
          releaseFiles?.();
          releaseWal();
          truncateWal();
        },
      };
    },
    rewriter,
    pendingUnlinkBytes: () => files?.pendingUnlinkBytes() ?? 0,
    reclaimSpace() {
      const done = flushing.then(reclaimRows);
      flushing = done.then(() => undefined, () => undefined);
      return done;
    },
    deleteChunksBefore(tenant, before, reclaim = true) {
      // after the writes under way, so a chunk being committed is deleted with its row or not at all
      const done = flushing.then(async () => {
        const r = await pg.query<{ id: string; stream_id: number }>(
          "delete from log_chunks where tenant = $1 and to_ns < $2 returning id::text, stream_id",
          [tenant, String(before)],
        );
        const gone = new Set(r.rows.map((row) => Number(row.id)));
        for (const row of r.rows) {
          const s = byId.get(row.stream_id);
          if (!s) continue;
          for (const c of s.chunks) if (gone.has(c.id) && c.at) files?.delete(c.at);
          s.chunks = s.chunks.filter((c) => !gone.has(c.id));
        }
        for (const id of gone) forget(id);
        // the freed rows (PGlite runs no autovacuum; format 1 rows carry their bytes) and the database's
        // own write-ahead log: reclaimed now, not at its next timed checkpoint
        if (gone.size && reclaim) await reclaimRows();
        return gone.size;
      });
      flushing = done.then(() => undefined, () => undefined);
      return done;
    },
    async close() {
      clearInterval(timer);
      await flush(true);
      await flushing;
      // everything in committed chunks: the write-ahead log holds nothing a restart needs
      const stored = [...byId.values()].every((st) => !st.head.length && !st.pending.length) && !walPins.pinned();
      if (stored) wal?.clear();
      else {
        wal?.close();
        truncateWal();
      }
      // a log in the database: its last appends and truncations are sent before the connection closes
      await wal?.durable();
      await files?.close();
    },
  };
}
