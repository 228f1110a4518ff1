// A disk that never fills (storage.max_disk_usage, storage.min_free_disk_space):
// every check interval the data dir's size and its filesystem's free space are
// measured; past the cap (or under the free-space floor) the oldest stored
// data is dropped first, across every store that registered a reclaimer, in
// time slices from the oldest data towards now, until enough is freed. Only
// when nothing is left to drop are pushes refused (refusal()), until a later
// check finds room again.
//
// Dropped rows of the database do not shrink its files: the space is reused
// by the rows written next. So the bytes a drop freed count as free ("credit")
// until the data dir grows again (the freed space is used up) or shrinks by
// as much (segment files unlinked).
import { readFileSync, writeFileSync } from "node:fs";
import { statfs } from "node:fs/promises";
import { join } from "node:path";
import { directorySize } from "./dir-size.ts";
import type { Logger } from "./logger.ts";
import { formatSize } from "./units.ts";

export interface Reclaimer {
  /** what it holds, for the log ("log chunks") */
  name: string;
  /**
   * "rows": what it drops frees space inside database files, reused by the next rows written;
   * "files": files it empties are deleted (perhaps after a grace period: pendingBytes)
   */
  kind: "rows" | "files";
  /** bytes of emptied files not deleted yet (kind "files") */
  pendingBytes?(): number;
  /** the end time (ms) of the oldest data it could drop; undefined: nothing to drop */
  oldest(): Promise<number | undefined>;
  /** drops the data that ends before `cutoff` (ms): the bytes it frees on disk (compressed sizes, an estimate) */
  dropBefore(cutoff: number): Promise<number>;
  /** once after a drop's slices: makes the space reusable (a database vacuum) */
  settle?(): Promise<void>;
}

export type Cap = { bytes: number } | { percent: number } | undefined;

export interface DiskGuardOptions {
  dir: string;
  cap: Cap;
  /** bytes the filesystem keeps free (0: not checked) */
  minFree: number;
  intervalMs: number;
  /** folders of dir not counted, relative to it (backups: nothing to drop there) */
  exclude?: string[];
  /** top-level folders of dir holding the stores' own files (not the database's): their growth does not use up credit */
  fileDirs?: string[];
  /** where the credit is kept across restarts (the database's files do not shrink when the process stops) */
  stateFile?: string;
  logger: Logger;
  now: () => number;
}

export interface DiskUsage {
  /** bytes under the data dir (less the excluded folders) */
  used: number;
  /** of which the database's files */
  database: number;
  /** the cap in bytes, undefined when none */
  cap: number | undefined;
  /** the filesystem's free bytes and size, when the runtime can tell */
  free: number | undefined;
  size: number | undefined;
}

export interface DiskGuard {
  /** why pushes are refused now (the 507 message), undefined when they are not */
  refusal(): string | undefined;
  register(r: Reclaimer): void;
  /** one check now (also what the timer runs); checks never overlap */
  check(): Promise<DiskUsage>;
  /** the last measurement */
  usage(): DiskUsage | undefined;
  stop(): void;
}

/** the slices from the oldest data to now that a drop walks, oldest first */
const SLICES = 64;
/** a drop frees this much below the cap, so one drop is not followed by another at the next write */
const HEADROOM = 0.05;

/** the filesystem's free and total bytes, undefined where the runtime has no statfs */
export async function fsSpace(dir: string): Promise<{ free: number; size: number } | undefined> {
  try {
    const s = await statfs(dir);
    return { free: Number(s.bavail) * Number(s.bsize), size: Number(s.blocks) * Number(s.bsize) };
  } catch {
    return undefined;
  }
}

export function createDiskGuard(o: DiskGuardOptions): DiskGuard {
  const reclaimers: Reclaimer[] = [];
  const exclude = (o.exclude ?? []).map((d) => join(o.dir, d));
  let last: DiskUsage | undefined;
  let refusing: string | undefined;
  /** bytes freed inside files that do not shrink, counted as free until the dir grows or shrinks by as much */
  let credit = 0;
  let lastDatabase: number | undefined;
  const saved = o.stateFile ? readState(o.stateFile) : undefined;
  if (saved) {
    credit = saved.credit;
    lastDatabase = saved.database;
  }
  const fileDirs = new Set(o.fileDirs ?? []);
  let running: Promise<DiskUsage> | undefined;
  let percentUnknownWarned = false;

  const measure = async (): Promise<DiskUsage> => {
    const [database, files, space] = await Promise.all([
      directorySize(o.dir, new Set([...exclude, ...[...fileDirs].map((d) => join(o.dir, d))])),
      Promise.all([...fileDirs].map((d) => directorySize(join(o.dir, d)))),
      fsSpace(o.dir),
    ]);
    const used = database + files.reduce((a, b) => a + b, 0);
    let cap: number | undefined;
    if (o.cap && "bytes" in o.cap) cap = o.cap.bytes;
    else if (o.cap && space) cap = Math.floor((space.size * o.cap.percent) / 100);
    else if (o.cap && !percentUnknownWarned) {
      percentUnknownWarned = true;
      o.logger.warn("storage.max_disk_usage is a percentage but this runtime cannot tell the filesystem's size: no cap applies; give it in bytes");
    }
    return { used, database, cap, free: space?.free, size: space?.size };
  };

  /** how many bytes to free now: past the cap, or under the free-space floor */
  const pending = () => reclaimers.reduce((n, r) => n + (r.pendingBytes?.() ?? 0), 0);
  /**
   * how many bytes to free: past the cap or under the free-space floor (`dropping`: a drop under
   * way goes on to 5% under them, so the next write does not start another)
   */
  const excess = (u: DiskUsage, dropping = false): number => {
    const margin = dropping ? 1 - HEADROOM : 1;
    const effective = Math.max(0, u.used - credit - pending());
    let need = 0;
    if (u.cap !== undefined && effective > u.cap * margin) need = effective - Math.floor(u.cap * margin);
    const free = u.free === undefined ? undefined : u.free + credit + pending();
    const floor = o.minFree * (2 - margin);
    if (o.minFree > 0 && free !== undefined && free < floor) need = Math.max(need, Math.ceil(floor - free));
    return need;
  };

  /**
   * drops the oldest data of every reclaimer, slice by slice from the oldest towards now, until
   * the measured usage less what the drops freed is within bounds: database rows freed count at
   * once (credit), chunk files once emptied (pendingBytes), so a file whose older chunks went while
   * newer ones stay frees nothing yet and the next slice goes on
   */
  const drop = async (u: DiskUsage): Promise<number> => {
    const oldest = (await Promise.all(reclaimers.map((r) => r.oldest()))).filter((t): t is number => t !== undefined);
    if (!oldest.length) return 0;
    const from = Math.min(...oldest);
    const to = Math.max(o.now(), ...oldest);
    let freed = 0;
    for (let k = 1; k <= SLICES && excess(u, true) > 0; k++) {
      const cutoff = k === SLICES ? to + 1 : Math.floor(from + ((to - from) * k) / SLICES);
      for (const r of reclaimers) {
        const n = await r.dropBefore(cutoff);
        freed += n;
        if (r.kind === "rows") credit += n;
      }
    }
    if (freed > 0) for (const r of reclaimers) await r.settle?.();
    return freed;
  };

  const check = async (): Promise<DiskUsage> => {
    let u = await measure();
    // the database's files grew: as much of the space freed inside them is used up; they shrank: that much was returned
    if (lastDatabase !== undefined) credit = Math.max(0, credit - Math.abs(u.database - lastDatabase));
    if (excess(u) > 0) {
      const freed = await drop(u);
      if (freed > 0) {
        o.logger.warn("the data dir is past its cap or the filesystem nearly full: dropped the oldest stored data", {
          used: formatSize(u.used),
          cap: u.cap === undefined ? undefined : formatSize(u.cap),
          free: u.free === undefined ? undefined : formatSize(u.free),
          freed: formatSize(freed),
        });
      }
      const message = excess(u) > 0 ? REFUSAL : undefined;
      if (message && !refusing) o.logger.error(`refusing pushes: ${refusalText(u, o.minFree)}`);
      if (!message && refusing) o.logger.info("pushes are accepted again: the data dir is back under its cap");
      refusing = message;
    } else {
      if (refusing) o.logger.info("pushes are accepted again: the data dir is back under its cap");
      refusing = undefined;
    }
    if (o.stateFile && (credit !== saved?.credit || u.database !== lastDatabase)) writeState(o.stateFile, { credit, database: u.database });
    lastDatabase = u.database;
    last = u;
    return u;
  };

  const timer = setInterval(() => {
    void run().catch((err: unknown) => o.logger.error("measuring the data dir failed", { err: String(err) }));
  }, o.intervalMs);
  (timer as { unref?: () => void }).unref?.();
  const run = () => (running ??= check().finally(() => (running = undefined)));

  return {
    refusal: () => refusing,
    register: (r) => void reclaimers.push(r),
    check: run,
    usage: () => last,
    stop: () => clearInterval(timer),
  };
}

function readState(file: string): { credit: number; database: number } | undefined {
  try {
    const v = JSON.parse(readFileSync(file, "utf8")) as { credit?: unknown; database?: unknown };
    return typeof v.credit === "number" && typeof v.database === "number" && v.credit >= 0 ? { credit: v.credit, database: v.database } : undefined;
  } catch {
    return undefined;
  }
}

function writeState(file: string, state: { credit: number; database: number }): void {
  try {
    writeFileSync(file, JSON.stringify(state), { mode: 0o600 });
  } catch {
    // a read-only or full disk: the credit is then re-learned after a restart
  }
}

/** what a refused push is told; the figures go to the log only (a caller may not even hold the push scope yet) */
const REFUSAL = "the data dir is past storage.max_disk_usage (or its filesystem under storage.min_free_disk_space) and no stored chunk is left to drop: pushes are refused until space is freed";

function refusalText(u: DiskUsage, minFree: number): string {
  if (u.cap !== undefined && u.used > u.cap) {
    return `the data dir holds ${formatSize(u.used)}, over storage.max_disk_usage (${formatSize(u.cap)}), and no stored chunk is left to drop: pushes are refused until space is freed`;
  }
  return `the filesystem has ${formatSize(u.free ?? 0)} free, under storage.min_free_disk_space (${formatSize(minFree)}), and no stored chunk is left to drop: pushes are refused until space is freed`;
}

/** the start's warning when the filesystem is nearly full (within twice the floor, or 5% of its size) */
export function lowSpaceWarning(u: DiskUsage, minFree: number): string | undefined {
  if (u.free === undefined || u.size === undefined) return undefined;
  const threshold = Math.max(minFree * 2, u.size * 0.05);
  if (u.free >= threshold) return undefined;
  return `the data dir's filesystem has only ${formatSize(u.free)} free of ${formatSize(u.size)}: past storage.min_free_disk_space (${formatSize(minFree)}) the oldest telemetry is dropped and then pushes are refused`;
}
