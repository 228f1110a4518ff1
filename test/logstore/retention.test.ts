// Log retention, on by default (31 days) and provably applied: with a test
// clock moved past the period, a tenant's old lines are gone from queries,
// from the database's chunk rows (a restart does not bring them back) and
// from the chunk files; a tenant whose period is longer keeps its lines; the
// tenant list and /metrics show the oldest entry held and the last pass.
import { existsSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer, testClock, type TestServer } from "../helpers/server.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { logClient } from "./helpers.ts";

const DAY = 86_400_000;
const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);
const QR = "/svc/api/v1/query_range";

/** bytes of the chunk segment files */
function chunkFileBytes(dataDir: string): number {
  const dir = join(dataDir, "logs-chunks");
  if (!existsSync(dir)) return 0;
  return readdirSync(dir).reduce((n, f) => n + statSync(join(dir, f)).size, 0);
}

describe("log retention: on by default, applied with a test clock, visible", () => {
  const dirs = tempDirs("outpost-log-retention-");
  const dataDir = dirs();
  const runtime = join(dirs(), "runtime.yaml");
  // "keep" holds its lines for 90 days; every other tenant has the default
  writeFileSync(runtime, "overrides:\n  keep:\n    retention_period: 90d\n");
  const t0 = Date.UTC(2031, 4, 6, 7, 8, 9);
  const clock = testClock(t0);
  const flags = {
    "storage.in_memory": false,
    "storage.data_dir": dataDir,
    "logs.runtime_config_file": runtime,
    // retention passes every 100 ms of real time, so the test does not wait ten minutes
    "logs.compactor.compaction_interval": "100ms",
  };
  let server: TestServer | undefined;
  afterAll(async () => {
    await server?.stop();
  });
  const logs = () => logClient(server!.urls.logs!);
  const queryLines = async (tenant: string) => {
    const r = await logs().get(QR, tenant, { query: '{app=~".+"}', start: ns(t0 - 3_600_000), end: ns(t0 + 3_600_000), limit: "1000" });
    expect(r.status, r.text).toBe(200);
    return (r.body.data.result as Array<{ values: [string, string][] }>).flatMap((s) => s.values.map((v) => v[1])).sort();
  };
  const stats = async () => (await logs().get("/distributor/all_user_stats", undefined)).body as Array<Record<string, unknown>>;
  const metricsText = async () => (await fetch(`${server!.urls.logs}/metrics`)).text();

  it("lines pushed now are kept and shown with the default 31 days and their oldest entry", async () => {
    server = await startTestServer(flags, clock);
    for (const tenant of ["gone", "keep"]) {
      const r = await logs().push(tenant, [{ stream: { app: tenant }, values: [[ns(t0 - 60_000), `${tenant} old line`], [ns(t0 - 1_000), `${tenant} newer line`]] }]);
      expect(r.status, r.text).toBe(204);
    }
    expect(await queryLines("gone")).toEqual(["gone newer line", "gone old line"]);
    const s = await stats();
    expect(s.find((x) => x.userID === "gone")).toMatchObject({ retentionPeriod: "31d", oldestEntry: new Date(t0 - 60_000).toISOString().replace(".000", "") });
    expect(s.find((x) => x.userID === "keep")).toMatchObject({ retentionPeriod: "90d" });
    // a pass ran (every 100 ms) and deleted nothing: the data is young
    await eventually(() => stats(), (list) => expect(list[0]?.lastRetentionRun).toBe(new Date(t0).toISOString()));
    await eventually(metricsText, (text) => expect(text).toContain(`svc_retention_oldest_entry_timestamp_seconds{tenant="gone"}`));
    const text = await metricsText();
    expect(text).toContain(`svc_retention_oldest_entry_timestamp_seconds{tenant="gone"} ${(t0 - 60_000) / 1000}`);
    expect(text).toContain(`svc_retention_period_seconds{tenant="keep"} ${90 * 86_400}`);
    expect(text).toContain(`svc_compactor_apply_retention_last_successful_run_timestamp_seconds ${t0 / 1000}`);
    // stopping writes every head into chunk files
    await server.stop();
    server = undefined;
    expect(chunkFileBytes(dataDir)).toBeGreaterThan(0);
  });

  it("32 days later the default tenant's lines are gone from queries, the longer period's stay; the pass is counted", async () => {
    clock.advance(32 * DAY);
    server = await startTestServer(flags, clock);
    await eventually(() => queryLines("gone"), (lines) => expect(lines).toEqual([]));
    expect(await queryLines("keep")).toEqual(["keep newer line", "keep old line"]);
    // the pass's figures are set once it has finished (after the lines left the queries)
    await eventually(metricsText, (text) => expect(text).toContain(`svc_compactor_apply_retention_last_successful_run_timestamp_seconds ${clock.now() / 1000}`));
    const text = await metricsText();
    expect(text).toMatch(/svc_retention_deleted_chunks_total\{tenant="gone"\} [1-9]/);
    expect(text).not.toContain('svc_retention_deleted_chunks_total{tenant="keep"}');
    expect(text).not.toContain('svc_retention_oldest_entry_timestamp_seconds{tenant="gone"}');
    expect(text).toContain(`svc_retention_oldest_entry_timestamp_seconds{tenant="keep"} ${(t0 - 60_000) / 1000}`);
    const s = await stats();
    expect(s.find((x) => x.userID === "keep")).toMatchObject({ linesReceived: 2, oldestEntry: new Date(t0 - 60_000).toISOString().replace(".000", "") });
    expect(s.find((x) => x.userID === "gone")).toMatchObject({ linesReceived: 0, oldestEntry: null });
    expect(server.logs.some((l) => l.msg === "log retention deleted chunks" && l.tenant === "gone")).toBe(true);
    await server.stop();
    server = undefined;
  });

  it("a restart does not bring them back; 60 more days and the other tenant's lines go too, and with them the chunk files", async () => {
    server = await startTestServer(flags, clock);
    expect(await queryLines("gone")).toEqual([]);
    expect(await queryLines("keep")).toEqual(["keep newer line", "keep old line"]);
    clock.advance(60 * DAY);
    await eventually(() => queryLines("keep"), (lines) => expect(lines).toEqual([]));
    await server.stop();
    server = undefined;
    // no chunk is live: the segment files are removed at the latest when the store closes
    expect(chunkFileBytes(dataDir)).toBe(0);
  });
});
