// Issue 25: per-tenant retention of the metrics store, with a test clock.
// compactor_blocks_retention_period comes from the admin API, the runtime
// config file, or the default (metrics.retention_period); each run deletes a
// tenant's chunks whose newest sample is older than its period, from queries
// and from the database; /metrics shows each tenant's period and oldest
// sample, the chunks deleted and the last run.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { startTestServer, testClock, type TestServer } from "../helpers/server.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { adminApi, ADMIN_TOKEN } from "../store-access/helpers.ts";
import { metricsClient } from "./helpers.ts";

const STEP = 10_000;
const HOUR = 3_600_000;

/** the value of one series of the metrics store's /metrics (undefined when absent) */
function metricValue(text: string, name: string, labels = ""): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${name}${labels ? `{${labels}}` : ""} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("metrics retention per tenant", () => {
  const clock = testClock(Math.floor(Date.now() / STEP) * STEP);
  const start = clock.now();
  const dirs = tempDirs("outpost-metrics-retention-");
  const runtimeDir = mkdtempSync(join(tmpdir(), "outpost-retention-runtime-"));
  const runtimeFile = join(runtimeDir, "runtime.yaml");
  writeFileSync(runtimeFile, "overrides:\n  mid:\n    compactor_blocks_retention_period: 4h\n");
  let dir: string;
  let server: TestServer;
  const flags = () => ({
    "storage.in_memory": false,
    "storage.data_dir": dir,
    "metrics.admin_token": ADMIN_TOKEN,
    "metrics.retention_period": "2h",
    "metrics.compactor.cleanup_interval": "200ms",
    "metrics.runtime_config_file": runtimeFile,
  });
  const m = () => metricsClient(server.urls.metrics!);
  const scrape = async () => (await m().raw("/metrics")).text;
  /** chunks of a tenant in the database whose newest sample is before a time */
  const storedChunks = async (tenant: string, before = Number.MAX_SAFE_INTEGER) =>
    (await server.db.pg.query<{ n: number }>("select count(*)::int as n from metrics_chunks where tenant = $1 and max_t < $2", [tenant, before])).rows[0]!.n;
  const held = async (tenant: string) => {
    const r = await m().query(tenant, "count_over_time(kept[6h])", clock.now());
    return Number(r.body.data.result[0]?.value[1] ?? 0);
  };
  /** waits for a run that started at the clock's time now */
  const aRun = () => eventually(scrape, (text) => expect(metricValue(text, "cortex_retention_last_successful_run_timestamp_seconds")).toBe(clock.now() / 1000));

  beforeAll(async () => {
    dir = dirs();
    // nothing deleted before the restart, whatever the machine's pace
    server = await startTestServer({ ...flags(), "metrics.retention_period": "0s" }, clock);
    const admin = adminApi(server.urls.metrics!);
    expect((await admin.call("POST", "/admin/api/v2/tenants", { name: "long", cluster: "outpost", limits: { compactor_blocks_retention_period: "1000d" } })).status).toBe(200);
    // 240 samples from 3h ago (two chunks, cut at 120 samples, ending 2h20m ago), then 10 of the last 5 minutes (the open chunk)
    const old = Array.from({ length: 240 }, (_, i) => [start - 3 * HOUR + i * STEP, i] as [number, number]);
    const recent = Array.from({ length: 10 }, (_, i) => [start - 5 * 60_000 + i * STEP, 1000 + i] as [number, number]);
    for (const tenant of ["short", "mid", "long"]) {
      expect((await m().push(tenant, [{ labels: { __name__: "kept", t: tenant }, samples: [...old, ...recent] }])).status).toBe(200);
    }
    // a clean stop writes the closed chunks to the database
    await server.stop();
    server = await startTestServer(flags(), clock);
  }, 120_000);
  afterAll(async () => {
    await server.stop();
    rmSync(runtimeDir, { recursive: true, force: true });
  });

  it("each tenant's period: from the default (metrics.retention_period), the runtime file, the admin API", async () => {
    const limit = async (tenant: string) => (await m().get("/api/v1/user_limits", tenant)).body.compactor_blocks_retention_period;
    expect(await limit("short")).toBe("2h");
    expect(await limit("mid")).toBe("4h");
    expect(await limit("long")).toBe("1000d");
    const tenant = await adminApi(server.urls.metrics!).call("GET", "/admin/api/v2/tenants/long");
    expect(tenant.body.limits.compactor_blocks_retention_period).toBe("1000d");
  });

  it("a run deletes the chunks past a tenant's period from queries and the database; longer periods keep theirs", async () => {
    await aRun();
    expect(await held("short")).toBe(10);
    expect(await storedChunks("short")).toBe(0);
    for (const tenant of ["mid", "long"]) {
      expect(await held(tenant)).toBe(250);
      expect(await storedChunks(tenant)).toBe(2);
    }
    const text = await scrape();
    expect(metricValue(text, "cortex_retention_deleted_chunks_total", 'user="short"')).toBe(2);
    expect(metricValue(text, "cortex_retention_deleted_chunks_total", 'user="long"')).toBeUndefined();
    expect(metricValue(text, "cortex_retention_period_seconds", 'user="short"')).toBe(2 * 3600);
    expect(metricValue(text, "cortex_retention_period_seconds", 'user="mid"')).toBe(4 * 3600);
    expect(metricValue(text, "cortex_retention_period_seconds", 'user="long"')).toBe(1000 * 24 * 3600);
    // the oldest sample held: short's is now the first of the last 5 minutes
    expect(metricValue(text, "cortex_retention_oldest_sample_timestamp_seconds", 'user="short"')).toBe((start - 5 * 60_000) / 1000);
    expect(metricValue(text, "cortex_retention_oldest_sample_timestamp_seconds", 'user="long"')).toBe((start - 3 * HOUR) / 1000);
    expect(server.logs.some((l) => l.msg === "metrics retention deleted chunks" && l.tenant === "short" && l.chunks === 2)).toBe(true);
  });

  it("as the clock moves, older data goes: mid's chunks past 4h, then short's last samples and the series itself", async () => {
    clock.advance(2 * HOUR);
    await aRun();
    // mid: its old chunks are now 4h20m old (its open chunk may be written meanwhile: newer)
    await eventually(() => storedChunks("mid", start - HOUR), (n) => expect(n).toBe(0));
    expect(await held("mid")).toBe(10);
    expect(await storedChunks("long", start - HOUR)).toBe(2);
    // short's open chunk is cut by age at the next flush, written, and deleted by a run after it; the series
    // (no longer active: nothing for 2h) goes from the index
    await eventually(async () => ((await m().get("/prometheus/api/v1/series", "short", { "match[]": "kept" })).body.data as unknown[]).length, (n) => expect(n).toBe(0));
    expect(await held("short")).toBe(0);
    const text = await scrape();
    expect(metricValue(text, "cortex_retention_oldest_sample_timestamp_seconds", 'user="short"')).toBeUndefined();
    expect(metricValue(text, "cortex_retention_oldest_sample_timestamp_seconds", 'user="mid"')).toBe((start - 5 * 60_000) / 1000);
  }, 60_000);
});
