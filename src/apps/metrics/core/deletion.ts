// Deleting stored samples of the metrics store: delete_series (a time range
// of the series matching selectors, Prometheus's admin API) and retention
// (every chunk whose newest sample is older than a tenant's period). Both
// work in batches (a hundred series, a few hundred database rows) with the
// event loop given back between them, so that one request over a million
// series holds no turn of the loop for long; each batch (a tenant, for
// retention) runs alone in the store, flushes and checkpoints running
// between batches.
//
// delete_series takes, for each matched series, its samples in
// [start, min(end, its newest sample now)] (Prometheus clamps the same way:
// samples pushed after the request are never touched). Each batch is logged
// in the write-ahead log, then taken out of memory in the same turn, then out
// of the database: whole chunks inside the range are deleted, the chunk
// straddling either end is encoded again without the deleted samples. A
// replay takes the batch out of memory at the same place among the pushes
// and, once over, out of the database again (a crash mid-way finishes the
// work). Series left with no sample anywhere are removed (logged too).
import type { Sql, SqlTx } from "../../../db/sql.ts";
import { createTimeSlicer } from "../../../lib/time-slice.ts";
import { chunkWithout, deleteInMemory, emptyInMemory } from "./chunk-edit.ts";
import { insertChunkRows, type ChunkRow } from "./chunk-rows.ts";
import { deleteRecord, readDeletionRecord, removeRecord } from "./deletion-log.ts";
import { dropFlushedBefore, inMemoryFrom, matchesRest, openSamples, type HeadSeries, type TenantHead } from "./head.ts";
import type { Matcher } from "./types.ts";

/** series per batch (each logged as one record) */
const SERIES_BATCH = 128;
/** database rows deleted per statement (~15 ms of PGlite here) */
const ROWS = 512;
/** ids per statement reading or deleting by series */
const IDS = 2048;
/** the longest the event loop is held at once (ms) */
const SLICE_MS = 15;

export interface DeletionDeps {
  pg: Sql;
  /** appends a record to the write-ahead log (nothing without one) */
  log(payload: Uint8Array): void;
  /** true once the store is closing: a deletion stops between batches */
  stopping(): boolean;
  /** runs work alone in the store (no flush, checkpoint or other deletion meanwhile) */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
}

/** what a delete_series took out */
export interface DeleteOutcome {
  /** series that lost samples */
  series: number;
  samples: number;
  /** chunks deleted or encoded again, in memory and in the database */
  chunks: number;
  /** series left with no sample, removed */
  removedSeries: number;
}

/** a batch of series and the range each loses */
interface Batch {
  ids: number[];
  lo: number[];
  hi: number[];
}

export class StoppingError extends Error {
  constructor() {
    super("the metrics store is stopping: the deletion stopped between two batches (what it deleted is logged and stays deleted)");
    this.name = "StoppingError";
  }
}

export function createDeletion(d: DeletionDeps) {
  // one at a time (the exclusive lock), so one slicer: the event loop is given back between statements once a slice is spent
  const slicer = createTimeSlicer(SLICE_MS);
  const pause = () => slicer.pause();
  const pg = {
    async query<T>(sql: string, params: unknown[]) {
      const r = await d.pg.query<T>(sql, params);
      await pause();
      return r;
    },
    async transaction(work: (tx: SqlTx) => Promise<void>): Promise<void> {
      await d.pg.transaction(work);
      await pause();
    },
  };
  /** series retention emptied of stored chunks while they were still in use, by tenant: looked at again at the next run */
  let retentionPending = new Map<string, Set<number>>();

  /**
   * deletes batch samples from the database; adds to `removed` the samples
   * each series lost there; returns the chunks deleted or encoded again
   */
  async function deleteFromDatabase(tenant: string, b: Batch, removed: Map<number, number>): Promise<number> {
    if (b.ids.length === 0) return 0;
    let chunks = 0;
    const count = (id: number, n: number) => removed.set(id, (removed.get(id) ?? 0) + n);
    // whole chunks inside the range, ROWS at a time (by the primary key: series, first sample)
    for (;;) {
      const r = await pg.query<{ series_id: number; samples: number }>(
        `delete from metrics_chunks m using (
           select c.tenant, c.series_id, c.min_t from unnest($2::int[], $3::bigint[], $4::bigint[]) as d(id, lo, hi)
           cross join lateral (select tenant, series_id, min_t from metrics_chunks
             where tenant = $1 and series_id = d.id and min_t >= d.lo and min_t <= d.hi and max_t <= d.hi order by min_t limit $5) c
           limit $5) x
         where m.tenant = x.tenant and m.series_id = x.series_id and m.min_t = x.min_t returning m.series_id, m.samples`,
        [tenant, b.ids, b.lo, b.hi, ROWS],
      );
      for (const row of r.rows) count(row.series_id, row.samples);
      chunks += r.rows.length;
      if (r.rows.length < ROWS) break;
    }
    // what is left in the range is in the chunk straddling either end (chunks of a series never overlap)
    const partial = await pg.query<{ id: number; min_t: number; data: Uint8Array }>(
      `select d.id, c.min_t::float8 as min_t, c.data from unnest($2::int[], $3::bigint[], $4::bigint[]) as d(id, lo, hi)
       cross join lateral (
         (select min_t, max_t, data from metrics_chunks where tenant = $1 and series_id = d.id and min_t < d.lo order by min_t desc limit 1)
         union all
         (select min_t, max_t, data from metrics_chunks where tenant = $1 and series_id = d.id and min_t >= d.lo and min_t <= d.hi order by min_t limit 2)
       ) c where c.max_t >= d.lo`,
      [tenant, b.ids, b.lo, b.hi],
    );
    if (partial.rows.length === 0) return chunks;
    const at = new Map(b.ids.map((id, i) => [id, i]));
    const gone: Array<{ id: number; minT: number }> = [];
    const rows: ChunkRow[] = [];
    for (const row of partial.rows) {
      const i = at.get(row.id)!;
      const left = chunkWithout(row.data, b.lo[i]!, b.hi[i]!);
      if (left === undefined) continue;
      gone.push({ id: row.id, minT: Number(row.min_t) });
      count(row.id, left === null ? 0 : left.removed);
      if (left !== null) rows.push({ tenant, seriesId: row.id, minT: left.minT, maxT: left.maxT, samples: left.samples, data: left.data });
    }
    if (gone.length === 0) return chunks;
    await pg.transaction(async (tx) => {
      await tx.query(
        "delete from metrics_chunks m using unnest($2::int[], $3::bigint[]) as x(id, min_t) where m.tenant = $1 and m.series_id = x.id and m.min_t = x.min_t",
        [tenant, gone.map((g) => g.id), gone.map((g) => g.minT)],
      );
      await insertChunkRows(tx, rows);
    });
    return chunks + gone.length;
  }

  /** the oldest sample each series has in the database (none: absent) */
  async function oldestInDatabase(tenant: string, ids: readonly number[]): Promise<Map<number, number>> {
    const out = new Map<number, number>();
    for (let i = 0; i < ids.length; i += IDS) {
      const r = await pg.query<{ id: number; min_t: string | null }>(
        "select d.id, (select min(min_t) from metrics_chunks where tenant = $1 and series_id = d.id)::text as min_t from unnest($2::int[]) as d(id)",
        [tenant, ids.slice(i, i + IDS)],
      );
      for (const row of r.rows) if (row.min_t !== null) out.set(row.id, Number(row.min_t));
    }
    return out;
  }

  /**
   * sets again the oldest sample of series whose oldest may have gone
   * (`lo` at or before it), from memory and the database; returns those left
   * with none
   */
  async function settle(h: TenantHead | undefined, tenant: string, b: Batch): Promise<number[]> {
    if (!h) return [];
    const ask: number[] = [];
    const again: HeadSeries[] = [];
    for (let i = 0; i < b.ids.length; i++) {
      const s = h.byId.get(b.ids[i]!);
      if (s === undefined || b.lo[i]! > s.firstT) continue;
      again.push(s);
      if (s.persisted) ask.push(s.id);
    }
    const stored = ask.length ? await oldestInDatabase(tenant, ask) : new Map<number, number>();
    const empty: number[] = [];
    for (const s of again) {
      s.firstT = Math.min(stored.get(s.id) ?? Infinity, inMemoryFrom(s));
      if (s.firstT === Infinity) empty.push(s.id);
    }
    return empty;
  }

  /**
   * removes series left with no sample (those that got one meanwhile stay):
   * logged, out of the head's index at once, then out of its postings (in
   * pieces) and of the database
   */
  async function removeEmpty(h: TenantHead, tenant: string, ids: readonly number[], keep?: (s: HeadSeries) => boolean): Promise<number> {
    const removed = new Set<number>();
    for (let i = 0; i < ids.length; i += IDS) {
      const gone = ids.slice(i, i + IDS).filter((id) => {
        const s = h.byId.get(id);
        return s !== undefined && s.firstT === Infinity && emptyInMemory(s) && !keep?.(s);
      });
      if (gone.length === 0) continue;
      // logged and taken out of the index in one turn: a push after it makes a new series, in the log as here
      d.log(removeRecord(tenant, gone));
      h.detachSeries(gone);
      for (const id of gone) removed.add(id);
      await pg.query("delete from metrics_series where tenant = $1 and id = any($2::int[])", [tenant, gone]);
    }
    await h.prunePostings(removed, pause);
    return removed.size;
  }

  /** a batch's database part and what follows from it; returns the series left with no sample */
  async function finishBatch(h: TenantHead | undefined, tenant: string, b: Batch, removed: Map<number, number>): Promise<{ chunks: number; empty: number[] }> {
    // only series with chunks in the database that may be in the range
    const stored: Batch = { ids: [], lo: [], hi: [] };
    for (let i = 0; i < b.ids.length; i++) {
      const s = h?.byId.get(b.ids[i]!);
      if (s !== undefined && (!s.persisted || s.persistedMaxT < b.lo[i]!)) continue;
      stored.ids.push(b.ids[i]!);
      stored.lo.push(b.lo[i]!);
      stored.hi.push(b.hi[i]!);
    }
    const chunks = await deleteFromDatabase(tenant, stored, removed);
    return { chunks, empty: await settle(h, tenant, b) };
  }

  /**
   * retention's series that lost chunks: their oldest sample set again; those
   * left with none removed unless in use (looked at again at the next run)
   */
  async function settleRetention(h: TenantHead, tenant: string, ids: number[]): Promise<void> {
    const stored = await oldestInDatabase(tenant, ids);
    const empty: number[] = [];
    for (const id of ids) {
      const s = h.byId.get(id);
      if (!s) continue;
      s.firstT = Math.min(stored.get(id) ?? Infinity, inMemoryFrom(s));
      if (stored.has(id)) continue;
      if (s.active || !emptyInMemory(s)) {
        let later = retentionPending.get(tenant);
        if (!later) retentionPending.set(tenant, (later = new Set()));
        later.add(id);
      } else empty.push(id);
    }
    await removeEmpty(h, tenant, empty, (s) => s.active);
  }

  return {
    /**
     * delete_series for one tenant: the samples in [mint, maxt] of the
     * series matching any of the matcher sets (each series' range ending at
     * its newest sample as the request reaches it)
     */
    async deleteSeries(h: TenantHead, matcherSets: readonly Matcher[][], mint: number, maxt: number): Promise<DeleteOutcome> {
      const tenant = h.tenant;
      // checked between batches only: a batch logged is finished in the database too
      const checkStopping = () => {
        if (d.stopping()) throw new StoppingError();
      };
      const out: DeleteOutcome = { series: 0, samples: 0, chunks: 0, removedSeries: 0 };
      // series made after the request are not looked at (ids only grow)
      const limit = h.nextSeriesId;
      const seen = new Uint8Array(limit);
      const empty: number[] = [];
      let found: number[] = [];
      /** one batch, alone (flushes and checkpoints wait for it, and run between batches) */
      const run = (candidates: number[]) =>
        d.exclusive(async () => {
          checkStopping();
          const b: Batch = { ids: [], lo: [], hi: [] };
          const series: HeadSeries[] = [];
          for (const id of candidates) {
            const s = h.byId.get(id);
            if (s === undefined) continue;
            // up to its newest sample now, as Prometheus clamps: what is pushed after this turn stays
            const hi = Math.min(maxt, s.lastT);
            // a series in the database is looked for there even when its oldest sample known is later (an index probe)
            if (s.lastT < mint || mint > hi || (s.firstT > hi && !s.persisted)) continue;
            b.ids.push(id);
            b.lo.push(mint);
            b.hi.push(hi);
            series.push(s);
          }
          if (b.ids.length === 0) return;
          // logged and taken out of memory in one turn: a push after it is after it in the log too
          d.log(deleteRecord(tenant, b.ids, b.lo, b.hi));
          const removed = new Map<number, number>();
          for (let i = 0; i < series.length; i++) {
            const r = deleteInMemory(series[i]!, b.lo[i]!, b.hi[i]!);
            out.chunks += r.chunks;
            if (r.samples > 0) removed.set(b.ids[i]!, r.samples);
          }
          await pause();
          const done = await finishBatch(h, tenant, b, removed);
          out.chunks += done.chunks;
          empty.push(...done.empty);
          for (const n of removed.values()) {
            if (n > 0) out.series++;
            out.samples += n;
          }
        });
      for (const matchers of matcherSets) {
        const { ids, rest } = h.selectIds(matchers);
        const slots = h.byId.slots;
        for (let i = 0; i < ids.length; i++) {
          const id = ids[i]!;
          if (id >= limit) break;
          if ((i & 1023) === 1023) {
            checkStopping();
            await pause();
          }
          if (seen[id] === 1) continue;
          seen[id] = 1;
          const s = slots[id];
          if (s === undefined || !matchesRest(s, rest)) continue;
          found.push(id);
          if (found.length >= SERIES_BATCH) {
            await run(found);
            found = [];
          }
        }
      }
      if (found.length > 0) await run(found);
      out.removedSeries = await d.exclusive(async () => {
        checkStopping();
        return removeEmpty(h, tenant, empty);
      });
      if (mint <= h.minT) h.recomputeMinT();
      return out;
    },

    /**
     * retention: deletes every chunk of a tenant whose newest sample is
     * before its cutoff, and series left with none that are not in use;
     * returns the chunks deleted by tenant
     */
    async deleteBefore(heads: ReadonlyMap<string, TenantHead>, cutoffs: ReadonlyMap<string, number>): Promise<Map<string, number>> {
      const deleted = new Map<string, number>();
      const pending = retentionPending;
      retentionPending = new Map();
      // a tenant at a time, alone in the store (flushes and checkpoints wait, and run between tenants)
      const tenantRetention = (tenant: string, cutoff: number) => d.exclusive(async () => {
        if (d.stopping()) return;
        // only series that lost chunks (now or at an earlier run, while still in use) can be left with none
        const touched = pending.get(tenant) ?? new Set<number>();
        let n = 0;
        for (;;) {
          const r = await pg.query<{ series_id: number }>(
            `delete from metrics_chunks m using (select tenant, series_id, min_t from metrics_chunks where tenant = $1 and max_t < $2 limit $3) x
             where m.tenant = x.tenant and m.series_id = x.series_id and m.min_t = x.min_t returning m.series_id`,
            [tenant, cutoff, ROWS],
          );
          for (const row of r.rows) touched.add(row.series_id);
          n += r.rows.length;
          if (r.rows.length < ROWS) break;
        }
        if (n > 0) deleted.set(tenant, n);
        const h = heads.get(tenant);
        if (!h) return;
        let i = 0;
        for (const s of h.byId.values()) {
          if ((++i & 4095) === 0) await pause();
          // what retention deleted is not read from memory either
          dropFlushedBefore(s, cutoff);
          if (s.persistedMaxT < cutoff) {
            s.persistedMaxT = -Infinity;
            // its newest sample went with the database's chunks unless memory still has it
            if (s.lastT < cutoff && openSamples(s) === 0 && s.closed.length === 0) s.lastKnown = false;
          }
        }
        if (touched.size > 0) await settleRetention(h, tenant, [...touched]);
        h.recomputeMinT();
      });
      for (const [tenant, cutoff] of cutoffs) await tenantRetention(tenant, cutoff);
      return deleted;
    },

    /** a deletion record met by a replay: taken out of memory now; the database's part is left in `later` */
    replay(payload: Uint8Array, head: (tenant: string) => TenantHead, later: ReplayedDeletions): void {
      const rec = readDeletionRecord(payload);
      const h = head(rec.tenant);
      let mine = later.get(rec.tenant);
      if (!mine) later.set(rec.tenant, (mine = { batches: [], removed: [] }));
      if (rec.kind === "remove") {
        // out of the index at once, so the pushes after it make new series as they did; postings pruned once the replay is over
        h.detachSeries(rec.ids);
        mine.removed.push(...rec.ids);
        return;
      }
      for (let i = 0; i < rec.ids.length; i++) {
        const s = h.byId.get(rec.ids[i]!);
        if (s !== undefined) deleteInMemory(s, rec.lo[i]!, rec.hi[i]!);
      }
      mine.batches.push({ ids: rec.ids, lo: rec.lo, hi: rec.hi });
    },

    /** after a replay: the database's part of the deletions it met, which a crash may have cut short */
    async finishReplay(heads: ReadonlyMap<string, TenantHead>, later: ReplayedDeletions): Promise<void> {
      for (const [tenant, { batches, removed }] of later) {
        const h = heads.get(tenant);
        if (removed.length > 0) {
          await h?.prunePostings(new Set(removed));
          for (let i = 0; i < removed.length; i += IDS) {
            await pg.query("delete from metrics_series where tenant = $1 and id = any($2::int[])", [tenant, removed.slice(i, i + IDS)]);
          }
        }
        const empty: number[] = [];
        for (const b of batches) empty.push(...(await finishBatch(h, tenant, b, new Map())).empty);
        if (h) {
          await removeEmpty(h, tenant, empty);
          h.recomputeMinT();
        }
      }
    },
  };
}

/** what a replay leaves for the database, by tenant */
export type ReplayedDeletions = Map<string, { batches: Batch[]; removed: number[] }>;

export type Deletion = ReturnType<typeof createDeletion>;
