// The stores' pins for a backup (lib/backup-pin.ts): while pinned, the
// metrics store writes no checkpoint (so deletes neither its checkpoint nor
// its write-ahead segments) and names the newest checkpoint and the segments
// from it; a checkpoint under way is finished before the pin holds. The log
// store's chunk files are not removed while pinned (their removal waits for
// the release), nor its write-ahead log cleared at close.
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openFileChunkStore } from "../../src/apps/logstore/core/chunk-store.ts";
import { openLogStore } from "../../src/apps/logstore/core/store.ts";
import { ingest } from "../../src/apps/metrics/core/ingest.ts";
import { decodeWriteRequest, uncompressBody } from "../../src/apps/metrics/core/remote-write.ts";
import { openMetricsStore, type MetricsStore } from "../../src/apps/metrics/core/store.ts";
import type { MetricsLimits } from "../../src/apps/metrics/core/types.ts";
import { loadConfig } from "../../src/config/load.ts";
import { openDatabase, type Database } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { ingestDeps, writeBody } from "../metrics/helpers.ts";

const dirs: string[] = [];
const dbs: Database[] = [];
afterEach(async () => {
  for (const d of dbs.splice(0)) await d.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "outpost-pins-"));
  dirs.push(d);
  return d;
};
const memoryDb = async () => {
  const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
  dbs.push(db);
  return db;
};

describe("backup pins", () => {
  it("metrics store: no checkpoint while pinned; the newest checkpoint and the segments from it are named; a checkpoint under way finishes first", async () => {
    const walDir = tempDir();
    const db = await memoryDb();
    const store = await openMetricsStore({ pg: db.pg, logger: silentLogger, walDir, now: Date.now, flushInterval: 3_600_000, checkpointWalBytes: 1 << 40, checkpointInterval: 3_600_000 });
    const limits: MetricsLimits = { ...loadConfig().metrics.limits, max_global_series_per_metric: 0 };
    const t0 = Date.now() - 600_000;
    const push = (s: MetricsStore, round: number) => {
      const raw = writeBody([{ labels: { __name__: "m", round: String(round % 3) }, samples: [[t0 + round * 1000, round]] }]);
      expect(ingest(ingestDeps(s, () => limits), "t", decodeWriteRequest(uncompressBody(raw, 1 << 26)), raw).status).toBe(200);
    };
    push(store, 1);
    // pinned while a checkpoint is being written: the pin waits for it, and names it
    const writing = store.checkpoint();
    const pin = await store.pinForBackup();
    await writing;
    const checkpoints = () => readdirSync(walDir).filter((f) => f.startsWith("checkpoint.")).sort();
    const held = checkpoints();
    expect(held).toHaveLength(1);
    push(store, 2);
    const named = pin.files().map((f) => f.path.slice(walDir.length + 1));
    expect(named[0]).toBe(held[0]);
    const from = Number(held[0]!.slice("checkpoint.".length));
    expect(named.slice(1).every((f) => /^\d{8}\.wal$/.test(f) && Number(f.slice(0, 8)) >= from)).toBe(true);
    expect(pin.files().at(-1)!.bytes).toBeGreaterThan(0);
    // asked for while pinned: nothing written, nothing deleted
    const files = readdirSync(walDir).sort();
    await store.checkpoint();
    expect(readdirSync(walDir).sort()).toEqual(files);
    pin.release();
    push(store, 3);
    await store.checkpoint();
    expect(checkpoints()).toHaveLength(1);
    expect(checkpoints()[0]).not.toBe(held[0]);
    await store.close();
  });

  it("chunk files: a segment left without live chunks is not removed while pinned, and goes at the release", async () => {
    const dir = tempDir();
    const chunks = openFileChunkStore(dir, new Map(), 100);
    const [a] = await chunks.put([new Uint8Array(200)]);
    chunks.commit(a!);
    const [b] = await chunks.put([new Uint8Array(10)]);
    chunks.commit(b!);
    expect(b!.segment).toBe(a!.segment + 1);
    const first = join(dir, `${String(a!.segment).padStart(8, "0")}.seg`);
    const release = chunks.pin();
    chunks.delete(a!);
    // close removes segments without live chunks at once (no grace period): not while pinned
    await chunks.close();
    expect(existsSync(first)).toBe(true);
    release();
    expect(existsSync(first)).toBe(false);
  });

  it("log store: its files are named (write-ahead segments, chunk files) and its write-ahead log is not cleared at a close while pinned", async () => {
    const dir = tempDir();
    const db = await memoryDb();
    const walDir = join(dir, "logs-wal");
    const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir, chunkDir: join(dir, "logs-chunks"), now: Date.now });
    const stream = await store.stream("t", { job: "j" });
    store.append("t", [{ stream, entries: [{ ts: BigInt(Date.now()) * 1_000_000n, line: "kept" }] }]);
    await store.flush(true);
    store.append("t", [{ stream, entries: [{ ts: BigInt(Date.now()) * 1_000_000n + 1n, line: "in the log" }] }]);
    const pin = store.pinForBackup();
    const named = pin.files().map((f) => f.path.slice(dir.length + 1));
    expect(named.some((f) => /^logs-wal\/\d{8}\.wal$/.test(f))).toBe(true);
    expect(named.some((f) => /^logs-chunks\/\d{8}\.seg$/.test(f))).toBe(true);
    await store.close();
    expect(readdirSync(walDir).filter((f) => f.endsWith(".wal")).length).toBeGreaterThan(0);
    pin.release();
  });
});
