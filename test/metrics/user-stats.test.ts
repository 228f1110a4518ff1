// Mimir's ingestion statistics: GET /distributor/all_user_stats (every
// tenant, JSON, sorted by userID) and GET /api/v1/user_stats (the caller's),
// with rates as Mimir's EWMA (15 s tick, alpha 0.2) moved by the test clock.
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { formatDuration } from "../../src/lib/units.ts";
import { POLL_DEADLINE_MS } from "../helpers/eventually.ts";
import { testClock, useServer } from "../helpers/server.ts";
import { metricsClient } from "./helpers.ts";

const TOKEN = "user-stats-admin-token";
/** what arrived over OTLP (nothing here; test/metrics/otlp.test.ts counts it) */
const NO_OTLP = { otlpRequests: 0, otlpDataPoints: 0, otlpSamples: 0 };
/** a tenant's figures without retention's (checked apart: the last run's time depends on the timers) */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const figures = ({ oldestSample, retentionPeriod, lastRetentionRun, ...rest }: any) => rest;

describe("metrics store: user stats", () => {
  const clock = testClock();
  const t = useServer({ "metrics.admin_token": TOKEN }, clock);
  const m = () => metricsClient(t.server.urls.metrics!);
  const series = (name: string, n: number, samples: number) =>
    Array.from({ length: n }, (_, i) => ({
      labels: { __name__: name, i: String(i) },
      samples: Array.from({ length: samples }, (_, j): [number, number] => [clock.now() - (samples - j) * 1000, j]),
    }));

  it("GET /distributor/all_user_stats: tenants with data and tenants created through the admin API, sorted by userID", async () => {
    expect((await m().push("t2", series("b", 1, 15))).status).toBe(200);
    expect((await m().push("t1", series("a", 3, 10))).status).toBe(200);
    const created = await m().raw("/admin/api/v2/tenants", {
      method: "POST",
      headers: { Authorization: `Basic ${btoa(`:${TOKEN}`)}`, "Content-Type": "application/json" },
      body: JSON.stringify({ name: "t0-empty", cluster: "outpost" }),
    });
    expect(created.status).toBe(200);

    // before the first 15 s tick there is no rate yet (Mimir's EWMA starts at 0)
    let all = await m().raw("/distributor/all_user_stats", { headers: { Accept: "application/json" } });
    expect(all.status).toBe(200);
    expect(all.headers.get("content-type")).toContain("application/json");
    // retention: the period in effect (metrics.retention_period's default), the oldest sample held
    const period = formatDuration(loadConfig().metrics.retention_period);
    expect(all.body.map((u: { retentionPeriod: string }) => u.retentionPeriod)).toEqual([period, period, period]);
    expect(all.body.map((u: { oldestSample: string | null }) => u.oldestSample)).toEqual([
      null, new Date(clock.now() - 10_000).toISOString(), new Date(clock.now() - 15_000).toISOString(),
    ]);
    expect(all.body.map(figures)).toEqual([
      { userID: "t0-empty", ingestionRate: 0, numSeries: 0, APIIngestionRate: 0, RuleIngestionRate: 0, ...NO_OTLP },
      { userID: "t1", ingestionRate: 0, numSeries: 3, APIIngestionRate: 0, RuleIngestionRate: 0, ...NO_OTLP },
      { userID: "t2", ingestionRate: 0, numSeries: 1, APIIngestionRate: 0, RuleIngestionRate: 0, ...NO_OTLP },
    ]);

    // one tick: 30 samples / 15 s for t1, 15 / 15 s for t2; no Accept header still gets JSON
    clock.advance(15_000);
    all = await m().raw("/distributor/all_user_stats");
    expect(all.body.map(figures)).toEqual([
      { userID: "t0-empty", ingestionRate: 0, numSeries: 0, APIIngestionRate: 0, RuleIngestionRate: 0, ...NO_OTLP },
      { userID: "t1", ingestionRate: 2, numSeries: 3, APIIngestionRate: 2, RuleIngestionRate: 0, ...NO_OTLP },
      { userID: "t2", ingestionRate: 1, numSeries: 1, APIIngestionRate: 1, RuleIngestionRate: 0, ...NO_OTLP },
    ]);

    // a quiet tick decays the average by (1 - 0.2)
    clock.advance(15_000);
    const t1 = (await m().raw("/distributor/all_user_stats")).body.find((s: { userID: string }) => s.userID === "t1");
    expect(t1.ingestionRate).toBeCloseTo(1.6, 10);
  });

  it("refused samples do not count; numSeries counts active series only", async () => {
    const before = (await m().get("/api/v1/user_stats", "t3")).body;
    expect(figures(before)).toEqual({ numSeries: 0, ingestionRate: 0, APIIngestionRate: 0, RuleIngestionRate: 0, ...NO_OTLP });
    expect((await m().push("t3", series("c", 2, 15))).status).toBe(200);
    // out of order: refused, not ingested
    expect((await m().push("t3", [{ labels: { __name__: "c", i: "0" }, samples: [[clock.now() - 60_000, 1]] }])).status).toBe(400);
    clock.advance(15_000);
    expect(figures((await m().get("/api/v1/user_stats", "t3")).body)).toEqual({ numSeries: 2, ingestionRate: 2, APIIngestionRate: 2, RuleIngestionRate: 0, ...NO_OTLP });
    // idle past active_series_idle_timeout (20m): no longer active
    clock.advance(21 * 60_000);
    expect((await m().get("/api/v1/user_stats", "t3")).body.numSeries).toBe(0);
  });

  it("GET /api/v1/user_stats needs X-Scope-OrgID", async () => {
    const r = await m().get("/api/v1/user_stats", undefined);
    expect(r.status).toBe(401);
    expect(r.text).toBe("no org id\n");
  });

  it("samples written by recording rules count as RuleIngestionRate", async () => {
    const rules = await m().raw("/prometheus/config/v1/rules/ns", {
      method: "POST",
      tenant: "t-rules",
      headers: { "Content-Type": "application/yaml" },
      body: "name: g\ninterval: 1s\nrules:\n  - record: rec\n    expr: vector(5)\n",
    });
    expect(rules.status).toBe(202);
    // the group runs on real timers every second; its samples carry the test clock's time
    const deadline = Date.now() + POLL_DEADLINE_MS;
    while ((await m().query("t-rules", "rec")).body.data.result.length === 0) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 100));
    }
    clock.advance(15_000);
    const s = (await m().get("/api/v1/user_stats", "t-rules")).body;
    expect(s.APIIngestionRate).toBe(0);
    // one sample: repeats at the same clock time are duplicates, not appended
    expect(s.RuleIngestionRate).toBeCloseTo(1 / 15, 10);
    expect(s.ingestionRate).toBe(s.RuleIngestionRate);
    expect(s.numSeries).toBe(1);
  });
});
