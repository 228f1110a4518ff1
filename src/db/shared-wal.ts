// A store's write-ahead log in the database, for nodes sharing one
// PostgreSQL server (issue 26): the active store node appends, a standby that
// takes over replays it. Same segments and records as the files of
// lib/segment-wal.ts, one row per record (table store_wal). Appends are
// buffered and committed in groups, one statement for all the appends of a
// turn of the event loop; a push is acknowledged once durable() resolves,
// that is once its record is committed (synchronous commit, whatever the
// server's default, so a server crash keeps it too).
import type { SegmentWal, WalSource } from "../lib/segment-wal.ts";
import type { Logger } from "../lib/logger.ts";
import type { Queryable, Sql } from "./sql.ts";
import { FencedError, NO_FENCE, type Fence } from "./fence.ts";

/** records read back per statement on replay (bounded memory) */
const READ_BATCH = 2_000;
/** appends committed in one statement at most (bytes) */
const GROUP_BYTES = 16 * 1024 * 1024;
const RETRY_MS = 1_000;
const DONE = Promise.resolve();

/** `fence`: refuses every write once this node may no longer write the log (it lost the store lock) */
export function sharedWalSource(sql: Sql, store: string, logger: Logger, fence: Fence = NO_FENCE, segmentBytes = 32 * 1024 * 1024): WalSource {
  return {
    dir: undefined,
    async read(from, visit) {
      let after = 0;
      for (;;) {
        const r = await sql.query<{ seq: number; segment: number; body: Uint8Array }>(
          "select seq, segment, body from store_wal where store = $1 and segment >= $2 and seq > $3 order by seq limit $4",
          [store, from, after, READ_BATCH],
        );
        for (const row of r.rows) visit(row.body, row.segment);
        if (r.rows.length < READ_BATCH) return [];
        after = r.rows.at(-1)!.seq;
      }
    },
    async open(first = 1) {
      const r = await sql.query<{ segment: number }>("select distinct segment from store_wal where store = $1 order by segment", [store]);
      const held = new Set(r.rows.map((row) => row.segment));
      const segment = Math.max(Math.max(0, ...held) + 1, first);
      return openLog(sql, store, logger, segment, held, segmentBytes, fence);
    },
  };
}

function openLog(sql: Sql, store: string, logger: Logger, first: number, held: Set<number>, segmentBytes: number, fence: Fence): SegmentWal {
  let segment = first;
  let size = 0;
  let written = 0;
  /** appended, not yet sent */
  let queue: Array<{ segment: number; body: Uint8Array }> = [];
  /** appends so far, and how many of them are committed */
  let appended = 0;
  let committed = 0;
  let waiters: Array<{ upTo: number; resolve: () => void; reject: (err: Error) => void }> = [];
  /** the statements in order: inserts, truncations, the final clear */
  let chain: Promise<void> = Promise.resolve();
  let scheduled = false;
  let failure: Error | undefined;
  /** set once fenced: every append and wait fails with it */
  let fenced: Error | undefined;
  /** clear() or a truncation was asked for: durable() waits for the statements too */
  let pendingStatements = 0;

  const settle = () => {
    const still: typeof waiters = [];
    for (const w of waiters) {
      if (committed >= w.upTo) w.resolve();
      else if (failure) w.reject(failure);
      else still.push(w);
    }
    waiters = still;
  };

  const send = async () => {
    scheduled = false;
    while (queue.length) {
      let bytes = 0;
      let n = 0;
      while (n < queue.length && (n === 0 || bytes + queue[n]!.body.length <= GROUP_BYTES)) bytes += queue[n++]!.body.length;
      const group = queue.slice(0, n);
      try {
        fence.check();
        // one statement (one round trip: a push waits for it): still this node's to write (the fencing
        // token, held `for share` until the commit) and durable at its commit (synchronous_commit is on
        // for every connection, postgres.ts)
        const r = await sql.query(
          `insert into store_wal (store, segment, body)
           select $1, t.s, t.b from unnest($2::int[], $3::bytea[]) as t (s, b)
            where $4::bigint is null or exists (select 1 from store_epoch where id = 1 and epoch = $4 for share)`,
          [store, group.map((g) => g.segment), group.map((g) => g.body), fence.epoch ?? null],
        );
        if (r.affectedRows !== group.length) {
          fence.raise();
          throw new FencedError("another node took the store lock since this one did (the store epoch moved on): this node writes nothing more");
        }
      } catch (err) {
        // not acknowledged: the pushes waiting for it are answered with the error; the records stay
        // queued (they are in the heads already) and are sent again
        failure = err as Error;
        settle();
        failure = undefined;
        if (err instanceof FencedError) {
          // another node runs the stores now: nothing more goes to the log from here, and every wait ends
          queue = [];
          fenced = err;
          for (const w of waiters.splice(0)) w.reject(err);
          return;
        }
        logger.error("writing the shared write-ahead log failed; trying again", { store, err: String(err) });
        await new Promise((r) => setTimeout(r, RETRY_MS));
        continue;
      }
      queue = queue.slice(n);
      committed += n;
      settle();
    }
  };

  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    // after the appends of this turn of the event loop: one statement for all of them
    chain = chain.then(() => new Promise<void>((resolve) => setImmediate(resolve))).then(send);
  };

  const run = (statement: (tx: Queryable) => Promise<unknown>) => {
    pendingStatements++;
    chain = chain.then(async () => {
      try {
        fence.check();
        await sql.transaction(async (tx) => {
          await fence.guard(tx);
          await statement(tx);
        });
      } catch (err) {
        logger.error("truncating the shared write-ahead log failed (its rows stay until the next truncation)", { store, err: String(err) });
      } finally {
        pendingStatements--;
      }
    });
  };

  return {
    get segment() {
      return segment;
    },
    append(...parts) {
      let length = 0;
      for (const p of parts) length += p.length;
      const body = parts.length === 1 ? parts[0]! : new Uint8Array(length);
      if (parts.length > 1) {
        let at = 0;
        for (const p of parts) {
          body.set(p, at);
          at += p.length;
        }
      }
      queue.push({ segment, body });
      held.add(segment);
      appended++;
      size += length;
      written += length;
      schedule();
    },
    get written() {
      return written;
    },
    maybeRotate() {
      return size < segmentBytes ? segment : this.rotate();
    },
    rotate() {
      if (size === 0) return segment;
      segment++;
      size = 0;
      return segment;
    },
    truncateBefore(keep) {
      let any = false;
      for (const s of [...held]) {
        if (s < keep && s !== segment) {
          held.delete(s);
          any = true;
        }
      }
      // the stores ask at every flush: a statement only when a segment goes
      if (!any) return;
      const current = segment;
      run((tx) => tx.query("delete from store_wal where store = $1 and segment < $2 and segment <> $3", [store, keep, current]));
    },
    segments: () => [...held].sort((a, b) => a - b),
    close() {
      // what is queued is still sent: durable() tells when
    },
    clear() {
      held.clear();
      run((tx) => tx.query("delete from store_wal where store = $1", [store]));
    },
    durable() {
      if (fenced) return Promise.reject(fenced);
      if (committed >= appended) return pendingStatements > 0 ? chain : DONE;
      const upTo = appended;
      return new Promise<void>((resolve, reject) => waiters.push({ upTo, resolve, reject }));
    },
  };
}
