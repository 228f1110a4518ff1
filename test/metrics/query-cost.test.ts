// Issue 16 #2: one PromQL request may not exhaust memory nor freeze the
// process. The samples a query holds (loaded samples, subquery steps,
// intermediate points) are capped per tenant with Prometheus's 422, a query
// has a time budget (query_timeout, Prometheus's 503 timeout), and a long
// evaluation runs in slices so other requests are served meanwhile. Label text
// made by label_replace / label_join counts against the same cap.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ADMIN } from "../helpers/api.ts";
import { useServer } from "../helpers/server.ts";
import { metricsClient } from "./helpers.ts";

const dir = mkdtempSync(join(tmpdir(), "outpost-qcost-"));
const runtimeFile = join(dir, "runtime.yaml");
writeFileSync(
  runtimeFile,
  ["overrides:", "  small:", "    max_samples_per_query: 10000", "  slow:", "    query_timeout: 1ms", "  heavy:", "    max_samples_per_query: 0", ""].join("\n"),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOO_MANY = { status: "error", errorType: "execution", error: "query processing would load too many samples into memory in query execution" };

describe("query cost: max samples, query_timeout, slices", () => {
  const ctx = useServer({ "metrics.runtime_config_file": runtimeFile });
  const m = () => metricsClient(ctx.server.urls.metrics!);

  it("count_over_time(vector(1)[4d:10ms]) at the default limits is 422 with Prometheus's body", async () => {
    const r = await m().query("anyone", "count_over_time(vector(1)[4d:10ms])");
    expect(r.status).toBe(422);
    expect(r.body).toEqual(TOO_MANY);
    // the same through query_range and a nested subquery
    const range = await m().get("/prometheus/api/v1/query_range", "anyone", {
      query: "max_over_time(count_over_time(vector(1)[2d:10ms])[1h:1m])",
      start: "1700000000",
      end: "1700003600",
      step: "60",
    });
    expect(range.status).toBe(422);
    expect(range.body).toEqual(TOO_MANY);
  }, 60_000);

  it("a per-tenant override changes the cap", async () => {
    // 3600 steps and 3600 points: over the tenant's 10000 only when held with more
    const ok = await m().query("small", "count_over_time(vector(1)[1h:1s])", 1_700_000_000_000);
    expect(ok.status).toBe(200);
    expect(ok.body.data.result[0].value[1]).toBe("3600");
    const refused = await m().query("small", "count_over_time(vector(1)[2h:1s])", 1_700_000_000_000);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(TOO_MANY);
    // the default tenant has the default cap
    expect((await m().query("other", "count_over_time(vector(1)[2h:1s])", 1_700_000_000_000)).status).toBe(200);
    // samples loaded from the store count as well
    const t = Date.now() - 3_600_000;
    const samples = Array.from({ length: 6000 }, (_, i) => [t + i * 500, i] as [number, number]);
    expect((await m().push("small", [{ labels: { __name__: "many" }, samples: samples.slice(0, 3000) }])).status).toBe(200);
    expect((await m().push("small", [{ labels: { __name__: "many", k: "2" }, samples: samples.slice(3000) }, { labels: { __name__: "many", k: "3" }, samples }])).status).toBe(200);
    const loaded = await m().query("small", "count_over_time(many[2h])", t + 3_000_000);
    expect(loaded.status).toBe(422);
    expect(loaded.body).toEqual(TOO_MANY);
  }, 60_000);

  it("an aggregation answered from the index counts the series' samples it reads: over the cap it is 422", async () => {
    // 12,000 series, one sample each: count() reads 12,000 samples (the tenant's cap is 10,000)
    const t = Date.now() - 60_000;
    for (const tenant of ["small", "anyone"]) {
      for (let first = 0; first < 12_000; first += 2000) {
        const series = Array.from({ length: 2000 }, (_, i) => ({ labels: { __name__: `wide${(first + i) % 7}`, s: String(first + i) }, samples: [[t, 1]] as Array<[number, number]> }));
        expect((await m().push(tenant, series)).status).toBe(200);
      }
    }
    const refused = await m().query("small", 'count({__name__=~"wide.+"})', t + 1000);
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual(TOO_MANY);
    const ok = await m().query("anyone", 'count({__name__=~"wide.+"})', t + 1000);
    expect(ok.status).toBe(200);
    expect(ok.body.data.result).toEqual([{ metric: {}, value: [expect.any(Number), "12000"] }]);
    // by a label, and the same read through the chunks (an evaluation time before a later sample)
    const byName = await m().query("anyone", 'count by (__name__) ({__name__=~"wide.+"})', t + 1000);
    expect(byName.body.data.result.map((r: { metric: { __name__: string }; value: [number, string] }) => [r.metric.__name__, r.value[1]])).toEqual(
      Array.from({ length: 7 }, (_, k) => [`wide${k}`, String(Array.from({ length: 12_000 }, (_, i) => i).filter((i) => i % 7 === k).length)]),
    );
  }, 120_000);

  it("pushes are answered while counts over 300,000 series run", async () => {
    const t = Date.now() - 60_000;
    const pushes: Array<Promise<unknown>> = [];
    for (let first = 0; first < 300_000; first += 2000) {
      const series = Array.from({ length: 2000 }, (_, i) => ({ labels: { __name__: `busy${(first + i) % 100}`, s: String(first + i) }, samples: [[t, 1]] as Array<[number, number]> }));
      pushes.push(m().push("heavy", series));
      if (pushes.length === 4) await Promise.all(pushes.splice(0));
    }
    await Promise.all(pushes);
    let queryDone = false;
    const answeredDuring: number[] = [];
    // twenty walks over the index, each over every series: many slices on any machine
    const wide = Array.from({ length: 20 }, () => 'count({__name__=~"busy.+"})').join(" + ");
    const query = m().query("heavy", wide, t + 1000).then((r) => {
      queryDone = true;
      return r;
    });
    // one push after another while the query runs: had it held the event loop, none would be answered before it
    for (let i = 0; !queryDone && i < 1000; i++) {
      const r = await m().push("probe", [{ labels: { __name__: "probe" }, samples: [[t + i, i]] }]);
      expect(r.status).toBe(200);
      if (!queryDone) answeredDuring.push(i);
    }
    const r = await query;
    expect(r.status).toBe(200);
    expect(r.body.data.result[0].value[1]).toBe("6000000");
    expect(answeredDuring.length).toBeGreaterThan(0);
  }, 180_000);

  it("a query running longer than query_timeout is 503 timeout", async () => {
    const r = await m().query("slow", "count_over_time(vector(1)[1d:1s])", 1_700_000_000_000);
    expect(r.status).toBe(503);
    expect(r.body).toEqual({ status: "error", errorType: "timeout", error: "query timed out in expression evaluation" });
  }, 60_000);

  it("through the dashboard (/api/ds/query) the store's cap applies too", async () => {
    const ds = await ctx.api.post("/api/datasources", {
      auth: ADMIN,
      body: { name: "capped", type: "prometheus", access: "proxy", url: `${ctx.server.urls.metrics!}/prometheus`, jsonData: { tenantId: "viewer-q" } },
    });
    expect(ds.status).toBe(200);
    const now = Date.now();
    const r = await ctx.api.post("/api/ds/query", {
      auth: ADMIN,
      body: { from: String(now - 60_000), to: String(now), queries: [{ refId: "A", datasource: { uid: ds.body.datasource.uid }, expr: "count_over_time(vector(1)[4d:10ms])", instant: true, range: false }] },
    });
    expect(r.body.results.A.status).toBe(422);
    expect(r.body.results.A.error).toContain("query processing would load too many samples into memory in query execution");
  }, 60_000);

  it("a recording rule evaluation has the same cap: the rule is err with Prometheus's message", async () => {
    const group = "name: bomb\ninterval: 1s\nrules:\n  - record: bomb:count\n    expr: count_over_time(vector(1)[4d:10ms])\n";
    const posted = await m().raw("/prometheus/config/v1/rules/ns", { method: "POST", tenant: "ruled", body: group, headers: { "Content-Type": "application/yaml" } });
    expect(posted.status).toBe(202);
    const deadline = Date.now() + 30_000;
    let lastError = "";
    while (Date.now() < deadline && !lastError) {
      const rules = await m().get("/prometheus/api/v1/rules", "ruled");
      lastError = rules.body.data.groups[0]?.rules[0]?.lastError ?? "";
      if (!lastError) await new Promise((r) => setTimeout(r, 250));
    }
    expect(lastError).toContain("query processing would load too many samples into memory in query execution");
  }, 60_000);

  it("label_join / label_replace text counts against the cap: a label bomb is 422 before the text is built", async () => {
    // each label_join level makes the value 10 times longer: 16 × 10^8 characters at the top
    let bomb = 'label_replace(vector(1),"a","xxxxxxxxxxxxxxxx","a","")';
    for (let i = 0; i < 8; i++) bomb = `label_join(${bomb},"a","","a","a","a","a","a","a","a","a","a","a")`;
    expect(bomb.length).toBeLessThan(600);
    // "$1" × 200 over a 1.6M-character value: 320M characters
    let long = 'label_replace(vector(1),"a","xxxxxxxxxxxxxxxx","a","")';
    for (let i = 0; i < 5; i++) long = `label_join(${long},"a","","a","a","a","a","a","a","a","a","a","a")`;
    const dollars = `label_replace(${long},"a","${"$1".repeat(200)}","a","(.*)")`;
    const before = process.memoryUsage().rss;
    for (const q of [bomb, dollars]) {
      const r = await m().query("anyone", q);
      expect(r.status, q).toBe(422);
      expect(r.body).toEqual(TOO_MANY);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    expect((await m().raw("/ready")).status).toBe(200);
    // ordinary use is untouched
    const ok = await m().query("small", 'label_join(label_replace(vector(1),"src","db-$1","none","(.*)"),"dst",",","src","src")');
    expect(ok.status).toBe(200);
    expect(ok.body.data.result).toEqual([{ metric: { src: "db-", dst: "db-,db-" }, value: [expect.any(Number), "1"] }]);
  }, 120_000);

  it("while a heavy (allowed) query runs, /ready, /api/health and another tenant's push are answered first", async () => {
    const order: string[] = [];
    const heavy = m()
      .query("heavy", "count_over_time(vector(1)[3d:100ms])", 1_700_000_000_000)
      .then((r) => {
        order.push("heavy");
        return r;
      });
    // let the heavy query start evaluating
    await new Promise((r) => setTimeout(r, 50));
    const probes = await Promise.all([
      m().raw("/ready").then((r) => (order.push("ready"), r)),
      fetch(`${ctx.server.urls.dashboard}/api/health`).then((r) => (order.push("health"), r)),
      m()
        .push("pusher", [{ labels: { __name__: "alive" }, samples: [[Date.now(), 1]] }])
        .then((r) => (order.push("push"), r)),
    ]);
    expect(probes.map((p) => p.status)).toEqual([200, 200, 200]);
    const done = await heavy;
    expect(done.status).toBe(200);
    expect(done.body.data.result[0].value[1]).toBe(String(3 * 86_400 * 10));
    // the probes did not wait for the heavy query to finish
    expect(order.indexOf("heavy")).toBe(3);
  }, 120_000);
});
