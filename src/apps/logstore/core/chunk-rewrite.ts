// Taking lines out of what the log store holds (delete requests,
// deletion/process.ts), so that they are gone from queries and from disk:
//
//   - settle: the heads of the streams concerned are cut and every chunk
//     waiting is written, so all their entries are in stored chunks (whose
//     rows name the write-ahead records they hold: a restart replays none of
//     them);
//   - replace: stored chunks are swapped for their rewritten bytes (or
//     dropped when every line goes): new bytes appended and fsynced, the old
//     rows deleted and the new ones inserted in one transaction;
//   - seal: the write-ahead log starts a new segment and every head is
//     written to chunks, so the old segments (which hold the deleted lines as
//     they were pushed) are deleted; then each chunk segment file that held a
//     replaced chunk beside live chunks of other streams has those copied to
//     a new segment, so the old file goes after the grace period queries get
//     (chunk-store.ts UNLINK_GRACE_MS) or at the next clean stop or start.
//
// Every step runs alone after the store's writes under way (the store's
// `exclusive`), as retention does, so a chunk is never replaced while it is
// being written or deleted.
import type { Sql } from "../../../db/sql.ts";
import { setImmediate } from "node:timers";
import type { Logger } from "../../../lib/logger.ts";
import type { ChunkLocation, ChunkStore } from "./chunk-store.ts";
import { readSource } from "./columns.ts";
import type { ChunkMeta, Stream } from "./store.ts";
import type { Wal } from "./wal.ts";

/** a stored chunk and what a delete request leaves of it */
export interface ChunkChange {
  chunk: ChunkMeta;
  /** the kept entries encoded; undefined: every entry goes and the chunk is deleted */
  blob?: Uint8Array | undefined;
  /** entries deleted, and their size as chunk sizes count it */
  removed: number;
  removedBytes: number;
  /** the kept entries' time bounds (with `blob`) */
  from?: bigint | undefined;
  to?: bigint | undefined;
}

export interface ChunkRewriter {
  /** cuts the heads of `streams` holding entries in [from, to] and writes every chunk waiting */
  settle(streams: readonly Stream[], from: bigint, to: bigint): Promise<void>;
  /** replaces chunks of `stream` (those still stored); resolves with the entries deleted */
  replace(stream: Stream, changes: readonly ChunkChange[]): Promise<number>;
  /**
   * `wal`: starts the write-ahead log over (lines were deleted); then compacts the segments holding
   * replaced chunks. False when a backup held the log's old segments: they still hold the lines
   */
  seal(wal: boolean): Promise<boolean>;
  /** whether segment files wait to be compacted */
  pending(): boolean;
}

/** what the store lends the rewriter (store.ts) */
export interface RewriteInternals {
  pg: Sql;
  logger: Logger;
  /** undefined: chunk bytes are in the rows (in memory) */
  files: ChunkStore | undefined;
  streams(): Iterable<Stream>;
  /** runs `work` alone, after the writes under way */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  cut(s: Stream): void;
  writePending(): Promise<void>;
  /** false when a backup holds the log's segments */
  truncateWal(): boolean;
  wal(): Wal | undefined;
  /** drops a chunk from the store's decoded cache */
  forget(id: number): void;
  chunkIds(n: number): Promise<number[]>;
}

/** live chunks copied out of a segment in one step: bytes read on the event loop, then one write and one transaction */
const COPY_GROUP_BYTES = 4 * 1024 * 1024;
const COPY_GROUP_CHUNKS = 64;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function createChunkRewriter(s: RewriteInternals): Promise<ChunkRewriter> {
  const { pg, files } = s;
  // segments holding bytes of replaced chunks beside live ones (a restart finishes their compaction)
  const dirty = new Set<number>((await pg.query<{ segment: number }>("select segment from log_segments_to_compact")).rows.map((r) => r.segment));
  // a replaced chunk of a data dir had its bytes in its row (format 1, written before chunk files): the table is rewritten
  let rowBytesReplaced = false;

  const replace = (stream: Stream, changes: readonly ChunkChange[]) =>
    s.exclusive(async () => {
      // retention or the disk cap may have deleted some meanwhile
      const live = changes.filter((ch) => stream.chunks.includes(ch.chunk));
      if (!live.length) return 0;
      const rewritten = live.filter((ch) => ch.blob);
      const places = files && rewritten.length ? await files.put(rewritten.map((ch) => ch.blob!)) : undefined;
      const ids = await s.chunkIds(rewritten.length);
      const segments = [...new Set(live.flatMap((ch) => (ch.chunk.at ? [ch.chunk.at.segment] : [])))];
      await pg.transaction(async (tx) => {
        const gone = await tx.query<{ id: string; last_seq: string }>("delete from log_chunks where id = any($1::bigint[]) returning id::text, last_seq::text", [live.map((ch) => String(ch.chunk.id))]);
        // a rewritten chunk holds the same write-ahead records as before
        const lastSeq = new Map(gone.rows.map((r) => [Number(r.id), r.last_seq]));
        if (rewritten.length) {
          await tx.query(
            `insert into log_chunks (id, stream_id, tenant, from_ns, to_ns, lines, bytes, last_seq, data, segment, seg_offset, seg_length)
             select * from unnest($1::bigint[], $2::int[], $3::text[], $4::bigint[], $5::bigint[], $6::int[], $7::bigint[], $8::bigint[], $9::text[]::bytea[], $10::int[], $11::bigint[], $12::int[])`,
            [
              ids.map(String),
              rewritten.map(() => stream.id),
              rewritten.map(() => stream.tenant),
              rewritten.map((ch) => String(ch.from)),
              rewritten.map((ch) => String(ch.to)),
              rewritten.map((ch) => ch.chunk.lines - ch.removed),
              rewritten.map((ch) => String(Math.max(0, ch.chunk.bytes - ch.removedBytes))),
              rewritten.map((ch) => lastSeq.get(ch.chunk.id) ?? "0"),
              // bytea travels as hex text (as the metrics store writes its chunks)
              rewritten.map((ch, i) => (places?.[i] ? null : `\\x${Buffer.from(ch.blob!.buffer, ch.blob!.byteOffset, ch.blob!.byteLength).toString("hex")}`)),
              rewritten.map((_, i) => places?.[i]?.segment ?? null),
              rewritten.map((_, i) => (places?.[i] ? String(places[i].offset) : null)),
              rewritten.map((_, i) => places?.[i]?.length ?? null),
            ],
          );
        }
        if (segments.length) await tx.query("insert into log_segments_to_compact (segment) select unnest($1::int[]) on conflict do nothing", [segments]);
      });
      // the same order as before: each new chunk where its old one was
      const next = new Map<ChunkMeta, ChunkMeta | undefined>();
      live.forEach((ch) => next.set(ch.chunk, undefined));
      rewritten.forEach((ch, i) => {
        const at = places?.[i];
        if (at) files!.commit(at);
        next.set(ch.chunk, { id: ids[i]!, stream: stream.id, from: ch.from!, to: ch.to!, lines: ch.chunk.lines - ch.removed, bytes: Math.max(0, ch.chunk.bytes - ch.removedBytes), at });
      });
      stream.chunks = stream.chunks.flatMap((c) => (next.has(c) ? (next.get(c) ? [next.get(c)!] : []) : [c]));
      for (const ch of live) {
        s.forget(ch.chunk.id);
        if (ch.chunk.at) files?.delete(ch.chunk.at);
        else if (files) rowBytesReplaced = true;
      }
      for (const seg of segments) dirty.add(seg);
      return live.reduce((n, ch) => n + ch.removed, 0);
    });

  /** the write-ahead log from now on only: every head written, the older segments deleted */
  const restartWal = () =>
    s.exclusive(async () => {
      // in one turn: every record so far is in a head cut here or in a stored chunk
      s.wal()?.rotate();
      for (const st of s.streams()) s.cut(st);
      await s.writePending();
      return s.truncateWal();
    });

  /** the live chunks of the dirty segments, with their streams */
  const liveIn = (segments: ReadonlySet<number>) => {
    const out: Array<{ stream: Stream; chunk: ChunkMeta & { at: ChunkLocation } }> = [];
    for (const stream of s.streams()) for (const chunk of stream.chunks) if (chunk.at && segments.has(chunk.at.segment)) out.push({ stream, chunk: chunk as ChunkMeta & { at: ChunkLocation } });
    return out;
  };

  /** copies a group of live chunks to the current segment and points their rows there */
  const copyGroup = (group: ReadonlyArray<{ stream: Stream; chunk: ChunkMeta & { at: ChunkLocation } }>) =>
    s.exclusive(async () => {
      const moving: Array<{ chunk: ChunkMeta & { at: ChunkLocation }; bytes: Uint8Array }> = [];
      for (const { stream, chunk } of group) {
        // gone meanwhile (retention), or moved already
        if (!stream.chunks.includes(chunk) || !dirty.has(chunk.at.segment)) continue;
        try {
          moving.push({ chunk, bytes: readSource(files!.source(chunk.at)) });
        } catch (err) {
          s.logger.warn("a log chunk could not be read to compact its segment; the segment stays", { chunk: chunk.id, segment: chunk.at.segment, err: String(err) });
        }
      }
      if (!moving.length) return;
      const places = await files!.put(moving.map((m) => m.bytes));
      await pg.query(
        `update log_chunks as c set segment = v.segment, seg_offset = v.seg_offset, seg_length = v.seg_length
         from unnest($1::bigint[], $2::int[], $3::bigint[], $4::int[]) as v(id, segment, seg_offset, seg_length) where c.id = v.id`,
        [moving.map((m) => String(m.chunk.id)), places.map((p) => p.segment), places.map((p) => String(p.offset)), places.map((p) => p.length)],
      );
      moving.forEach(({ chunk }, i) => {
        const old = chunk.at;
        chunk.at = places[i]!;
        files!.commit(places[i]!);
        files!.delete(old);
      });
    });

  const compact = async () => {
    if (!dirty.size) return;
    const segments = new Set(dirty);
    if (files) {
      // the copies go to a new segment (a dirty segment may be the one being written)
      await s.exclusive(() => files.rotate());
      const live = liveIn(segments);
      let group: typeof live = [];
      let bytes = 0;
      for (const item of live) {
        group.push(item);
        bytes += item.chunk.at.length;
        if (group.length >= COPY_GROUP_CHUNKS || bytes >= COPY_GROUP_BYTES) {
          await copyGroup(group);
          await nextTurn();
          group = [];
          bytes = 0;
        }
      }
      if (group.length) await copyGroup(group);
    }
    // a segment whose chunks could not all be copied stays to be tried again
    const left = new Set(files ? liveIn(segments).map((l) => l.chunk.at.segment) : []);
    const done = [...segments].filter((seg) => !left.has(seg));
    if (done.length) await pg.query("delete from log_segments_to_compact where segment = any($1::int[])", [done]);
    for (const seg of done) dirty.delete(seg);
  };

  return {
    settle: (streams, from, to) =>
      s.exclusive(async () => {
        for (const st of streams) if (st.head.length && st.head.to >= from && st.head.from <= to) s.cut(st);
        await s.writePending();
        s.truncateWal();
      }),
    replace,
    async seal(wal) {
      const restarted = wal && s.wal() ? await restartWal() : true;
      await compact();
      // the rows' old versions: a format 1 row held its chunk's bytes, so the table's file is written
      // anew (VACUUM FULL) rather than its space marked free; then the database's own log moves on
      const full = rowBytesReplaced;
      rowBytesReplaced = false;
      await s.exclusive(async () => {
        await pg.exec(full ? "vacuum full log_chunks" : "vacuum log_chunks");
        await pg.checkpoint();
      });
      return restarted;
    },
    pending: () => dirty.size > 0,
  };
}
