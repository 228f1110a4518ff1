// No query stops the server (issue 18): a query past its tenant's
// query_timeout is stopped with the real store's 504; a tenant's queries
// running or waiting are bounded (429); a metric query holding more series
// than max_query_series is refused (400, the real store's message); and a
// push, /ready and /api/health are answered while a long query runs.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { useServer } from "../helpers/server.ts";
import { logClient, nsAgo } from "./helpers.ts";

const QR = "/svc/api/v1/query_range";
const dir = mkdtempSync(join(tmpdir(), "outpost-query-control-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = join(dir, "runtime.yaml");
writeFileSync(
  file,
  [
    "overrides:",
    "  slow:",
    "    query_timeout: 1ms",
    "  one:",
    "    max_outstanding_per_tenant: 1",
    "  few:",
    "    max_query_series: 2",
    "",
  ].join("\n"),
);

const TIMEOUT_MESSAGE = "request timed out, decrease the duration of the request or add more label matchers (prefer exact match over regex match) to reduce the amount of data processed";
/** a regex without a literal every match needs: it runs on every line */
const FULL_SCAN = '{app="big"} |~ "q(x|y)+z"';

describe("log store: query timeout, concurrency and series limits; the server answers while a query runs", () => {
  const t = useServer({
    "logs.runtime_config_file": file,
    "logs.limits.ingestion_rate_mb": 1000,
    "logs.limits.ingestion_burst_size_mb": 1000,
  });
  const logs = () => logClient(t.server.urls.logs!);
  const range = () => ({ start: String(Math.floor(Date.now() / 1000) - 3600), end: String(Math.ceil(Date.now() / 1000) + 60) });
  const query = (tenant: string, q: string, extra: Record<string, string> = {}) => logs().get(QR, tenant, { query: q, limit: "100", ...range(), ...extra });
  /** `n` lines of ~90 bytes over the last 20 minutes, pushed in batches */
  const pushBig = async (tenant: string, n: number) => {
    const now = Date.now();
    for (let at = 0; at < n; at += 20_000) {
      const values: Array<[string, string]> = [];
      for (let i = at; i < Math.min(n, at + 20_000); i++) {
        values.push([nsAgo(1200 - (i * 1200) / n, now), `level=info msg="request served" path=/api/v1/items/${i} status=200 duration=${i % 977}ms user=u${i % 131}`]);
      }
      const r = await logs().push(tenant, [{ stream: { app: "big" }, values }]);
      expect(r.status, r.text).toBe(204);
    }
  };

  it("a query past its tenant's query_timeout -> 504 with the real store's message; the server answers after", async () => {
    await pushBig("slow", 60_000);
    const r = await query("slow", FULL_SCAN);
    expect(r.status, r.text).toBe(504);
    expect(r.text.trim()).toBe(TIMEOUT_MESSAGE);
    // the same query for a tenant with the default timeout (1m) completes
    await pushBig("fast", 20_000);
    const ok = await query("fast", FULL_SCAN);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.result).toEqual([]);
  }, 120_000);

  it("max_outstanding_per_tenant 1: of two queries at once one is 429 'too many outstanding requests'; another tenant's runs", async () => {
    await pushBig("one", 100_000);
    const [a, b] = await Promise.all([query("one", FULL_SCAN), query("one", FULL_SCAN)]);
    expect([a.status, b.status].sort()).toEqual([200, 429]);
    expect((a.status === 429 ? a : b).text.trim()).toBe("too many outstanding requests");
    const other = await query("fast", '{app="big"} |= "path=/api/v1/items/7 "');
    expect(other.status, other.text).toBe(200);
    expect(other.body.data.result[0].values).toHaveLength(1);
    // the slot is free again
    expect((await query("one", '{app="big"} |= "items/42 "')).status).toBe(200);
  }, 120_000);

  it("max_query_series 2: a metric query holding 3 series -> 400 with the real store's message; summed into one -> 200", async () => {
    const streams = ["a", "b", "c"].map((app) => ({ stream: { job: "few", app }, values: [[nsAgo(30), `line of ${app}`]] as Array<[string, string]> }));
    expect((await logs().push("few", streams)).status).toBe(204);
    const metric = (q: string) => query("few", q, { step: "60" });
    const refused = await metric('count_over_time({job="few"}[5m])');
    expect(refused.status, refused.text).toBe(400);
    expect(refused.text.trim()).toBe(
      "maximum number of series (2) reached for a single query; consider reducing query cardinality by adding more specific stream selectors, reducing the time range, or aggregating results with functions like sum(), count() or topk()",
    );
    expect((await metric('sum by (app) (count_over_time({job="few"}[5m]))')).status).toBe(400);
    const summed = await metric('sum(count_over_time({job="few"}[5m]))');
    expect(summed.status, summed.text).toBe(200);
    expect(summed.body.data.result).toHaveLength(1);
    expect(Math.max(...summed.body.data.result[0].values.map((v: [number, string]) => Number(v[1])))).toBe(3);
  }, 60_000);

  it("a client that goes away mid-query stops it: the query ends as the real store's 499 'context canceled', not as a 200", async () => {
    // the client gives up 50 ms in. On a machine fast enough to finish the scan sooner (the answer
    // came first), or so busy that the answer was sent before the server saw the client go, the
    // tenant gets more lines and the client tries again
    const logged = () => t.server.logs.filter((l) => l.msg === "request" && l.path === QR && l.tenant === "gone");
    let status: unknown;
    for (let attempt = 0; attempt < 5 && status !== 499; attempt++) {
      await pushBig("gone", 200_000);
      const before = logged().length;
      const ac = new AbortController();
      const qs = new URLSearchParams({ query: FULL_SCAN, limit: "100", ...range() });
      const running = fetch(`${t.server.urls.logs}${QR}?${qs}`, { headers: { "X-Scope-OrgID": "gone" }, signal: ac.signal }).then(
        (r) => `answered ${r.status}`,
        (err: unknown) => `aborted ${(err as Error).name}`,
      );
      await new Promise((r) => setTimeout(r, 50));
      ac.abort();
      const outcome = await running;
      // finished in time, it must have been a full answer
      if (outcome !== "aborted AbortError") expect(outcome).toBe("answered 200");
      // the query's request is logged when it ends: as canceled (499, the status no client reads), or 200 when it won the race
      const deadline = Date.now() + 60_000;
      while (logged().length === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      status = logged()[before]?.status;
      expect([200, 499]).toContain(status);
    }
    expect(status).toBe(499);
  }, 300_000);

  it("a push from another tenant, /ready (log port) and /api/health (dashboard) are answered while a long query runs", async () => {
    await pushBig("long", 200_000);
    let pending = true;
    const running = logs().get(QR, "long", { query: FULL_SCAN, limit: "100", ...range() }).finally(() => {
      pending = false;
    });
    // rounds of the three probes, each counted only when all three answered while the query was still running
    let rounds = 0;
    let i = 0;
    while (pending) {
      const [push, ready, health] = await Promise.all([
        logs().push("probe", [{ stream: { app: "p" }, values: Array.from({ length: 1000 }, (_, k) => [nsAgo(10 - k / 1000), `probe ${i} ${k}`] as [string, string]) }]),
        fetch(`${t.server.urls.logs}/ready`).then(async (r) => (await r.text(), r.status)),
        fetch(`${t.server.urls.dashboard}/api/health`).then(async (r) => (await r.text(), r.status)),
      ]);
      expect([push.status, ready, health]).toEqual([204, 200, 200]);
      if (pending) rounds++;
      i++;
    }
    const r = await running;
    expect(r.status, r.text).toBe(200);
    expect(rounds).toBeGreaterThan(0);
  }, 120_000);
});
