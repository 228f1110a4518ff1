// Issue 19: the head's checkpoints and recovery, in process on a data dir (a
// store left without close() is a kill -9; the database, being in memory
// here, survives it as PGlite's own files would). A start reads the newest
// checkpoint and replays only the log's segments after it; a clean stop
// leaves a final checkpoint and no segment; a damaged checkpoint or segment
// is reported and what is intact is recovered, the store staying up.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ingest } from "../../src/apps/metrics/core/ingest.ts";
import { packWriteRequest, unpackWriteRequest } from "../../src/apps/metrics/core/push-decode.ts";
import { decodeWriteRequest, replayWriteRequest, uncompressBody, type LabelPair } from "../../src/apps/metrics/core/remote-write.ts";
import { newBudget, openMetricsStore, type MetricsStore } from "../../src/apps/metrics/core/store.ts";
import type { MetricsLimits } from "../../src/apps/metrics/core/types.ts";
import { loadConfig } from "../../src/config/load.ts";
import { openDatabase, type Database } from "../../src/db/open.ts";
import { createLogger, type Logger } from "../../src/lib/logger.ts";
import { mulberry32 } from "../helpers/rng.ts";
import { ingestDeps, ownSamples, writeBody } from "./helpers.ts";

const dirs: string[] = [];
const dbs: Database[] = [];
afterEach(async () => {
  for (const d of dbs.splice(0)) await d.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: createLogger({ level: "debug", format: "logfmt", write: (l) => lines.push(l) }), lines };
}

async function setup() {
  const walDir = mkdtempSync(join(tmpdir(), "outpost-metrics-recovery-"));
  dirs.push(walDir);
  const db = await openDatabase({ dataDir: undefined, logger: createLogger({ level: "error", format: "logfmt", write: () => {} }) });
  dbs.push(db);
  const limits: MetricsLimits = { ...loadConfig().metrics.limits, max_global_series_per_metric: 0 };
  const open = (logger: Logger) =>
    openMetricsStore({ pg: db.pg, logger, walDir, now: Date.now, flushInterval: 3_600_000, checkpointWalBytes: 1 << 40, checkpointInterval: 3_600_000 });
  const push = (store: MetricsStore, series: Array<{ labels: Record<string, string>; samples: Array<[number, number]> }>) => {
    const deps = ingestDeps(store, () => limits);
    const raw = writeBody(series);
    const result = ingest(deps, "t", decodeWriteRequest(uncompressBody(raw, 1 << 26)), raw);
    expect(result.status).toBe(200);
  };
  const read = async (store: MetricsStore) => {
    const found = await store.querier("t", newBudget(0, 0)).select([{ type: "=~", name: "__name__", value: ".+" }], 0, Date.now() + 3_600_000);
    return found.map((s) => ({ labels: s.labels, t: Array.from(ownSamples(s).t), v: Array.from(ownSamples(s).v) }));
  };
  return { walDir, open, push, read };
}

const t0 = Date.now() - 30 * 60_000;
const batch = (round: number, series: number, from = 0) =>
  Array.from({ length: series }, (_, i) => ({
    labels: { __name__: `m${(i + from) % 3}`, s: String(i + from), job: "j" },
    samples: [[t0 + round * 15_000, round * 100 + i + from]] as Array<[number, number]>,
  }));

describe("metrics store recovery", () => {
  it("after kill -9: the checkpoint is read and only the log's tail replayed; series keep their ids", async () => {
    const { walDir, open, push, read } = await setup();
    const first = await open(recordingLogger().logger);
    for (let r = 0; r < 5; r++) push(first, batch(r, 40));
    await first.checkpoint();
    const segmentsAfterCheckpoint = readdirSync(walDir).filter((f) => f.endsWith(".wal"));
    // the segments before the checkpoint are gone: every record in them is in it
    expect(readdirSync(walDir).filter((f) => f.startsWith("checkpoint."))).toHaveLength(1);
    // the tail: more samples, and series made after the checkpoint
    for (let r = 5; r < 8; r++) push(first, batch(r, 50));
    const before = await read(first);
    const ids = new Map([...first.head("t").byId.values()].map((s) => [JSON.stringify(s.labels), s.id]));
    expect(before).toHaveLength(50);
    expect(readdirSync(walDir).filter((f) => f.endsWith(".wal")).length).toBeGreaterThanOrEqual(segmentsAfterCheckpoint.length);
    // kill -9: no close

    const log = recordingLogger();
    const second = await open(log.logger);
    expect(log.lines.some((l) => l.includes("metrics store checkpoint read") && l.includes("series=40"))).toBe(true);
    expect(log.lines.find((l) => l.includes("write-ahead log replayed"))).toContain("records=3 ");
    expect(await read(second)).toEqual(before);
    for (const s of second.head("t").byId.values()) expect(s.id).toBe(ids.get(JSON.stringify(s.labels)));
    // and it goes on: a push after the restart, chunks to the database
    push(second, batch(8, 50));
    await second.flush(true);
    expect((await read(second))[0]!.t).toHaveLength(9);
    await second.close();
  });

  it("a clean stop writes a final checkpoint and no segment: the next start replays nothing", async () => {
    const { walDir, open, push, read } = await setup();
    const first = await open(recordingLogger().logger);
    for (let r = 0; r < 4; r++) push(first, batch(r, 30));
    const before = await read(first);
    await first.close();
    expect(readdirSync(walDir).filter((f) => f.endsWith(".wal"))).toEqual([]);
    expect(readdirSync(walDir).filter((f) => f.startsWith("checkpoint."))).toHaveLength(1);

    const log = recordingLogger();
    const second = await open(log.logger);
    expect(log.lines.some((l) => l.includes("write-ahead log replayed"))).toBe(false);
    expect(await read(second)).toEqual(before);
    // the open chunks came back as they were: appending goes on in them
    push(second, batch(4, 30));
    expect((await read(second)).find((x) => x.labels.s === "5")!.v).toEqual([5, 105, 205, 305, 405]);
    await second.close();
  });

  it("after a clean stop and a start, what is pushed survives a kill -9 (new segments are numbered from the checkpoint's on)", async () => {
    const { walDir, open, push, read } = await setup();
    const first = await open(recordingLogger().logger);
    for (let r = 0; r < 3; r++) push(first, batch(r, 10));
    await first.close();
    const second = await open(recordingLogger().logger);
    for (let r = 3; r < 6; r++) push(second, batch(r, 10));
    const before = await read(second);
    const checkpoint = Number(readdirSync(walDir).find((f) => f.startsWith("checkpoint."))!.slice("checkpoint.".length));
    // the records went to a segment the checkpoint's replay reads (they went to 00000001.wal, below it, and were lost)
    expect(readdirSync(walDir).filter((f) => f.endsWith(".wal")).every((f) => Number(f.slice(0, 8)) >= checkpoint)).toBe(true);
    // kill -9: no close
    const third = await open(recordingLogger().logger);
    expect(await read(third)).toEqual(before);
    await third.close();
  });

  it("a damaged checkpoint is reported; the database and the log's segments are recovered and the store serves", async () => {
    const { walDir, open, push, read } = await setup();
    const first = await open(recordingLogger().logger);
    for (let r = 0; r < 3; r++) push(first, batch(r, 20));
    // in the database: the first three rounds
    await first.flush(true);
    await first.checkpoint();
    for (let r = 3; r < 5; r++) push(first, batch(r, 20));
    const before = await read(first);
    const [file] = readdirSync(walDir).filter((f) => f.startsWith("checkpoint."));
    const bytes = readFileSync(join(walDir, file!));
    bytes[Math.floor(bytes.length / 2)]! ^= 0xff;
    writeFileSync(join(walDir, file!), bytes);

    const log = recordingLogger();
    const second = await open(log.logger);
    const error = log.lines.find((l) => l.includes("checkpoint cannot be read"));
    expect(error).toContain("level=error");
    expect(error).toContain("checksum mismatch");
    // what was in the database and the tail: everything here
    expect(await read(second)).toEqual(before);
    push(second, batch(5, 20));
    expect((await read(second))[0]!.t).toHaveLength(6);
    await second.close();
  });

  it("a damaged write-ahead segment is reported and kept aside; the records before the damage are replayed", async () => {
    const { walDir, open, push, read } = await setup();
    const first = await open(recordingLogger().logger);
    for (let r = 0; r < 6; r++) push(first, batch(r, 10));
    const [segment] = readdirSync(walDir).filter((f) => f.endsWith(".wal"));
    const bytes = readFileSync(join(walDir, segment!));
    // the last record's payload: its checksum no longer matches
    bytes[bytes.length - 3]! ^= 0xff;
    writeFileSync(join(walDir, segment!), bytes);

    const log = recordingLogger();
    const second = await open(log.logger);
    const error = log.lines.find((l) => l.includes("write-ahead segment damaged"));
    expect(error).toContain("level=error");
    expect(existsSync(join(walDir, `${segment}.damaged`))).toBe(true);
    const got = await read(second);
    expect(got).toHaveLength(10);
    expect(got[0]!.t).toHaveLength(5);
    await second.close();
    // the copy stays for the operator after the next checkpoint
    expect(existsSync(join(walDir, `${segment}.damaged`))).toBe(true);
  });
});

describe("metrics store checkpoints that fail", () => {
  it("a checkpoint that cannot be written is reported and not tried again at every push; the log keeps everything", async () => {
    const walDir = mkdtempSync(join(tmpdir(), "outpost-metrics-recovery-"));
    dirs.push(walDir);
    // where the checkpoints' temporary files would go: directories, so every write fails
    for (let seg = 1; seg <= 40; seg++) mkdirSync(join(walDir, `checkpoint.${String(seg).padStart(8, "0")}.tmp`));
    const db = await openDatabase({ dataDir: undefined, logger: createLogger({ level: "error", format: "logfmt", write: () => {} }) });
    dbs.push(db);
    const log = recordingLogger();
    // a checkpoint due after every push
    const store = await openMetricsStore({ pg: db.pg, logger: log.logger, walDir, now: Date.now, flushInterval: 3_600_000, checkpointWalBytes: 1, checkpointInterval: 3_600_000 });
    const limits = { ...loadConfig().metrics.limits, max_global_series_per_metric: 0 };
    for (let r = 0; r < 20; r++) {
      const raw = writeBody(batch(r, 5));
      expect(ingest(ingestDeps(store, () => limits), "t", decodeWriteRequest(uncompressBody(raw, 1 << 26)), raw).status).toBe(200);
      await new Promise((resolve) => setImmediate(resolve));
      await new Promise((resolve) => setImmediate(resolve));
    }
    const failures = log.lines.filter((l) => l.includes("writing a metrics store checkpoint failed"));
    expect(failures).toHaveLength(1);
    expect(failures[0]).toContain("level=error");
    expect(readdirSync(walDir).filter((f) => f.endsWith(".wal")).length).toBeLessThanOrEqual(2);
    // nothing acknowledged is lost: a start without the store's close replays the log
    const again = await openMetricsStore({ pg: db.pg, logger: recordingLogger().logger, walDir, now: Date.now, flushInterval: 3_600_000, checkpointWalBytes: 1 << 40 });
    const got = await again.querier("t", newBudget(0, 0)).select([{ type: "=~", name: "__name__", value: ".+" }], 0, Date.now() + 3_600_000);
    expect(got.map((s) => ownSamples(s).t.length)).toEqual([20, 20, 20, 20, 20]);
  });
});

describe("replayWriteRequest", () => {
  it("walks the same series, raw keys, labels and samples as decodeWriteRequest", () => {
    const rand = mulberry32(19);
    for (let round = 0; round < 50; round++) {
      const series = Array.from({ length: 1 + Math.floor(rand() * 20) }, (_, i) => ({
        labels: Object.fromEntries(Array.from({ length: 1 + Math.floor(rand() * 5) }, (_, k) => [`l${k}`, `v${Math.floor(rand() * 1e6)}é${i}`])),
        samples: Array.from({ length: Math.floor(rand() * 4) }, (_, k) => [Math.floor((rand() - 0.3) * 2 ** 45) + k, rand() < 0.2 ? NaN : rand() * 1e9 - 5e8] as [number, number]),
      }));
      const raw = uncompressBody(writeBody(series), 1 << 26);
      const want = decodeWriteRequest(raw).timeseries.map((ts) => ({ rawKey: ts.rawKey, check: ts.rawCheck, labels: ts.labels, samples: ts.samples.map((x) => [x.timestampMs, x.value, !!x.stale]) }));
      type Walked = { rawKey: number; check: number; labels: LabelPair[]; samples: unknown[][] };
      const got: Walked[] = [];
      replayWriteRequest<Walked>(raw, {
        known: () => undefined,
        make: (rawKey, check, labels) => {
          const s = { rawKey, check, labels, samples: [] };
          got.push(s);
          return s;
        },
        sample: (s, t, v, stale) => s.samples.push([t, v, stale]),
      });
      expect(got).toEqual(want);
      // packed on a decoding worker and unpacked on the event loop: the same request, labels skipped alike
      const known = (key: number) => key % 2 === 0;
      expect(unpackWriteRequest(packWriteRequest(raw), known)).toEqual(decodeWriteRequest(raw, known));
    }
  });

  it("label names are decoded from their bytes at every place, whatever the series before named there", () => {
    // a decoded name is kept by its place and reused when the next series has its bytes there: only an
    // ASCII one, or the bytes of "é" (c3 a9) would be taken for "Ã©" (the chars u+00c3 u+00a9)
    const sets: Array<Record<string, string>> = [{ "Ã©": "1", b: "x" }, { "é": "2", b: "y" }, { b: "z", c: "w" }, { a: "1", b: "2" }, { a: "3", bb: "4" }, { "é": "5" }, { "é": "6" }];
    const raw = uncompressBody(writeBody(sets.map((labels) => ({ labels, samples: [[1, 1]] }))), 1 << 26);
    const pairs = (l: Record<string, string>) => Object.entries(l).map(([name, value]) => ({ name, value }));
    expect(unpackWriteRequest(packWriteRequest(raw)).timeseries.map((t) => t.labels)).toEqual(sets.map(pairs));
    expect(decodeWriteRequest(raw).timeseries.map((t) => t.labels)).toEqual(sets.map(pairs));
  });

  it("a packed request carries metadata, exemplars and histograms as decodeWriteRequest counts them", () => {
    // WriteRequest { timeseries { labels {a=b} samples {1.5, 7} exemplars {} histograms {} } metadata {type 1, "m", help "h", unit "u"} }
    const label = [0x0a, 0x06, 0x0a, 0x01, 0x61, 0x12, 0x01, 0x62];
    const sample = [0x12, 0x0b, 0x09, 0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0x10, 0x07];
    const series = [...label, ...sample, 0x1a, 0x00, 0x22, 0x00];
    const metadata = [0x08, 0x01, 0x12, 0x01, 0x6d, 0x22, 0x01, 0x68, 0x2a, 0x01, 0x75];
    const raw = new Uint8Array([0x0a, series.length, ...series, 0x1a, metadata.length, ...metadata]);
    const want = decodeWriteRequest(raw);
    expect(want.timeseries[0]).toMatchObject({ labels: [{ name: "a", value: "b" }], samples: [{ value: 1.5, timestampMs: 7 }], exemplars: 1, histograms: 1 });
    expect(unpackWriteRequest(packWriteRequest(raw))).toEqual(want);
  });
});
