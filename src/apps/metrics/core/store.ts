// The metrics store's storage engine: a head per tenant in memory (head.ts),
// XOR chunks written to PGlite in batches, a write-ahead log holding every
// acknowledged push, and checkpoints of the heads (checkpoint.ts) after which
// the log's older segments go. On start, the newest checkpoint is read (or,
// without one, the series index is loaded from the database) and the log's
// segments from the checkpoint's on are replayed.
import type { Sql } from "../../../db/sql.ts";
import { copyFileSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { filesIn, pinCounter, type BackupPin } from "../../../lib/backup-pin.ts";
import type { Logger } from "../../../lib/logger.ts";
import { createTimeSlicer } from "../../../lib/time-slice.ts";
import { collectGarbage, collectYoung, memoryPacer } from "../../../platform/memory.ts";
import { fileWalSource, type SegmentWal, type WalSource } from "../../../lib/segment-wal.ts";
import { createRwLock } from "../../../lib/rw-lock.ts";
import { CheckpointError, listCheckpoints, readCheckpoint } from "./checkpoint.ts";
import { fileCheckpoints, type CheckpointPlace } from "./checkpoint-place.ts";

const DURABLE = Promise.resolve();
import { insertChunkRows } from "./chunk-rows.ts";
import { createDeletion, type DeleteOutcome, type Deletion, type ReplayedDeletions } from "./deletion.ts";
import { isDeletionRecord } from "./deletion-log.ts";
import { addChunk, closedMirror, cutChunk, matchesRest, NO_CHUNKS, type ClosedChunk, dropFlushedBefore, inMemoryFrom, isStaleAt, KEEP_FLUSHED_MS, openMirror, openSamples, STALE_HI, STALE_LO, TenantHead, WORD_HI, type HeadSeries, type Mirror } from "./head.ts";
export type { DeleteOutcome } from "./deletion.ts";
import { labelsHash } from "./label-hash.ts";
import { checkDeadline, chunkBytesLimitError, holdSamples, QUERY_SLICE_MS, seriesLimitError, type QueryBudget } from "./query-budget.ts";
import { replayWriteRequest, uncompressBody } from "./remote-write.ts";
import type { Labels, Matcher, SampleQuerier, SelectHints, SeriesSamples } from "./types.ts";
import { decodeXorChunkBits, xorChunkSamples } from "./xor-chunk.ts";

export interface MetricsStoreOptions {
  pg: Sql;
  logger: Logger;
  /** where the write-ahead log lives; none keeps everything in memory only (unless `walSource`) */
  walDir?: string | undefined;
  /** the log and checkpoints kept elsewhere than walDir's files: the database, for nodes sharing one */
  walSource?: WalSource | undefined;
  checkpoints?: CheckpointPlace | undefined;
  now: () => number;
  /** how often closed chunks are written to the database (ms) */
  flushInterval?: number;
  /** an open chunk older than this is cut and written even if not full (ms) */
  chunkMaxAge?: number;
  /** a checkpoint is written once the log has grown this much since the last one (bytes) */
  checkpointWalBytes?: number;
  /** ... or this long after the last one, when the log has grown at all (ms) */
  checkpointInterval?: number;
}

export { newBudget, type QueryBudget } from "./query-budget.ts";

export interface MetricsStore {
  /** the tenant's head, created on first use */
  head(tenant: string): TenantHead;
  peek(tenant: string): TenantHead | undefined;
  tenants(): string[];
  /** starts a new write-ahead segment when the current one is full */
  walSegment(): number;
  /** appends a record (a snappy WriteRequest of what was accepted) before the push is acknowledged */
  logWrite(tenant: string, body: Uint8Array): void;
  /** resolves once every record logged so far is in the write-ahead log for good (a push is acknowledged after it) */
  durable(): Promise<void>;
  querier(tenant: string, budget: QueryBudget): SampleQuerier;
  /** writes closed (and, with `all`, open) chunks to the database */
  flush(all?: boolean): Promise<void>;
  /** writes a checkpoint of the heads now (or waits for the one being written); the log's older segments go */
  checkpoint(): Promise<void>;
  /**
   * Writes no checkpoint (so deletes no checkpoint or write-ahead segment)
   * until released, once the one under way is done: a backup copies them.
   * The newest checkpoint, the segments from the one it names, and the
   * database as it is at any later moment are what a crash then would leave,
   * which a start recovers from.
   */
  pinForBackup(): Promise<BackupPin>;
  /**
   * deletes chunks whose newest sample is older than `cutoff` (ms), every tenant's, and series left
   * with nothing; returns the chunks deleted (their space is reusable after reclaimSpace)
   */
  deleteBefore(cutoff: number): Promise<number>;
  /** marks the space of deleted chunk rows reusable (PGlite runs no autovacuum) and checkpoints */
  reclaimSpace(): Promise<void>;
  /** retention: deletes each tenant's chunks whose newest sample is older than its cutoff (ms); returns the chunks deleted by tenant */
  applyRetention(cutoffs: ReadonlyMap<string, number>): Promise<Map<string, number>>;
  /**
   * delete_series: the samples in [mint, maxt] (ms) of a tenant's series
   * matching any of the matcher sets, from memory and the database (and, for
   * a replay, logged); series left with none are removed
   */
  deleteSeries(tenant: string, matcherSets: readonly Matcher[][], mint: number, maxt: number): Promise<DeleteOutcome>;
  close(): Promise<void>;
}

const FLUSH_BATCH = 2000;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * the log's growth after which a checkpoint is written (replaying it takes a
 * few seconds), or the last checkpoint's size when that is more: a
 * checkpoint's cost grows with the heads, so a big head is checkpointed less
 * often and writing checkpoints never takes more than a set share of the
 * time ingest takes (replaying then takes about as long as reading the
 * checkpoint)
 */
const CHECKPOINT_WAL_BYTES = 64 * 1024 * 1024;
const CHECKPOINT_INTERVAL = 5 * 60_000;
/** the longest a checkpoint written while serving holds the event loop at once (ms) */
const CHECKPOINT_SLICE_MS = 15;
/** after a checkpoint failed (a full disk), the next one is not tried sooner (ms) */
const CHECKPOINT_RETRY_MS = 60_000;

export async function openMetricsStore(o: MetricsStoreOptions): Promise<MetricsStore> {
  // without it a deleted chunk's row keeps its space for good: the table only grows
  const reclaimSpace = async () => {
    await o.pg.exec("vacuum metrics_chunks");
    await o.pg.checkpoint();
  };
  let heads = new Map<string, TenantHead>();
  const head = (tenant: string) => {
    let h = heads.get(tenant);
    if (!h) heads.set(tenant, (h = new TenantHead(tenant)));
    return h;
  };
  const started = performance.now();
  let from = 0;
  let fromCheckpoint = false;
  /** the size of the newest checkpoint (bytes) */
  let checkpointBytes = 0;
  const walSource = o.walSource ?? (o.walDir ? fileWalSource(o.walDir) : undefined);
  const place = o.checkpoints ?? (o.walDir ? fileCheckpoints(o.walDir) : undefined);
  const newest = place ? await place.newest() : undefined;
  if (newest) {
    try {
      const loaded = readCheckpoint(newest.file, head);
      checkpointBytes = loaded.bytes;
      from = loaded.segment;
      fromCheckpoint = true;
      o.logger.info("metrics store checkpoint read", { file: newest.file, series: loaded.series, ms: Math.round(performance.now() - started) });
    } catch (err) {
      // what is intact: the database and the log's segments left
      heads = new Map();
      o.logger.error("metrics store checkpoint cannot be read: recovering from the database and the write-ahead log; samples of the heads older than the log's oldest segment may be missing", {
        file: newest.file, err: err instanceof CheckpointError ? err.message : String(err),
      });
    } finally {
      newest.done();
    }
  }
  if (!fromCheckpoint) await loadIndex(o.pg, head);

  let wal: SegmentWal | undefined;
  let closing = false;
  /** flushes and checkpoints share the store; deletions (delete_series, retention) have it alone, a batch at a time */
  const lock = createRwLock();
  const deletion = createDeletion({ pg: o.pg, log: (payload) => wal?.append(payload), stopping: () => closing, exclusive: lock.exclusive });
  /** the database's part of the deletions a replay met */
  const replayedDeletions: ReplayedDeletions = new Map();
  let replayed = 0;
  if (walSource) {
    const t0 = performance.now();
    const r = await replay(walSource, from, head, o.now(), deletion, replayedDeletions);
    replayed = r.records;
    for (const p of r.problems) {
      // the next checkpoint deletes the segment: a copy is kept for the operator
      const file = join(walSource.dir ?? "", `${String(p.segment).padStart(8, "0")}.wal`);
      const copy = `${file}.damaged`;
      if (walSource.dir && existsSync(file) && !existsSync(copy)) copyFileSync(file, copy);
      o.logger.error("metrics store write-ahead segment damaged: what it holds past the damage is not replayed; a copy is kept", { segment: p.segment, problem: p.problem, copy });
    }
    if (replayed) o.logger.info("metrics store write-ahead log replayed", { records: replayed, samples: r.samples, ms: Math.round(performance.now() - t0) });
    // the segments replayed stay until the next checkpoint holds what they hold. New records go to a
    // segment from the newest checkpoint's on: after a clean stop (a checkpoint, no segment left) the
    // numbers started again at 1, below the checkpoint's, and a crash then lost what they held
    wal = await walSource.open(newest?.segment ?? 1);
    // a crash may have cut a deletion short in the database: done again (before the checkpoint after the replay)
    if (replayedDeletions.size > 0) await deletion.finishReplay(heads, replayedDeletions);
  }
  for (const h of heads.values()) h.recomputeMinT();

  let flushing: Promise<void> | undefined;
  const flush = (all = false) => {
    const run = async () => {
      if (flushing) await flushing.catch(() => {});
      await lock.shared(() => flushHeads(o.pg, heads.values(), all, o.now(), o.chunkMaxAge ?? 30 * 60_000));
    };
    const p = run();
    flushing = p;
    return p;
  };

  let checkpointing: Promise<boolean> | undefined;
  /** backups copying the checkpoint and the log: no checkpoint meanwhile */
  const pins = pinCounter();
  let lastCheckpoint = { written: 0, at: Date.now() };
  /** no checkpoint is due before this (Date.now() ms): set when one failed */
  let retryAt = 0;
  const checkpointWalBytes = o.checkpointWalBytes ?? CHECKPOINT_WAL_BYTES;
  const checkpointInterval = o.checkpointInterval ?? CHECKPOINT_INTERVAL;
  const checkpoint = (sliceMs = CHECKPOINT_SLICE_MS): Promise<boolean> => {
    if (!wal || !place || pins.pinned()) return Promise.resolve(false);
    if (checkpointing) return checkpointing;
    const log = wal;
    const at = place;
    // not during a deletion's batch: the segments it truncates may hold records whose database part is not done
    const run = () => lock.shared(async () => {
      // every record before this segment is in the heads now
      const segment = log.rotate();
      const written = log.written;
      const t0 = performance.now();
      const done = await at.write(segment, heads.values(), { sliceMs });
      lastCheckpoint = { written, at: Date.now() };
      checkpointBytes = done.bytes;
      await at.removeBefore(segment);
      log.truncateBefore(segment);
      o.logger.debug("metrics store checkpoint written", { segment, series: done.series, bytes: done.bytes, ms: Math.round(performance.now() - t0) });
    });
    const p = run()
      .then(() => true)
      .catch((err: unknown) => {
        // not tried again at every push: each try starts a segment
        retryAt = Date.now() + CHECKPOINT_RETRY_MS;
        o.logger.error("writing a metrics store checkpoint failed; the write-ahead log is kept; trying again in a minute", { err: String(err) });
        return false;
      })
      .finally(() => (checkpointing = undefined));
    checkpointing = p;
    return p;
  };
  /** whether the log has grown enough since the last checkpoint for the next */
  const grownEnough = (log: SegmentWal) => log.written - lastCheckpoint.written >= Math.max(checkpointWalBytes, checkpointBytes);
  const checkpointDue = () =>
    !!wal && !checkpointing && !pins.pinned() && Date.now() >= retryAt && (grownEnough(wal) || (wal.written > lastCheckpoint.written && Date.now() - lastCheckpoint.at >= checkpointInterval));
  // what was replayed is written to a checkpoint before the store serves (at once: nothing waits
  // yet), so its segments go and a next crash replays nothing of them; a data dir without a
  // checkpoint (an older release's) gets one too
  if (wal && (replayed > 0 || (!fromCheckpoint && heads.size > 0))) await checkpoint(0);
  // what reading the checkpoint and the segments and writing the new one left behind (their bytes,
  // decoded labels) is garbage now: collected before the store serves, so it starts no bigger than it ran
  if (fromCheckpoint || replayed) collectGarbage();
  o.logger.info("metrics store ready", {
    series: [...heads.values()].reduce((n, h) => n + h.seriesCount, 0),
    ms: Math.round(performance.now() - started),
    rssMiB: Math.round(process.memoryUsage.rss() / 1048576),
  });
  const timer = setInterval(() => {
    flush().catch((err: unknown) => o.logger.error("writing metrics chunks failed; retrying", { err: String(err) }));
    if (checkpointDue()) void checkpoint();
  }, o.flushInterval ?? 10_000);
  (timer as { unref?: () => void }).unref?.();

  return {
    head,
    peek: (tenant) => heads.get(tenant),
    tenants: () => [...heads.keys()],
    walSegment: () => (wal ? wal.maybeRotate() : 1),
    logWrite(tenant, body) {
      if (!wal) return;
      const name = encoder.encode(tenant);
      const payload = new Uint8Array(2 + name.length + body.length);
      payload[0] = name.length >> 8;
      payload[1] = name.length & 0xff;
      payload.set(name, 2);
      payload.set(body, 2 + name.length);
      wal.append(payload);
      if (grownEnough(wal) && !checkpointing && Date.now() >= retryAt) setImmediate(() => checkpointDue() && void checkpoint());
    },
    durable: () => (wal ? wal.durable() : DURABLE),
    querier: (tenant, budget) => createQuerier(o.pg, heads.get(tenant), tenant, budget),
    flush,
    checkpoint: async () => {
      await checkpoint();
    },
    async pinForBackup() {
      const release = pins.hold();
      await checkpointing;
      const dir = o.walDir;
      return {
        files() {
          const newest = dir ? listCheckpoints(dir)[0] : undefined;
          const from = newest?.segment ?? 0;
          const segments = filesIn(dir, /^\d{8}\.wal$/).filter((f) => Number(f.path.slice(-12, -4)) >= from);
          return [...(newest ? filesIn(dir, /^checkpoint\.\d{8}$/).filter((f) => f.path === newest.file) : []), ...segments];
        },
        release,
      };
    },
    async deleteBefore(cutoff) {
      const deleted = await deletion.deleteBefore(heads, new Map([...heads.keys()].map((tenant) => [tenant, cutoff])));
      let n = 0;
      for (const chunks of deleted.values()) n += chunks;
      return n;
    },
    reclaimSpace,
    async applyRetention(cutoffs) {
      const deleted = await deletion.deleteBefore(heads, cutoffs);
      if ([...deleted.values()].some((n) => n > 0)) await reclaimSpace();
      return deleted;
    },
    async deleteSeries(tenant, matcherSets, mint, maxt) {
      const h = heads.get(tenant);
      if (!h) return { series: 0, samples: 0, chunks: 0, removedSeries: 0 };
      const r = await deletion.deleteSeries(h, matcherSets, mint, maxt);
      if (r.chunks > 0) await reclaimSpace();
      return r;
    },
    async close() {
      clearInterval(timer);
      // a deletion stops after the batch it is in
      closing = true;
      await lock.exclusive(async () => {});
      if (!wal) {
        // no data dir: the database is in memory and goes with the process; only what flush() is running finishes
        await flushing?.catch(() => {});
        return;
      }
      await checkpointing;
      // closed chunks to the database; the open ones, and every series, to a final checkpoint:
      // the next start replays nothing
      await flush(false).catch((err: unknown) => o.logger.error("writing metrics chunks failed; the checkpoint keeps them", { err: String(err) }));
      if (await checkpoint(0)) wal.clear();
      else wal.close();
      // a log in the database: its last appends and truncations are sent before the connection closes
      await wal.durable();
    },
  };
}

async function loadIndex(pg: Sql, head: (tenant: string) => TenantHead): Promise<void> {
  const series = await pg.query<{ tenant: string; id: number; labels: Labels }>("select tenant, id, labels from metrics_series order by tenant, id");
  for (const r of series.rows) {
    head(r.tenant).addSeriesOf(r.labels, r.id);
  }
  const spans = await pg.query<{ tenant: string; series_id: number; min_t: string; max_t: string }>(
    "select tenant, series_id, min(min_t)::text as min_t, max(max_t)::text as max_t from metrics_chunks group by tenant, series_id",
  );
  for (const r of spans.rows) {
    const h = head(r.tenant);
    const s = h.byId.get(r.series_id);
    if (!s) continue;
    s.firstT = Number(r.min_t);
    s.persistedMaxT = s.lastT = Number(r.max_t);
    // its newest value is in a chunk in the database
    s.lastKnown = false;
    if (s.lastT > h.maxT) h.maxT = s.lastT;
  }
}

/**
 * Re-applies the logged pushes of segments `from` on: every one was accepted
 * when logged. Samples the heads hold already (from a checkpoint, or the
 * database) are skipped: a sample not after its series' newest is never
 * appended twice. Series are found by their labels' raw bytes after the
 * first time, as pushes find them.
 */
async function replay(source: WalSource, from: number, head: (tenant: string) => TenantHead, now: number, deletion: Deletion, deletions: ReplayedDeletions) {
  let records = 0;
  let samples = 0;
  const damaged: Array<{ segment: number; records: number; first: string }> = [];
  // the records' decoded bytes are garbage at once: given back as the replay goes, not all at its end
  const release = memoryPacer(32 * 1024 * 1024, 50, collectYoung);
  /** what each record is decoded into (grown to the largest) */
  let scratch = new Uint8Array(1 << 20);
  const problems = await source.read(from, (payload, segment) => {
    records++;
    release(payload.length * 4);
    try {
      replayRecord(payload);
    } catch (err) {
      const last = damaged.at(-1);
      if (last?.segment === segment) last.records++;
      else damaged.push({ segment, records: 1, first: (err as Error).message });
    }
  });
  function replayRecord(payload: Uint8Array): void {
    // a deletion (delete_series, retention): taken out of the heads at its place among the pushes
    if (isDeletionRecord(payload)) return deletion.replay(payload, head, deletions);
    const len = (payload[0]! << 8) | payload[1]!;
    const tenant = decoder.decode(payload.subarray(2, 2 + len));
    const h = head(tenant);
    // no limit: it was accepted under the limit of its day, and the decoder allocates at most 22x the record;
    // decoded into one buffer for every record (walked at once, then done with), not one each
    const raw = uncompressBody(payload.subarray(2 + len), Number.POSITIVE_INFINITY, scratch);
    if (raw.buffer !== scratch.buffer) scratch = new Uint8Array(raw.buffer);
    replayWriteRequest<HeadSeries>(raw, {
      known: (rawKey, check) => h.findRaw(rawKey, check),
      make(rawKey, check, pairs) {
        const labels = pairs.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        const hash = labelsHash(labels);
        const s = h.find(labels, hash) ?? h.addSeries(labels, undefined, hash);
        h.setRaw(rawKey, check, s);
        return s;
      },
      sample(s, t, v, stale) {
        if (t > s.persistedMaxT && h.append(s, t, v, now, stale) === "ok") {
          h.activate(s, now);
          samples++;
        }
      },
    });
  }
  const unreadable = damaged.map((d) => ({ segment: d.segment, problem: `${d.records} record(s) cannot be read and were skipped (the first: ${d.first})` }));
  return { records, samples, problems: [...problems, ...unreadable] };
}

interface PendingChunk {
  tenant: string;
  series: HeadSeries;
  index: number;
}

async function flushHeads(pg: Sql, heads: Iterable<TenantHead>, all: boolean, now: number, maxAge: number): Promise<void> {
  const chunks: PendingChunk[] = [];
  const newSeries: Array<{ tenant: string; s: HeadSeries }> = [];
  for (const h of heads) {
    for (const s of h.byId.values()) {
      if (s.flushed.length) dropFlushedBefore(s, h.maxT - KEEP_FLUSHED_MS);
      if (openSamples(s) && (all || now - s.openedAt >= maxAge)) cutChunk(s);
      if (s.closed.length === 0) continue;
      if (!s.persisted) newSeries.push({ tenant: h.tenant, s });
      for (let i = 0; i < s.closed.length; i++) chunks.push({ tenant: h.tenant, series: s, index: i });
    }
  }
  if (chunks.length === 0) return;
  await pg.transaction(async (tx) => {
    for (let i = 0; i < newSeries.length; i += FLUSH_BATCH) {
      const batch = newSeries.slice(i, i + FLUSH_BATCH);
      await tx.query(
        "insert into metrics_series (tenant, id, labels) select * from unnest($1::text[], $2::int[], $3::jsonb[]) on conflict do nothing",
        [batch.map((b) => b.tenant), batch.map((b) => b.s.id), batch.map((b) => JSON.stringify(b.s.labels))],
      );
    }
    for (let i = 0; i < chunks.length; i += FLUSH_BATCH) {
      const rows = chunks.slice(i, i + FLUSH_BATCH).map((c) => {
        const chunk = c.series.closed[c.index]!;
        return { tenant: c.tenant, seriesId: c.series.id, minT: chunk.minT, maxT: chunk.maxT, samples: chunk.samples, data: chunk.data };
      });
      await insertChunkRows(tx, rows);
    }
  });
  // the flushed chunks are the first ones of each series (new ones are only ever appended)
  const flushed = new Map<HeadSeries, number>();
  for (const c of chunks) flushed.set(c.series, Math.max(flushed.get(c.series) ?? 0, c.index + 1));
  for (const { s } of newSeries) s.persisted = true;
  for (const [s, n] of flushed) {
    const written = s.closed.splice(0, n);
    if (s.closed.length === 0) s.closed = NO_CHUNKS;
    for (const chunk of written) if (chunk.maxT > s.persistedMaxT) s.persistedMaxT = chunk.maxT;
    addChunk(s, "flushed", ...written);
  }
}

const clampTime = (ms: number): number => Math.min(Number.MAX_SAFE_INTEGER, Math.max(-Number.MAX_SAFE_INTEGER, ms));

/**
 * what select gives for one series: its samples t[lo..hi), v[lo..hi) in
 * columns that may hold more (a chunk's mirror, or columns shared by the
 * series of one select), and its stale marks indexed as t
 */
interface Found extends SeriesSamples {
  lo: number;
  hi: number;
  stale: Uint8Array | null;
}

function createQuerier(pg: Sql, h: TenantHead | undefined, tenant: string, budget: QueryBudget): SampleQuerier {
  return {
    sortsSeries: true,
    async select(matchers: Matcher[], anyMint: number, anyMaxt: number, hints?: SelectHints): Promise<SeriesSamples[]> {
      const lastOnly = hints?.lastOnly === true;
      if (!h) return [];
      // whole ms within what JavaScript and a bigint column both hold: an @ or offset
      // far beyond any sample must select nothing, never fail the database query
      const mint = clampTime(Math.floor(anyMint));
      const maxt = clampTime(Math.ceil(anyMaxt));
      if (Number.isNaN(mint) || Number.isNaN(maxt) || maxt < mint) return [];
      // in label order, as Prometheus's Select(sortSeries=true)
      const matched = h.sortByLabels(h.select(matchers).filter((s) => s.firstT <= maxt && s.lastT >= mint));
      budget.series += matched.length;
      if (budget.maxSeries > 0 && budget.series > budget.maxSeries) throw seriesLimitError(budget.maxSeries);
      // the head part is decoded first: a flush may move it to the database meanwhile (duplicates are skipped below)
      const fromHead = decodeHead(matched, mint, maxt, budget, lastOnly);
      const fromDb = new Map<number, Uint8Array[]>();
      const inDb: number[] = [];
      // only what memory no longer holds is read from the database (none when memory holds the series' oldest sample)
      for (const s of matched) {
        const from = inMemoryFrom(s);
        if (s.persistedMaxT >= mint && mint < from && s.firstT < from) inDb.push(s.id);
      }
      if (inDb.length) {
        const rows = await pg.query<{ series_id: number; data: Uint8Array }>(
          "select series_id, data from metrics_chunks where tenant = $1 and series_id = any($2::int[]) and max_t >= $3 and min_t <= $4 order by series_id, min_t",
          [tenant, inDb, mint, maxt],
        );
        for (const r of rows.rows) {
          budget.chunkBytes += r.data.length;
          let list = fromDb.get(r.series_id);
          if (!list) fromDb.set(r.series_id, (list = []));
          list.push(r.data);
        }
      }
      if (budget.maxChunkBytes > 0 && budget.chunkBytes > budget.maxChunkBytes) throw chunkBytesLimitError(budget.maxChunkBytes);

      // counted against max samples as it goes, yielding now and then so other requests run
      const out: SeriesSamples[] = [];
      const slicer = createTimeSlicer(QUERY_SLICE_MS);
      for (let i = 0; i < matched.length; i++) {
        const s = matched[i]!;
        const dbChunks = fromDb.size ? fromDb.get(s.id) : undefined;
        const samples = dbChunks ? mergeWithDb(dbChunks, fromHead[i]!, mint, maxt) : fromHead[i]!;
        if (lastOnly && samples.hi - samples.lo > 1) samples.lo = samples.hi - 1;
        const n = samples.hi - samples.lo;
        holdSamples(budget, n);
        if (n > 0) out.push(samples);
        if ((i & 63) === 63) {
          checkDeadline(budget);
          await slicer.pause();
        }
      }
      checkDeadline(budget);
      return out;
    },
    async forEachNewest(matchers, anyMint, anyMaxt, visit) {
      if (!h) return true;
      const mint = clampTime(Math.floor(anyMint));
      const maxt = clampTime(Math.ceil(anyMaxt));
      if (Number.isNaN(mint) || Number.isNaN(maxt) || maxt < mint) return true;
      const slicer = createTimeSlicer(QUERY_SLICE_MS);
      // the ids, not the series: a million of them is no array of a million series made at once
      const { ids, rest } = h.selectIds(matchers);
      const slots = h.byId.slots;
      const { series: seriesBefore, samples: samplesBefore } = budget;
      for (let i = 0; i < ids.length; i++) {
        if ((i & 1023) === 1023) {
          checkDeadline(budget);
          await slicer.pause();
        }
        const s = slots[ids[i]!];
        if (s === undefined || s.firstT > maxt || s.lastT < mint || (rest.length > 0 && !matchesRest(s, rest))) continue;
        // a sample after maxt (the newest one at or before it is in a chunk), or a newest value not known
        // (a series read from the database only): select reads the chunks
        if (s.lastT > maxt || !s.lastKnown) {
          budget.series = seriesBefore;
          budget.samples = samplesBefore;
          return false;
        }
        budget.series++;
        if (budget.maxSeries > 0 && budget.series > budget.maxSeries) throw seriesLimitError(budget.maxSeries);
        if (!s.lastStale) {
          // counted as loaded, as select counts them, and let go once aggregated
          holdSamples(budget, 1);
          visit(s.labels, s.lastV);
        }
      }
      budget.samples = samplesBefore;
      return true;
    },
  };
}

/** index of the first chunk of a time-ordered list whose newest sample is at or after `time` */
function firstEndingAtOrAfter(list: ClosedChunk[], time: number): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.maxT < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

const openOverlaps = (s: HeadSeries, mint: number, maxt: number) => openSamples(s) > 0 && s.lastT >= mint && s.openMinT <= maxt;

const NO_SAMPLES = new Float64Array(0);
const noSamples = (s: HeadSeries): Found => ({ labels: s.labels, t: NO_SAMPLES, v: NO_SAMPLES, lo: 0, hi: 0, stale: null });

/**
 * The head's samples of the matched series in [mint, maxt]. A series' chunks
 * are in time order without overlap, so the ones a window overlaps are found
 * by a binary search (a series keeps up to KEEP_FLUSHED_MS of them). A series
 * whose window lies in one chunk with a mirror (the usual case for recent
 * data, once queried) is answered with the mirror's own columns and offsets,
 * copying nothing; the others are copied (from mirrors) or decoded into one
 * pair of columns shared by them all.
 */
function decodeHead(matched: HeadSeries[], mint: number, maxt: number, budget: QueryBudget, lastOnly: boolean): Found[] {
  const out: Found[] = new Array(matched.length);
  /** samples each series puts in the shared columns (-1: answered already) */
  const count = new Int32Array(matched.length);
  let shared = 0;
  let bytes = 0;
  for (let i = 0; i < matched.length; i++) {
    const s = matched[i]!;
    // the usual case first: the whole window in the open chunk, whose mirror a query made before
    // (older chunks end before it starts: they are not looked at)
    const om = s.mirror;
    if (om !== undefined && s.openMinT <= mint && om.n > 0 && s.lastT >= mint) {
      bytes += om.bytes;
      const k = windowIn(om, mint, maxt);
      count[i] = -1;
      out[i] = k === 0 ? noSamples(s) : inMirror(s, om, lastOnly ? windowHi - 1 : windowLo, windowHi);
      continue;
    }
    let n = 0;
    let chunks = 0;
    let all = true;
    let last: Mirror | undefined;
    // without a callback per chunk (this runs for every series)
    for (let pass = 0; pass < 2; pass++) {
      const list = pass === 0 ? s.flushed : s.closed;
      for (let j = firstEndingAtOrAfter(list, mint); j < list.length; j++) {
        const c = list[j]!;
        if (c.minT > maxt) break;
        const m = closedMirror(c);
        if (m) n += windowIn(m, mint, maxt);
        else {
          n += c.samples;
          all = false;
        }
        last = m;
        chunks++;
        bytes += c.data.length;
      }
    }
    // the open chunk counts whole when it overlaps, as head chunks count
    if (openOverlaps(s, mint, maxt)) {
      const m = openMirror(s);
      if (m) n += windowIn(m, mint, maxt);
      else {
        n += s.open!.count;
        all = false;
      }
      last = m;
      chunks++;
      bytes += s.open!.byteLength;
    }
    count[i] = -1;
    if (n === 0) out[i] = noSamples(s);
    // the window found last (windowLo, windowHi) is the one of that mirror
    else if (all && chunks === 1) out[i] = inMirror(s, last!, lastOnly ? windowHi - 1 : windowLo, windowHi);
    else if (all && lastOnly) out[i] = newestFromMirrors(s, mint, maxt);
    else {
      count[i] = n;
      shared += n;
    }
  }
  budget.chunkBytes += bytes;
  if (budget.maxChunkBytes > 0 && budget.chunkBytes > budget.maxChunkBytes) throw chunkBytesLimitError(budget.maxChunkBytes);
  if (shared === 0) return out;
  // typed arrays over buffers made here: reading .buffer of one made by length is slow on JavaScriptCore
  const vBuf = new ArrayBuffer(shared * 8);
  const t = new Float64Array(new ArrayBuffer(shared * 8));
  const v = new Float64Array(vBuf);
  const bits = new Uint32Array(vBuf);
  let mask: Uint8Array | null = null;
  let at = 0;
  for (let i = 0; i < matched.length; i++) {
    if (count[i]! < 0) continue;
    const s = matched[i]!;
    const first = at;
    // stale markers are looked for only where there may be some
    let markers = 0;
    for (let pass = 0; pass < 2; pass++) {
      const list = pass === 0 ? s.flushed : s.closed;
      for (let j = firstEndingAtOrAfter(list, mint); j < list.length; j++) {
        const c = list[j]!;
        if (c.minT > maxt) break;
        const m = c.mirror;
        markers += m ? m.stale : 1;
        at = m ? copyWindow(m, mint, maxt, t, bits, at) : at + decodeXorChunkBits(c.data, t, bits, at);
      }
    }
    if (openOverlaps(s, mint, maxt)) {
      const m = s.mirror;
      markers += m ? m.stale : 1;
      at = m ? copyWindow(m, mint, maxt, t, bits, at) : at + s.open!.decodeInto(t, bits, at);
    }
    // decoded chunks may reach past the window at either end
    let lo = first;
    while (lo < at && t[lo]! < mint) lo++;
    let hi = at;
    while (hi > lo && t[hi - 1]! > maxt) hi--;
    if (lastOnly && hi - lo > 1) lo = hi - 1;
    let stale: Uint8Array | null = null;
    if (markers > 0) for (let k = lo; k < hi; k++) if (isStaleAt(bits, k)) (stale = mask ??= new Uint8Array(shared))[k] = 1;
    out[i] = { labels: s.labels, t, v, lo, hi, stale };
  }
  return out;
}

/** a series' samples [lo, hi) of one mirror: its columns, with offsets */
function inMirror(s: HeadSeries, m: Mirror, lo: number, hi: number): Found {
  return { labels: s.labels, t: m.t, v: m.v, lo, hi, stale: m.stale > 0 ? staleIn(m.bits, lo, hi, hi) : null };
}

/** a series' newest sample in [mint, maxt] from its chunks' mirrors (the newest chunk that has one in the window) */
function newestFromMirrors(s: HeadSeries, mint: number, maxt: number): Found {
  if (openOverlaps(s, mint, maxt)) {
    const got = newestIn(s, s.mirror!, mint, maxt);
    if (got) return got;
  }
  for (let pass = 0; pass < 2; pass++) {
    const list = pass === 0 ? s.closed : s.flushed;
    for (let j = list.length - 1; j >= 0; j--) {
      const c = list[j]!;
      if (c.maxT < mint) break;
      const got = c.minT <= maxt ? newestIn(s, c.mirror!, mint, maxt) : undefined;
      if (got) return got;
    }
  }
  return noSamples(s);
}

/** a mirror's newest sample in [mint, maxt], if any */
function newestIn(s: HeadSeries, m: Mirror, mint: number, maxt: number): Found | undefined {
  const k = firstAtOrAfter(m, maxt + 1) - 1;
  if (k < 0 || m.t[k]! < mint) return undefined;
  return { labels: s.labels, t: m.t, v: m.v, lo: k, hi: k + 1, stale: m.stale > 0 ? staleIn(m.bits, k, k + 1, k + 1) : null };
}

/** index of the first of a mirror's samples at or after `time` */
function firstAtOrAfter(m: Mirror, time: number): number {
  let lo = 0;
  let hi = m.n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (m.t[mid]! < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** the samples [windowLo, windowHi) of the mirror windowIn looked at last */
let windowLo = 0;
let windowHi = 0;

/**
 * how many of a mirror's samples are in [mint, maxt]; leaves where they are in
 * windowLo and windowHi. Searched from the newest sample back: a query's
 * window is mostly the last samples, and those are all it reads then.
 */
function windowIn(m: Mirror, mint: number, maxt: number): number {
  windowHi = firstFromEnd(m.t, m.n, maxt + 1);
  windowLo = firstFromEnd(m.t, windowHi, mint);
  return windowHi - windowLo;
}

/** index of the first of t[0..n) at or after `time` (n if none): galloping back from the end, then a binary search */
function firstFromEnd(t: Float64Array, n: number, time: number): number {
  let hi = n;
  let lo = n - 1;
  let step = 1;
  while (lo >= 0 && t[lo]! >= time) {
    hi = lo;
    lo -= step;
    step *= 2;
  }
  lo = lo < 0 ? 0 : lo + 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (t[mid]! < time) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** copies a mirror's samples in [mint, maxt] to t and bits from `at`; returns the index after them */
function copyWindow(m: Mirror, mint: number, maxt: number, t: Float64Array, bits: Uint32Array, at: number): number {
  windowIn(m, mint, maxt);
  const end = windowHi;
  const src = m.bits;
  for (let k = windowLo; k < end; k++, at++) {
    t[at] = m.t[k]!;
    bits[2 * at] = src[2 * k]!;
    bits[2 * at + 1] = src[2 * k + 1]!;
  }
  return at;
}

/** Prometheus's stale markers among samples [lo, hi) of value bits, as a mask of `size` indexed as the bits; null when none */
function staleIn(bits: Uint32Array, lo: number, hi: number, size: number): Uint8Array | null {
  let mask: Uint8Array | null = null;
  for (let k = lo; k < hi; k++) if (isStaleAt(bits, k)) (mask ??= new Uint8Array(size))[k] = 1;
  return mask;
}

/**
 * The samples of a series with chunks in the database too: those first, then
 * the head's, within [mint, maxt], each timestamp once (a chunk being flushed
 * may be read from both). Values are copied as bits, so stale markers keep
 * their NaN payload on every runtime.
 */
function mergeWithDb(dbChunks: Uint8Array[], head: Found, mint: number, maxt: number): Found {
  let total = head.hi - head.lo;
  for (const c of dbChunks) total += xorChunkSamples(c);
  const tBuf = new ArrayBuffer(total * 8);
  const vBuf = new ArrayBuffer(total * 8);
  const t = new Float64Array(tBuf);
  const v = new Float64Array(vBuf);
  const bits = new Uint32Array(vBuf);
  let at = 0;
  for (const c of dbChunks) at += decodeXorChunkBits(c, t, bits, at);
  // the head's samples after the database's: values as numbers, stale markers written as their bits
  for (let k = head.lo; k < head.hi; k++, at++) {
    t[at] = head.t[k]!;
    if (head.stale && head.stale[k] === 1) {
      bits[2 * at + WORD_HI] = STALE_HI;
      bits[2 * at + 1 - WORD_HI] = STALE_LO;
    } else v[at] = head.v[k]!;
  }
  // in place: keep [mint, maxt], each timestamp once, in the order read
  let n = 0;
  let last = -Infinity;
  for (let k = 0; k < at; k++) {
    const tk = t[k]!;
    if (tk < mint || tk > maxt || tk <= last) continue;
    last = tk;
    t[n] = tk;
    bits[2 * n] = bits[2 * k]!;
    bits[2 * n + 1] = bits[2 * k + 1]!;
    n++;
  }
  return { labels: head.labels, t, v, lo: 0, hi: n, stale: staleIn(bits, 0, n, n) };
}
