// GET /distributor/all_user_stats on the log store: every tenant's streams,
// recent rates (EWMA ticked every 15 s by the test clock), what the store
// holds, the newest entry; stored data counts after a restart too.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startTestServer, testClock, useServer } from "../helpers/server.ts";
import { logClient } from "./helpers.ts";

const nsAt = (ms: number, extraNs = 0) => String(BigInt(ms) * 1_000_000n + BigInt(extraNs));

describe("log store: all_user_stats", () => {
  const clock = testClock(Date.UTC(2030, 0, 2, 3, 4, 5, 0));
  const t = useServer({}, clock);
  const logs = () => logClient(t.server.urls.logs!);

  it("two tenants: streams, lines, bytes, newest entry; rates after a 15 s tick; no tenant header needed", async () => {
    const now = clock.now();
    expect((await logs().push("t1", [
      { stream: { app: "a" }, values: [[nsAt(now - 2000), "0123456789"], [nsAt(now - 1000, 123_450), "abcde"]] },
      { stream: { app: "b" }, values: [[nsAt(now - 3000), "xyz12"]] },
    ])).status).toBe(204);
    expect((await logs().push("t2", [{ stream: { app: "c" }, values: [[nsAt(now - 5000), "a".repeat(30)]] }], "protobuf")).status).toBe(204);

    let r = await logs().get("/distributor/all_user_stats", undefined);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(r.body).toEqual([
      { userID: "t1", numStreams: 2, ingestionRate: 0, linesRate: 0, bytesReceived: 20, linesReceived: 3, lastEntry: "2030-01-02T03:04:04.00012345Z", oldestEntry: "2030-01-02T03:04:02Z", otlpLinesReceived: 0, otlpBytesReceived: 0, retentionPeriod: "31d", lastRetentionRun: null },
      { userID: "t2", numStreams: 1, ingestionRate: 0, linesRate: 0, bytesReceived: 30, linesReceived: 1, lastEntry: "2030-01-02T03:04:00Z", oldestEntry: "2030-01-02T03:04:00Z", otlpLinesReceived: 0, otlpBytesReceived: 0, retentionPeriod: "31d", lastRetentionRun: null },
    ]);

    clock.advance(15_000);
    r = await logs().get("/distributor/all_user_stats", undefined);
    expect(r.body[0]).toMatchObject({ userID: "t1", ingestionRate: 20 / 15, linesRate: 3 / 15 });
    expect(r.body[1]).toMatchObject({ userID: "t2", ingestionRate: 2, linesRate: 1 / 15 });
  });

  it("records that came over OTLP are counted apart as well (lines and bytes of lines)", async () => {
    const body = { resourceLogs: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "o" } }] }, scopeLogs: [{ logRecords: [{ timeUnixNano: nsAt(clock.now() - 1000), body: { stringValue: "otlp line" } }, { timeUnixNano: nsAt(clock.now() + 3_600_000), body: { stringValue: "refused" } }] }] }] };
    const res = await fetch(`${t.server.urls.logs}/otlp/v1/logs`, { method: "POST", headers: { "Content-Type": "application/json", "X-Scope-OrgID": "t3" }, body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    const stats = (await logs().get("/distributor/all_user_stats", undefined)).body.find((s: { userID: string }) => s.userID === "t3");
    expect(stats).toMatchObject({ linesReceived: 1, bytesReceived: 9, otlpLinesReceived: 1, otlpBytesReceived: 9 });
  });

  it("refused entries are not counted", async () => {
    const before = (await logs().get("/distributor/all_user_stats", undefined)).body.find((s: { userID: string }) => s.userID === "t1");
    // too far in the future: refused
    expect((await logs().push("t1", [{ stream: { app: "a" }, values: [[nsAt(clock.now() + 3_600_000), "future"]] }])).status).toBe(400);
    const after = (await logs().get("/distributor/all_user_stats", undefined)).body.find((s: { userID: string }) => s.userID === "t1");
    expect(after).toMatchObject({ linesReceived: before.linesReceived, bytesReceived: before.bytesReceived, lastEntry: before.lastEntry });
  });
});

describe("log store: all_user_stats after a restart", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-log-stats-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("what is on disk counts (streams, totals, newest entry); rates start again at 0", async () => {
    const flags = { "storage.in_memory": false, "storage.data_dir": dir };
    const first = await startTestServer(flags);
    const now = Date.now();
    try {
      expect((await logClient(first.urls.logs!).push("kept", [{ stream: { app: "k" }, values: [[nsAt(now - 1000), "persisted line"]] }])).status).toBe(204);
    } finally {
      await first.stop();
    }
    const second = await startTestServer(flags);
    try {
      const r = await logClient(second.urls.logs!).get("/distributor/all_user_stats", undefined);
      expect(r.body).toEqual([
        {
          userID: "kept",
          numStreams: 1,
          ingestionRate: 0,
          linesRate: 0,
          bytesReceived: 14,
          linesReceived: 1,
          lastEntry: new Date(now - 1000).toISOString().replace(/\.?0+Z$/, "Z"),
          oldestEntry: new Date(now - 1000).toISOString().replace(/\.?0+Z$/, "Z"),
          otlpLinesReceived: 0,
          otlpBytesReceived: 0,
          retentionPeriod: "31d",
          lastRetentionRun: null,
        },
      ]);
    } finally {
      await second.stop();
    }
  });
});
