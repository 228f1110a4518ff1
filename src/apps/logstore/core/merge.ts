// Reading entries in time order across streams without gathering them: a
// k-way merge over time-ordered runs (stored chunks, chunks being written,
// heads), each read lazily — a run is loaded only once the merge reaches its
// newest (backward) or oldest (forward) timestamp. A log query with a limit
// therefore costs in proportion to the entries it visits, not to the lines in
// its time range, the way the real product's heap iterator over chunk
// iterators works.
import { setImmediate } from "node:timers";
import type { Entry } from "./chunks.ts";
import type { ChunkSource } from "./columns.ts";
import type { ChunkMeta } from "./store.ts";

/** one time-ordered run of a stream's entries */
export interface Run {
  /** oldest and newest timestamp it holds */
  from: bigint;
  to: bigint;
  /** its entries, oldest first (reading a stored chunk may wait for the database) */
  load(): readonly Entry[] | Promise<readonly Entry[]>;
  /**
   * its array may change between event-loop turns (a head): read when the
   * merge starts (so entries written later, whatever their time, are not
   * half seen) and copied before the merge waits
   */
  live?: boolean;
  /** the stored chunk it reads, when it is one (queries scan those in tasks, off the event loop) */
  chunk?: ChunkMeta;
  /**
   * where a task can read it, for a chunk not yet written (its columns, or its encoded bytes):
   * queries scan those in tasks too; undefined when it is gone meanwhile (written: it is a stored chunk now)
   */
  source?: () => Promise<ChunkSource | undefined>;
}

export interface MergeOptions {
  /** stops the merge (it throws the signal's reason) */
  signal?: AbortSignal | undefined;
  /** the longest the merge reads before letting other work run (ms; default 8) */
  sliceMs?: number | undefined;
}

/** the runs of one stream, in their rank order (the order their equal timestamps are read forward) */
export interface Lane {
  runs: readonly Run[];
}

interface Cursor {
  lane: number;
  rank: number;
  run: Run;
  /** undefined until loaded */
  entries: readonly Entry[] | undefined;
  pos: number;
  /** one past the last position to read (forward), or one before it (backward) */
  end: number;
  /** the current entry's timestamp, or the run's bound while not loaded */
  key: bigint;
}

/** the first index whose timestamp is >= ts */
function lowerBound(entries: readonly Entry[], ts: bigint): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (entries[mid]!.ts < ts) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** a cursor over a live array reads a copy of what it has left, so writes while the merge waits do not move it */
function keepWindow(c: Cursor, backward: boolean): void {
  const window = backward ? c.entries!.slice(c.end + 1, c.pos + 1) : c.entries!.slice(c.pos, c.end);
  c.entries = window;
  c.pos = backward ? window.length - 1 : 0;
  c.end = backward ? -1 : window.length;
}

/**
 * Visits the entries of every lane in [from, to) in time order (newest first
 * when `backward`) until `visit` returns false. Equal timestamps are read in
 * lane order, then (within a lane) in rank and position order forward and the
 * reverse of that backward — the order a stable sort by time of the lanes'
 * entries gives.
 */
export async function mergeLanes(
  lanes: readonly Lane[],
  from: bigint,
  to: bigint,
  backward: boolean,
  visit: (lane: number, e: Entry) => boolean,
  options: MergeOptions = {},
): Promise<void> {
  const sliceMs = options.sliceMs ?? 8;
  let sliceEnd = performance.now() + sliceMs;
  let visited = 0;
  // heap order: the next entry to read first; an unloaded run before a loaded one at its bound
  // (its entries may tie with or precede the loaded one's), then lane, then rank
  const before = backward
    ? (a: Cursor, b: Cursor) =>
        a.key !== b.key ? a.key > b.key : (a.entries === undefined) !== (b.entries === undefined) ? a.entries === undefined : a.lane !== b.lane ? a.lane < b.lane : a.rank > b.rank
    : (a: Cursor, b: Cursor) =>
        a.key !== b.key ? a.key < b.key : (a.entries === undefined) !== (b.entries === undefined) ? a.entries === undefined : a.lane !== b.lane ? a.lane < b.lane : a.rank < b.rank;
  const heap: Cursor[] = [];
  const siftDown = (i: number) => {
    const n = heap.length;
    const c = heap[i]!;
    for (;;) {
      let best = 2 * i + 1;
      if (best >= n) break;
      if (best + 1 < n && before(heap[best + 1]!, heap[best]!)) best++;
      if (!before(heap[best]!, c)) break;
      heap[i] = heap[best]!;
      i = best;
    }
    heap[i] = c;
  };
  const siftUp = (i: number) => {
    const c = heap[i]!;
    while (i > 0) {
      const parent = (i - 1) >>> 1;
      if (!before(c, heap[parent]!)) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = c;
  };
  const popTop = () => {
    const last = heap.pop()!;
    if (heap.length) {
      heap[0] = last;
      siftDown(0);
    }
  };
  /** a cursor on its run's entries within [from, to); false when none are */
  const place = (c: Cursor, entries: readonly Entry[]): boolean => {
    const lo = lowerBound(entries, from);
    const hi = lowerBound(entries, to);
    c.entries = entries;
    c.pos = backward ? hi - 1 : lo;
    c.end = backward ? lo - 1 : hi;
    if (lo >= hi) return false;
    c.key = entries[c.pos]!.ts;
    return true;
  };
  lanes.forEach((lane, l) => {
    lane.runs.forEach((run, rank) => {
      if (run.to < from || run.from >= to) return;
      const c: Cursor = { lane: l, rank, run, entries: undefined, pos: 0, end: 0, key: backward ? run.to : run.from };
      const now = run.live ? run.load() : undefined;
      if (now && !(now instanceof Promise) && !place(c, now)) return;
      heap.push(c);
      siftUp(heap.length - 1);
    });
  });
  while (heap.length) {
    const top = heap[0]!;
    if (top.entries === undefined) {
      const loading = top.run.load();
      if (loading instanceof Promise) for (const c of heap) if (c.entries && c.run.live) keepWindow(c, backward);
      if (!place(top, loading instanceof Promise ? await loading : loading)) popTop();
      else siftDown(0);
      continue;
    }
    // read the top run while it stays ahead of the runner-up: no heap work per entry
    const entries = top.entries;
    const end = top.end;
    let pos = top.pos;
    let paused = false;
    /** true when the slice is used up: the merge lets other work run before reading on */
    const sliceOver = () => (++visited & 1023) === 0 && performance.now() > sliceEnd;
    const second = heap.length === 1 ? undefined : heap.length === 2 || before(heap[1]!, heap[2]!) ? heap[1]! : heap[2]!;
    if (!second) {
      for (; pos !== end; pos += backward ? -1 : 1) {
        if (sliceOver()) {
          paused = true;
          break;
        }
        if (!visit(top.lane, entries[pos]!)) return;
      }
    } else {
      const bound = second.key;
      // on a tie with the runner-up's timestamp, whether the top run still goes first
      const winsTie = second.entries !== undefined && (top.lane !== second.lane ? top.lane < second.lane : backward ? top.rank > second.rank : top.rank < second.rank);
      if (backward) {
        for (; pos !== end; pos--) {
          const e = entries[pos]!;
          if (e.ts < bound || (e.ts === bound && !winsTie)) break;
          if (sliceOver()) {
            paused = true;
            break;
          }
          if (!visit(top.lane, e)) return;
        }
      } else {
        for (; pos !== end; pos++) {
          const e = entries[pos]!;
          if (e.ts > bound || (e.ts === bound && !winsTie)) break;
          if (sliceOver()) {
            paused = true;
            break;
          }
          if (!visit(top.lane, e)) return;
        }
      }
    }
    if (pos === end) popTop();
    else {
      top.pos = pos;
      top.key = entries[pos]!.ts;
      siftDown(0);
    }
    if (paused) {
      // what live cursors have left is copied: writes while the merge waits do not move them
      for (const c of heap) if (c.entries && c.run.live) keepWindow(c, backward);
      await new Promise<void>((resolve) => setImmediate(resolve));
      options.signal?.throwIfAborted();
      sliceEnd = performance.now() + sliceMs;
    }
  }
}
