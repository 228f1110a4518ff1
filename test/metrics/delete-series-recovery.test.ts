// Issue 25: delete_series and a crash. In process on a data dir, as
// recovery.test.ts (a store left without close() is a kill -9; the database,
// in memory here, survives as PGlite's files would): the write-ahead log
// holds each deletion at its place among the pushes, so a replay takes out of
// memory what was taken out, removes the series that were removed (the
// series pushed after them get the ids they had), and does the database's
// part again when a crash cut it short.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ingest } from "../../src/apps/metrics/core/ingest.ts";
import { decodeWriteRequest, uncompressBody } from "../../src/apps/metrics/core/remote-write.ts";
import { newBudget, openMetricsStore, type MetricsStore } from "../../src/apps/metrics/core/store.ts";
import type { MetricsLimits } from "../../src/apps/metrics/core/types.ts";
import { MAX_TIME, MIN_TIME } from "../../src/apps/metrics/routes/params.ts";
import { loadConfig } from "../../src/config/load.ts";
import { openDatabase, type Database } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { ingestDeps, ownSamples, writeBody, type SeriesIn } from "./helpers.ts";

const dirs: string[] = [];
const dbs: Database[] = [];
afterEach(async () => {
  for (const d of dbs.splice(0)) await d.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const STEP = 10_000;
const t0 = Math.floor(Date.now() / STEP) * STEP - 40 * 60_000;
const at = (i: number) => t0 + i * STEP;
const samples = (from: number, to: number): Array<[number, number]> => Array.from({ length: to - from }, (_, k) => [at(from + k), from + k]);
const name = (n: string) => [{ type: "=" as const, name: "__name__", value: n }];

async function setup() {
  const walDir = mkdtempSync(join(tmpdir(), "outpost-metrics-delete-recovery-"));
  dirs.push(walDir);
  const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
  dbs.push(db);
  const limits: MetricsLimits = { ...loadConfig().metrics.limits, max_global_series_per_metric: 0 };
  const open = () => openMetricsStore({ pg: db.pg, logger: silentLogger, walDir, now: Date.now, flushInterval: 3_600_000, checkpointWalBytes: 1 << 40, checkpointInterval: 3_600_000 });
  const push = (store: MetricsStore, series: SeriesIn[]) => {
    const raw = writeBody(series);
    expect(ingest(ingestDeps(store, () => limits), "t", decodeWriteRequest(uncompressBody(raw, 1 << 26)), raw).status).toBe(200);
  };
  const read = async (store: MetricsStore) => {
    const found = await store.querier("t", newBudget(0, 0)).select([{ type: "=~", name: "__name__", value: ".+" }], 0, Date.now() + 3_600_000);
    return found.map((s) => ({ labels: s.labels, t: Array.from(ownSamples(s).t), v: Array.from(ownSamples(s).v) }));
  };
  const ids = (store: MetricsStore) => new Map([...store.head("t").byId.values()].map((s) => [JSON.stringify(s.labels), s.id]));
  return { db, open, push, read, ids };
}

describe("delete_series and a crash", () => {
  it("a replay takes out what was deleted, at its place among the pushes, and removed series keep their successors' ids right", async () => {
    const { open, push, read, ids } = await setup();
    const first = await open();
    push(first, [{ labels: { __name__: "w" }, samples: samples(0, 200) }, { labels: { __name__: "x" }, samples: samples(0, 10) }, { labels: { __name__: "y" }, samples: samples(0, 10) }]);
    await first.checkpoint();
    push(first, [{ labels: { __name__: "w" }, samples: samples(200, 230) }, { labels: { __name__: "x" }, samples: samples(10, 20) }]);
    // w's first chunk (0..119) in the database
    await first.flush();
    // x loses everything (removed); w loses 100..209: the end of its stored chunk, its closed chunk's start, its open chunk's start
    await first.deleteSeries("t", [name("x")], MIN_TIME, MAX_TIME);
    await first.deleteSeries("t", [name("w")], at(100), at(209));
    expect(first.head("t").find([{ name: "__name__", value: "x" }])).toBeUndefined();
    // pushed after: x again (a new series), and z
    push(first, [{ labels: { __name__: "x" }, samples: samples(30, 32) }, { labels: { __name__: "z" }, samples: samples(0, 3) }, { labels: { __name__: "w" }, samples: samples(230, 232) }]);
    const before = await read(first);
    const w = before.find((s) => s.labels.__name__ === "w")!;
    expect(w.t).toEqual([...samples(0, 100), ...samples(210, 232)].map(([t]) => t));
    expect(before.find((s) => s.labels.__name__ === "x")!.v).toEqual([30, 31]);
    const idsBefore = ids(first);
    // kill -9: no close

    const second = await open();
    expect(await read(second)).toEqual(before);
    expect(ids(second)).toEqual(idsBefore);
    // and it goes on: the heads to the database, read back from there
    await second.flush(true);
    await second.close();
    const third = await open();
    expect(await read(third)).toEqual(before);
    await third.close();
  });

  it("a deletion a crash cut short in the database is done again by the replay", async () => {
    const { db, open, push, read } = await setup();
    const first = await open();
    push(first, [{ labels: { __name__: "w" }, samples: samples(0, 250) }, { labels: { __name__: "v" }, samples: samples(0, 250) }]);
    await first.flush();
    await first.checkpoint();
    const stored = (await db.pg.query<Record<string, unknown>>("select * from metrics_chunks where tenant = 't'")).rows;
    expect(stored.length).toBe(4);
    await first.deleteSeries("t", [name("w")], at(50), at(130));
    const after = await read(first);
    // the database as if the deletion never reached it (a crash before its statements)
    await db.pg.query("delete from metrics_chunks where tenant = 't'");
    for (const r of stored) {
      await db.pg.query("insert into metrics_chunks (tenant, series_id, min_t, max_t, samples, data) values ($1, $2, $3, $4, $5, $6)", [r.tenant, r.series_id, r.min_t, r.max_t, r.samples, r.data]);
    }
    // kill -9
    const second = await open();
    expect(await read(second)).toEqual(after);
    expect(after.find((s) => s.labels.__name__ === "w")!.t).toEqual([...samples(0, 50), ...samples(131, 250)].map(([t]) => t));
    const rows = (await db.pg.query<{ n: number }>("select sum(samples)::int as n from metrics_chunks where tenant = 't'")).rows[0]!.n;
    expect(rows).toBe(240 + 240 - 81);
    await second.close();
  });
});
