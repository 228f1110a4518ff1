// The log store's storage on a data dir: chunk bytes in segment files, rows
// with metadata only; a data dir of the previous release (format 1 chunks in
// the database) reads back; damaged chunk files are reported and skipped.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { encodeChunk, type Entry } from "../../src/apps/logstore/core/chunks.ts";
import { streamKey } from "../../src/apps/logstore/core/labels.ts";
import { movableBuffers } from "../../src/apps/logstore/core/columns.ts";
import { logTasks } from "../../src/apps/logstore/core/scan-tasks.ts";
import { openLogStore } from "../../src/apps/logstore/core/store.ts";
import { openWal, readWal } from "../../src/apps/logstore/core/wal.ts";
import { fileWalSource } from "../../src/lib/segment-wal.ts";
import { protobufBody } from "./helpers.ts";
import { inlineRunner, type TaskRunner } from "../../src/lib/tasks.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { useDataDirServer } from "../helpers/process.ts";
import { logClient, nsAgo } from "./helpers.ts";

/** the lines of an answer in time order (entries with structured metadata are result streams of their own) */
const byTime = (result: Array<{ values: string[][] }>, backward = false) =>
  result.flatMap((s) => s.values).sort((a, b) => (BigInt(a[0]!) < BigInt(b[0]!) ? -1 : 1) * (backward ? -1 : 1)).map((v) => v[1]);
const linesOf = async (base: string, tenant: string, query: string) =>
  byTime((await logClient(base).get("/svc/api/v1/query_range", tenant, { query, direction: "forward", limit: "5000", start: nsAgo(3600), end: nsAgo(-60) })).body.data.result);

const corruptCount = async (base: string, tenant: string) => {
  const text = (await logClient(base).get("/metrics", undefined)).text;
  const m = new RegExp(`^svc_chunk_store_corrupt_chunks_total\\{tenant="${tenant}"\\} (\\d+)`, "m").exec(text);
  return m ? Number(m[1]) : 0;
};

describe("log store: a data dir of the previous release (format 1 chunks in the database)", () => {
  const server = useDataDirServer("outpost-logs-upgrade-");

  it("opens and reads back unchanged, then stores new chunks in files beside the old rows", async () => {
    // the previous release: schema 9 (initdb, not the build-time seed, which holds every
    // migration), chunks as gzip JSON rows in log_chunks.data
    const old = await openDatabase({ dataDir: server.dataDir, logger: silentLogger, migrations: migrations.filter((m) => m.version <= 9), seed: false });
    const written: Record<string, string[]> = {};
    try {
      let seq = 0;
      for (const app of ["u1", "u2"]) {
        const labels = { app, job: "upgrade" };
        const r = await old.pg.query<{ id: number }>("insert into log_streams (tenant, key, labels, created_at) values ($1, $2, $3, $4) returning id", ["up", streamKey(labels), labels, Date.now()]);
        written[app] = [];
        for (let chunk = 0; chunk < 3; chunk++) {
          const entries: Entry[] = Array.from({ length: 40 }, (_, i) => ({
            ts: BigInt(nsAgo(1800 - chunk * 100 - i)),
            line: `old ${app} chunk ${chunk} line ${i} ünïcode "quoted"`,
            ...(i % 7 === 0 ? { metadata: { trace_id: `t${i}` } } : {}),
          }));
          written[app].push(...entries.map((e) => e.line));
          await old.pg.query(
            "insert into log_chunks (stream_id, tenant, from_ns, to_ns, lines, bytes, last_seq, data) values ($1, $2, $3, $4, $5, $6, $7, $8)",
            [r.rows[0]!.id, "up", String(entries[0]!.ts), String(entries.at(-1)!.ts), entries.length, 1000, ++seq, encodeChunk(entries)],
          );
        }
      }
    } finally {
      await old.close();
    }

    const first = await server.start();
    expect(await linesOf(first.urls.logs!, "up", '{app="u1"}')).toEqual(written.u1);
    expect(await linesOf(first.urls.logs!, "up", '{app="u1"} |= "chunk 2"')).toEqual(written.u1!.filter((l) => l.includes("chunk 2")));
    const back = (await logClient(first.urls.logs!).get("/svc/api/v1/query_range", "up", { query: '{app="u2"}', limit: "5", start: nsAgo(3600), end: nsAgo(-60) })).body.data.result;
    expect(byTime(back, true)).toEqual(written.u2!.slice(-5).reverse());
    // new lines go to chunk files; old and new read back together after a restart
    expect((await logClient(first.urls.logs!).push("up", [{ stream: { app: "u1", job: "upgrade" }, values: [[nsAgo(10), "new after upgrade"]] }])).status).toBe(204);
    expect(await first.stop("SIGTERM")).toBe(0);
    expect(readdirSync(join(server.dataDir, "logs-chunks")).filter((f) => f.endsWith(".seg")).length).toBe(1);

    const second = await server.start();
    expect(await linesOf(second.urls.logs!, "up", '{app="u1"}')).toEqual([...written.u1!, "new after upgrade"]);
    expect(await linesOf(second.urls.logs!, "up", '{app="u2"}')).toEqual(written.u2);
    expect(await second.stop("SIGTERM")).toBe(0);
  }, 180_000);
});

describe("log store: damaged chunk files", () => {
  const server = useDataDirServer("outpost-logs-corrupt-");

  it("a truncated and a bit-flipped segment: the store starts, queries answer the other chunks, the counter moves", async () => {
    const push = async (base: string, app: string) => {
      const values: Array<[string, string]> = Array.from({ length: 30 }, (_, i) => [nsAgo(600 - i), `${app} line ${i}`]);
      expect((await logClient(base).push("dmg", [{ stream: { app }, values }])).status).toBe(204);
      return values.map((v) => v[1]);
    };
    // two runs: segment 1 holds chunks of a and b, segment 2 of c and d (a clean stop writes every head)
    const first = await server.start();
    const a = await push(first.urls.logs!, "a");
    await push(first.urls.logs!, "b");
    expect(await first.stop("SIGTERM")).toBe(0);
    const second = await server.start();
    const c = await push(second.urls.logs!, "c");
    await push(second.urls.logs!, "d");
    expect(await second.stop("SIGTERM")).toBe(0);

    const dir = join(server.dataDir, "logs-chunks");
    const segs = readdirSync(dir).filter((f) => f.endsWith(".seg")).sort();
    expect(segs.length).toBe(2);
    // a bit flipped in the second chunk of the first segment (b's), the last bytes of the second cut off (d's)
    const one = join(dir, segs[0]!);
    const bytes = readFileSync(one);
    bytes[bytes.length - 20]! ^= 0x04;
    writeFileSync(one, bytes);
    truncateSync(join(dir, segs[1]!), statSync(join(dir, segs[1]!)).size - 7);

    const third = await server.start();
    expect((await linesOf(third.urls.logs!, "dmg", '{app=~".+"}')).length).toBe(60);
    expect(await corruptCount(third.urls.logs!, "dmg")).toBe(2);
    expect(await linesOf(third.urls.logs!, "dmg", '{app="a"}')).toEqual(a);
    expect(await linesOf(third.urls.logs!, "dmg", '{app="c"}')).toEqual(c);
    // asked again: skipped again, logged and counted once per chunk
    expect(await linesOf(third.urls.logs!, "dmg", '{app="b"}')).toEqual([]);
    expect(await corruptCount(third.urls.logs!, "dmg")).toBe(2);
    expect((await logClient(third.urls.logs!).get("/ready", undefined)).status).toBe(200);
    expect(third.stdout() + third.stderr()).toMatch(/log chunk is corrupt/);
    expect(await third.stop("SIGTERM")).toBe(0);
  }, 180_000);
});

describe("log store: chunk files", () => {
  it("rows keep metadata only; retention removes a segment once none of its chunks is live (at close at the latest); orphan segments go at start", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-chunkfiles-"));
    let now = Date.UTC(2026, 0, 1);
    const at = (ms: number) => BigInt(ms) * 1_000_000n;
    const db = await openDatabase({ dataDir: join(dir, "data"), logger: silentLogger });
    try {
      const chunkDir = join(dir, "chunks");
      const open = () => openLogStore({ pg: db.pg, logger: silentLogger, walDir: join(dir, "wal"), chunkDir, now: () => now });
      let store = await open();
      const s = await store.stream("cf", { app: "f" });
      store.append("cf", [{ stream: s, entries: [{ ts: at(now - 3 * 3_600_000), line: "old" }] }]);
      await store.flush(true);
      await store.close();
      // a second run: a second segment
      store = await open();
      store.append("cf", [{ stream: store.find("cf", { app: "f" })!, entries: [{ ts: at(now - 60_000), line: "new" }] }]);
      await store.flush(true);
      const rows = (await db.pg.query<{ data: Uint8Array | null; segment: number }>("select data, segment from log_chunks order by id")).rows;
      expect(rows.map((r) => [r.data, r.segment])).toEqual([[null, 1], [null, 2]]);
      const segs = () => readdirSync(chunkDir).sort();
      expect(segs()).toEqual(["00000001.seg", "00000002.seg"]);
      // retention deletes the old chunk: its segment goes with it, after a grace period for queries
      // still reading it (or at close)
      expect(await store.deleteChunksBefore("cf", at(now - 3_600_000))).toBe(1);
      const left: string[] = [];
      await store.scan(store.find("cf", { app: "f" })!, 0n, at(now + 1), false, (e) => { left.push(e.line); return true; });
      expect(left).toEqual(["new"]);
      await store.close();
      expect(segs()).toEqual(["00000002.seg"]);
      // bytes written but never committed (a crash between the segment write and the rows): removed at the next start
      mkdirSync(chunkDir, { recursive: true });
      writeFileSync(join(chunkDir, "00000007.seg"), "orphan bytes");
      now += 1000;
      store = await open();
      expect(segs()).toEqual(["00000002.seg"]);
      await store.close();
      expect(existsSync(join(chunkDir, "00000002.seg"))).toBe(true);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("a crash after the chunk bytes are fsynced but before their rows commit: the write-ahead log brings the entries back, the orphan bytes go", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-chunkcrash-"));
    const now = Date.UTC(2026, 0, 1);
    const db = await openDatabase({ dataDir: join(dir, "data"), logger: silentLogger });
    // the first store's commits never happen: its state on disk is that of a process killed between the two steps
    const noCommit = new Proxy(db.pg, {
      get(target, key) {
        if (key === "query") {
          return (sql: string, params?: unknown[]) =>
            /^\s*insert into log_chunks/i.test(sql) ? Promise.reject(new Error("killed before the rows were committed")) : target.query(sql, params);
        }
        const v = Reflect.get(target, key) as unknown;
        return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      },
    });
    const dirs = { walDir: join(dir, "wal"), chunkDir: join(dir, "chunks") };
    const crashed = await openLogStore({ pg: noCommit, logger: silentLogger, ...dirs, now: () => now });
    try {
      const s = await crashed.stream("cc", { app: "c" });
      const lines = Array.from({ length: 200 }, (_, i) => `line ${i}`);
      crashed.append("cc", [{ stream: s, entries: lines.map((line, i) => ({ ts: BigInt(now) * 1_000_000n + BigInt(i), line })) }]);
      await crashed.flush(true);
      const written = readdirSync(dirs.chunkDir);
      expect(written.length).toBe(1);
      expect(statSync(join(dirs.chunkDir, written[0]!)).size).toBeGreaterThan(0);
      expect((await db.pg.query("select id from log_chunks")).rows).toEqual([]);

      const store = await openLogStore({ pg: db.pg, logger: silentLogger, ...dirs, now: () => now });
      const back: string[] = [];
      await store.scan(store.find("cc", { app: "c" })!, 0n, BigInt(now + 1) * 1_000_000n, false, (e) => { back.push(e.line); return true; });
      expect(back).toEqual(lines);
      // replayed into a chunk of a new segment; the uncommitted one is gone
      expect((await db.pg.query<{ segment: number }>("select segment from log_chunks")).rows.map((r) => r.segment)).toEqual([2]);
      expect(readdirSync(dirs.chunkDir)).toEqual(["00000002.seg"]);
      await store.close();
    } finally {
      await crashed.close().catch(() => undefined);
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it("chunks are encoded by the runner given (the worker pool's seam), a worker's share of a group in one task", async () => {
    const inline = inlineRunner(logTasks);
    const calls: Array<{ name: string; transfers: number; count: number }> = [];
    const runner: TaskRunner = {
      size: 2,
      run(name, input, options) {
        // a worker gets a share of a group of chunks in one task: the counts of its chunks
        calls.push({ name, transfers: options?.transfer?.length ?? 0, count: (input as Array<{ count: number }>).reduce((n, c) => n + c.count, 0) });
        // what crosses to a worker must survive a structured clone
        return inline.run(name, structuredClone(input), options);
      },
      close: async () => {},
    };
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const now = Date.UTC(2026, 0, 1);
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now, runner });
      for (const app of ["x", "y", "z"]) {
        const s = await store.stream("r", { app });
        store.append("r", [{ stream: s, entries: Array.from({ length: 50 }, (_, i) => ({ ts: BigInt(i), line: `${app} ${i} ü`, ...(i === 3 ? { metadata: { k: "v" } } : {}) })) }]);
      }
      await store.flush(true);
      // three chunks over a runner of size 2: one task of two chunks, one of one, three buffers moved per chunk
      // (copies: the columns stay readable by queries until the chunks are committed)
      expect(calls).toEqual([{ name: "encodeChunks", transfers: 6, count: 100 }, { name: "encodeChunks", transfers: 3, count: 50 }]);
      const back: string[] = [];
      await store.scan(store.find("r", { app: "y" })!, 0n, 100n, false, (e) => { back.push(e.line); return true; });
      expect(back).toEqual(Array.from({ length: 50 }, (_, i) => `y ${i} ü`));
      await store.close();
    } finally {
      await db.close();
    }
  });
});

describe("log store: a query and the encoder reading the same chunk not yet written", () => {
  it("the query's copy of its columns still crosses to a worker after the encoder took the columns (a detached buffer made the query a 500)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-pending-race-"));
    const inline = inlineRunner(logTasks);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    // moves the columns as a worker pool does (structuredClone with a transfer list detaches them), then waits
    const encoder: TaskRunner = {
      size: 1,
      async run(name, input, options) {
        const moved = structuredClone(input, { transfer: options?.transfer ?? [] });
        await held;
        return inline.run(name, moved, options);
      },
      close: async () => {},
    };
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const now = Date.UTC(2026, 0, 1);
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: join(dir, "wal"), chunkDir: join(dir, "chunks"), now: () => now, runner: encoder, chunkTargetBytes: 400 });
      const s = await store.stream("r", { app: "x" });
      for (let k = 0; k < 6; k++) store.append("r", [{ stream: s, entries: Array.from({ length: 30 }, (_, i) => ({ ts: BigInt(k * 30 + i), line: `line ${k * 30 + i} ü` })) }]);
      expect(s.pending.length).toBeGreaterThan(1);
      // the query lists its sources first (columns of chunks cut but not yet written)...
      const sources = await Promise.all(store.runs(s).filter((r) => r.source).map((r) => r.source!()));
      expect(sources.map((x) => x?.kind)).toEqual(sources.map(() => "columns"));
      // ...then the encoder's task takes the columns before the query's task is sent
      const flushed = store.flush();
      const taken = () => s.pending.every((p) => p.input === undefined || p.input.ts.length === 0);
      for (const deadline = Date.now() + 30_000; !taken() && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
      expect(taken()).toBe(true);
      const crossed = structuredClone(sources, { transfer: movableBuffers(sources.map((x) => x!)) });
      const lines = crossed.flatMap((src) => {
        const c = (src as { columns: { count: number; offsets: Uint32Array; lines: Uint8Array } }).columns;
        return Array.from({ length: c.count }, (_, i) => Buffer.from(c.lines.subarray(c.offsets[i], c.offsets[i + 1])).toString());
      });
      expect(lines).toEqual(Array.from({ length: lines.length }, (_, i) => `line ${i} ü`));
      release();
      await flushed;
      await store.close();
    } finally {
      release();
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("log store: the write-ahead log while a flush is busy", () => {
  it("rotates its segments as pushes arrive, not only when a flush ends (a long flush left one ever-growing segment)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-logs-walrot-"));
    const db = await openDatabase({ dataDir: join(dir, "data"), logger: silentLogger });
    // an encoder that never answers: the first flush waits for it for as long as the test runs
    const stuck: TaskRunner = { size: 1, run: () => new Promise(() => {}), close: async () => {} };
    try {
      const now = Date.now();
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: join(dir, "wal"), chunkDir: join(dir, "chunks"), runner: stuck, chunkTargetBytes: 64 * 1024, now: () => now });
      const s = await store.stream("wr", { app: "w" });
      const line = "x".repeat(1000);
      let i = 0;
      // a head cut, then a flush that hangs in the encoder
      store.append("wr", [{ stream: s, entries: Array.from({ length: 100 }, () => ({ ts: BigInt(now) * 1_000_000n + BigInt(i++), line })) }]);
      void store.flush();
      // 48 MB more: past one 32 MB segment
      for (let push = 0; push < 480; push++) {
        store.append("wr", [{ stream: s, entries: Array.from({ length: 100 }, () => ({ ts: BigInt(now) * 1_000_000n + BigInt(i++), line })) }]);
      }
      const segments = readdirSync(join(dir, "wal")).filter((f) => f.endsWith(".wal"));
      expect(segments.length).toBeGreaterThan(1);
      for (const f of segments) expect(statSync(join(dir, "wal", f)).size).toBeLessThan(40 * 1024 * 1024);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

describe("log store: ingest beyond what the encoders keep up with", () => {
  it("a push waits while more cut chunks wait to be written than the backlog allows, and goes on once they are written", async () => {
    const inline = inlineRunner(logTasks);
    // an encoder held until the test lets it go
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const runner: TaskRunner = { size: 1, run: async (name, input, options) => { await gate; return inline.run(name, input, options); }, close: async () => {} };
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const now = Date.now();
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now, runner, chunkTargetBytes: 64 * 1024, backlogWaitBytes: 100 * 1024 });
      const s = await store.stream("bp", { app: "b" });
      const line = "y".repeat(1000);
      let i = 0;
      const push = (n: number) => store.append("bp", [{ stream: s, entries: Array.from({ length: n }, () => ({ ts: BigInt(now) * 1_000_000n + BigInt(i++), line })) }]);
      push(100);
      expect(store.admit()).toBeUndefined();
      // three cut chunks (~196 KB) past the 100 KB allowed
      push(100);
      push(100);
      expect(store.backlogBytes()).toBeGreaterThan(100 * 1024);
      const waiting = store.admit();
      expect(waiting).toBeInstanceOf(Promise);
      let admitted = false;
      void waiting!.then(() => (admitted = true));
      const flushed = store.flush();
      await new Promise((r) => setTimeout(r, 50));
      expect(admitted).toBe(false);
      // while they wait, the cut chunks still read back
      let read = 0;
      await store.scan(s, 0n, BigInt(now) * 2_000_000n, false, () => { read++; return true; });
      expect(read).toBe(300);
      release();
      await flushed;
      expect(admitted).toBe(true);
      expect(store.backlogBytes()).toBe(0);
      expect(store.admit()).toBeUndefined();
      await store.close();
    } finally {
      await db.close();
    }
  }, 60_000);
});

describe("log store: write-ahead records", () => {
  it("a push stored whole is its body as it came (snappy protobuf stays compressed); either kind reads back with its structured metadata", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-logs-walraw-"));
    try {
      const ts = 1_767_225_600_000_000_000n;
      const body = protobufBody([{ stream: { app: "p" }, values: [[String(ts), "proto line", { trace_id: "abc" }], [String(ts + 1n), "second"]] }]);
      const wal = await openWal(fileWalSource(dir));
      wal.appendRaw(7, "tw", { body, contentType: "application/x-protobuf", contentEncoding: undefined });
      wal.append({ seq: 8, tenant: "tw", streams: [{ labels: { app: "j" }, entries: [[String(ts + 2n), "json line", { k: "v" }]] }] });
      wal.close();
      // the record is the body, not a re-serialised copy
      const onDisk = readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
      expect(onDisk).toBeLessThan(body.length + 300);
      const records = await readWal(fileWalSource(dir));
      expect(records.map((r) => [r.seq, r.tenant])).toEqual([[7, "tw"], [8, "tw"]]);
      expect(records[0]!.streams).toEqual([{ labels: { app: "p" }, entries: [{ ts, line: "proto line", metadata: { trace_id: "abc" } }, { ts: ts + 1n, line: "second" }] }]);
      expect(records[1]!.streams[0]!.entries).toMatchObject([{ ts: ts + 2n, line: "json line", metadata: { k: "v" } }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("log store: a worker lost while it encodes", () => {
  it("the chunk's columns, moved to the worker, are read again from the write-ahead log: nothing is lost, the next flush writes it", async () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-logs-lostenc-"));
    const db = await openDatabase({ dataDir: join(dir, "data"), logger: silentLogger });
    const inline = inlineRunner(logTasks);
    let calls = 0;
    // the first encoding takes the columns (moved, as to a worker) and dies; later ones work
    const runner: TaskRunner = {
      size: 2,
      run(name, input, options) {
        const moved = structuredClone(input, { transfer: options?.transfer ?? [] });
        if (calls++ === 0) return Promise.reject(new Error("worker exited with code 1 while running encodeChunks"));
        return inline.run(name, moved, options);
      },
      close: async () => {},
    };
    try {
      const now = Date.now();
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: join(dir, "wal"), chunkDir: join(dir, "chunks"), runner, chunkTargetBytes: 64 * 1024, now: () => now });
      const s = await store.stream("le", { app: "l" });
      const base = BigInt(now) * 1_000_000n;
      const sent: string[] = [];
      for (let k = 0; k < 6; k++) {
        // out of order and with a repeat, as the head takes them
        const entries = Array.from({ length: 40 }, (_, i) => ({ ts: base + BigInt(k * 40 + (39 - i)), line: `push ${k} line ${39 - i} ${"z".repeat(400)}` }));
        entries.push({ ...entries.at(-1)! });
        sent.push(...entries.slice(0, 40).map((e) => e.line));
        store.append("le", [{ stream: s, entries }]);
      }
      await store.flush(true);
      expect(calls).toBeGreaterThan(0);
      // the failed flush left the chunks pending, readable; the next one writes them
      const read = async () => {
        const back: string[] = [];
        await store.scan(s, base, base + 1_000_000n, false, (e) => { back.push(e.line); return true; });
        return back;
      };
      const expected = [...sent].sort((a, b) => Number(/push (\d+) line (\d+)/.exec(a)!.slice(1).reduce((n, x, i) => n + Number(x) * (i === 0 ? 40 : 1), 0)) - Number(/push (\d+) line (\d+)/.exec(b)!.slice(1).reduce((n, x, i) => n + Number(x) * (i === 0 ? 40 : 1), 0)));
      expect(await read()).toEqual(expected);
      await store.flush(true);
      expect(s.pending.length).toBe(0);
      expect(await read()).toEqual(expected);
      await store.close();
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
