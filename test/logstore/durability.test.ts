// Acknowledged entries survive kill -9 (the write-ahead log) and a clean
// restart (chunks), with the server run as a separate process on a data dir.
import { describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { applyRetention } from "../../src/apps/logstore/core/retention.ts";
import { openLogStore } from "../../src/apps/logstore/core/store.ts";
import { useDataDirServer } from "../helpers/process.ts";
import { logClient, nsAgo } from "./helpers.ts";

describe("log store durability", () => {
  const { start } = useDataDirServer("outpost-logs-");
  const lines = async (base: string) =>
    (await logClient(base).get("/svc/api/v1/query_range", "durable", { query: '{app="d"}', direction: "forward", limit: "5000" })).body.data.result
      .flatMap((s: { values: string[][] }) => s.values.map((v) => v[1]));

  it("kill -9 right after 204 loses nothing; a clean stop and restart reads the chunks back", async () => {
    const first = await start();
    const sent: string[] = [];
    for (let i = 0; i < 20; i++) {
      const values: Array<[string, string]> = Array.from({ length: 50 }, (_, j) => [nsAgo(60 - i - j / 100), `line ${i}-${j}`]);
      sent.push(...values.map((v) => v[1]));
      expect((await logClient(first.urls.logs!).push("durable", [{ stream: { app: "d" }, values }])).status).toBe(204);
    }
    await first.stop("SIGKILL");

    const second = await start();
    expect(await lines(second.urls.logs!)).toEqual(sent);
    // more after the replay, then a clean stop: everything goes to chunks
    expect((await logClient(second.urls.logs!).push("durable", [{ stream: { app: "d" }, values: [[nsAgo(1), "after replay"]] }])).status).toBe(204);
    expect(await second.stop("SIGTERM")).toBe(0);

    const third = await start();
    expect(await lines(third.urls.logs!)).toEqual([...sent, "after replay"]);
    const stats = await logClient(third.urls.logs!).get("/svc/api/v1/index/stats", "durable", { query: '{app="d"}' });
    expect(stats.body).toMatchObject({ streams: 1, entries: 1001 });
    expect(stats.body.chunks).toBeGreaterThan(0);
    expect(await third.stop("SIGTERM")).toBe(0);
  }, 120_000);

  it("kill -9 after pushes of every shape (JSON, gzip JSON, snappy protobuf, one partly refused): each is replayed as accepted", async () => {
    const first = await start();
    const client = logClient(first.urls.logs!);
    const sent: string[] = [];
    const formats = ["json", "gzip", "protobuf"] as const;
    for (let i = 0; i < 9; i++) {
      const format = formats[i % 3]!;
      const values: Array<[string, string, Record<string, string>]> = Array.from({ length: 20 }, (_, j) => [nsAgo(50 - i - j / 100), `${format} ${i}-${j} ü`, { trace_id: `t${i}${j}` }]);
      sent.push(...values.map((v) => v[1]));
      expect((await client.push("durable", [{ stream: { app: "d", shape: "all" }, values }], format)).status).toBe(204);
    }
    // one entry too far in the future: the push is answered 400, its other entries are stored
    const partial: Array<[string, string, Record<string, string>]> = [[nsAgo(30), "partial kept", { trace_id: "p" }], [nsAgo(-3600), "partial refused", { trace_id: "q" }]];
    const refused = await client.push("durable", [{ stream: { app: "d", shape: "all" }, values: partial }]);
    expect(refused.status).toBe(400);
    sent.push("partial kept");
    await first.stop("SIGKILL");

    const second = await start();
    const back = (await logClient(second.urls.logs!).get("/svc/api/v1/query_range", "durable", { query: '{shape="all"}', direction: "forward", limit: "5000", start: nsAgo(3600), end: nsAgo(-60) })).body.data.result;
    const got = back.flatMap((st: { values: string[][] }) => st.values.map((v) => v[1]));
    expect([...got].sort()).toEqual([...sent].sort());
    expect(await second.stop("SIGTERM")).toBe(0);
  }, 120_000);

  it("kill -9 right after OTLP records were answered 200: they are replayed with their metadata and exact times", async () => {
    const first = await start();
    const times = Array.from({ length: 30 }, (_, i) => String(BigInt(nsAgo(40 - i)) + 123n));
    const body = {
      resourceLogs: [{
        resource: { attributes: [{ key: "service.name", value: { stringValue: "otlp-durable" } }] },
        scopeLogs: [{ logRecords: times.map((t, i) => ({ timeUnixNano: t, body: { stringValue: `otlp ${i}` }, attributes: [{ key: "i", value: { intValue: String(i) } }] })) }],
      }],
    };
    const res = await fetch(`${first.urls.logs}/otlp/v1/logs`, { method: "POST", headers: { "Content-Type": "application/json", "X-Scope-OrgID": "durable" }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    await first.stop("SIGKILL");

    const second = await start();
    const back = (await logClient(second.urls.logs!).get("/svc/api/v1/query_range", "durable", { query: '{service_name="otlp-durable"}', direction: "forward", limit: "100", start: nsAgo(3600), end: nsAgo(-60) }, { "X-Loki-Response-Encoding-Flags": "categorize-labels" })).body.data.result;
    const values = back.flatMap((st: { values: Array<[string, string, { structuredMetadata?: Record<string, string> }]> }) => st.values);
    expect(values.map((v: [string, string]) => v[0])).toEqual(times);
    expect(values.map((v: [string, string]) => v[1])).toEqual(times.map((_, i) => `otlp ${i}`));
    expect(values[7][2].structuredMetadata).toEqual({ i: "7" });
    expect(await second.stop("SIGTERM")).toBe(0);
  }, 120_000);
});

describe("log store retention", () => {
  it("whole chunks past retention_period are deleted; newer ones stay", async () => {
    let now = Date.UTC(2026, 0, 1);
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const store = await openLogStore({ pg: db.pg, logger: silentLogger, walDir: undefined, now: () => now });
      const stream = await store.stream("ret", { app: "r" });
      const at = (ms: number) => BigInt(ms) * 1_000_000n;
      store.append("ret", [{ stream, entries: [{ ts: at(now - 3 * 3_600_000), line: "old" }] }]);
      await store.flush(true);
      store.append("ret", [{ stream, entries: [{ ts: at(now - 60_000), line: "new" }] }]);
      await store.flush(true);
      const limits = () => ({ retention_period: 2 * 3_600_000 }) as never;
      expect(await applyRetention({ store, limits, logger: silentLogger, now: () => now }, ["ret"])).toBe(1);
      const left: string[] = [];
      await store.scan(stream, 0n, at(now + 1), false, (e) => { left.push(e.line); return true; });
      expect(left).toEqual(["new"]);
      now += 10 * 3_600_000;
      expect(await applyRetention({ store, limits, logger: silentLogger, now: () => now }, ["ret"])).toBe(1);
      await store.close();
    } finally {
      await db.close();
    }
  });
});
