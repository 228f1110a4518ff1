// Issue 25: Prometheus's delete_series on the metrics store, through HTTP.
// The samples of the matched series in the range go from memory (open and
// closed chunks) and from the database (a chunk inside the range deleted,
// one across its edge encoded again), a clean restart does not bring them
// back, a series left with none disappears from /series and label values,
// other tenants see nothing of it, tokens mode needs metrics:delete, and bad
// input gets Prometheus's errors.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, useServer, type TestServer } from "../helpers/server.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";
import { adminApi, ADMIN_TOKEN, basic } from "../store-access/helpers.ts";
import { metricsClient, type SeriesIn } from "./helpers.ts";

const STEP = 10_000;
/** 300 samples 10 s apart ending now: two closed chunks of 120 and an open one of 60 */
const t0 = Math.floor(Date.now() / STEP) * STEP - 299 * STEP;
const at = (i: number) => t0 + i * STEP;
const END = at(299);
const series = (labels: Record<string, string>, base = 0): SeriesIn => ({ labels, samples: Array.from({ length: 300 }, (_, i) => [at(i), base + i] as [number, number]) });

/** the sample times of each series a range selector gives at END, by its labels */
async function samplesOf(base: string, tenant: string, selector: string): Promise<Record<string, number[]>> {
  const r = await metricsClient(base).get("/prometheus/api/v1/query", tenant, { query: `${selector}[1h]`, time: String(END / 1000) });
  expect(r.status).toBe(200);
  const out: Record<string, number[]> = {};
  for (const s of r.body.data.result as Array<{ metric: Record<string, string>; values: Array<[number, string]> }>) {
    out[JSON.stringify(s.metric)] = s.values.map(([t]) => Math.round(t * 1000));
  }
  return out;
}

const key = (labels: Record<string, string>) => JSON.stringify(labels);
const all = Array.from({ length: 300 }, (_, i) => at(i));
const outside = (from: number, to: number) => all.filter((t) => t < from || t > to);

async function deleteSeries(base: string, tenant: string | undefined, params: Record<string, string | string[]>, init: { method?: string; headers?: Record<string, string> } = {}) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return metricsClient(base).raw("/api/v1/admin/tsdb/delete_series", {
    method: init.method ?? "POST",
    tenant,
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...init.headers },
    body: body.toString(),
  });
}

describe("POST /api/v1/admin/tsdb/delete_series on a data dir", () => {
  const dirs = tempDirs("outpost-metrics-delete-");
  let dir: string;
  let server: TestServer;
  const flags = () => ({ "storage.in_memory": false, "storage.data_dir": dir });
  const restart = async () => {
    await server.stop();
    server = await startTestServer(flags());
  };
  const a = { __name__: "del_me", job: "a" };
  const b = { __name__: "del_me", job: "b" };
  const keep = { __name__: "keep_me", job: "a" };
  const from = at(100);
  const to = at(250);

  beforeAll(async () => {
    dir = dirs();
    server = await startTestServer(flags());
    for (const tenant of ["t1", "t2"]) {
      expect((await metricsClient(server.urls.metrics!).push(tenant, [series(a), series(b, 1000), series(keep, 2000)])).status).toBe(200);
    }
    // a clean stop writes the closed chunks to the database; the open ones go to the checkpoint
    await restart();
  }, 120_000);
  afterAll(async () => {
    await server.stop();
  });

  it("takes out exactly the matched series' samples in the range: a stored chunk inside it, the edges of two others, the open chunk's start", async () => {
    const r = await deleteSeries(server.urls.metrics!, "t1", { "match[]": 'del_me{job="a"}', start: String(from / 1000), end: String(to / 1000) });
    expect(r.status).toBe(204);
    expect(r.text).toBe("");
    const got = await samplesOf(server.urls.metrics!, "t1", '{__name__=~"del_me|keep_me"}');
    expect(got[key(a)]).toEqual(outside(from, to));
    expect(got[key(b)]).toEqual(all);
    expect(got[key(keep)]).toEqual(all);
    // the values left are the ones written, bit for bit
    const v = await metricsClient(server.urls.metrics!).query("t1", 'del_me{job="a"}', at(99));
    expect(v.body.data.result[0].value[1]).toBe("99");
    // the other tenant's series of the same names keep everything
    const other = await samplesOf(server.urls.metrics!, "t2", "del_me");
    expect(other[key(a)]).toEqual(all);
    expect(other[key(b)]).toEqual(all);
    // the audit line
    const line = server.logs.find((l) => l.msg === "metrics series deleted");
    expect(line).toMatchObject({ level: "info", tenant: "t1", match: ['del_me{job="a"}'], series: 1, samples: 151 });
    expect(Number(line!.chunks)).toBeGreaterThanOrEqual(3);
  });

  it("a restart does not bring them back (database, checkpoint and write-ahead log agree)", async () => {
    await restart();
    const got = await samplesOf(server.urls.metrics!, "t1", "del_me");
    expect(got[key(a)]).toEqual(outside(from, to));
    expect(got[key(b)]).toEqual(all);
  }, 120_000);

  it("a series left with no sample goes from /series and label values; pushing it again makes it anew", async () => {
    const m = {
      get: (...args: Parameters<ReturnType<typeof metricsClient>["get"]>) => metricsClient(server.urls.metrics!).get(...args),
      push: (...args: Parameters<ReturnType<typeof metricsClient>["push"]>) => metricsClient(server.urls.metrics!).push(...args),
      query: (...args: Parameters<ReturnType<typeof metricsClient>["query"]>) => metricsClient(server.urls.metrics!).query(...args),
    };
    const r = await deleteSeries(server.urls.metrics!, "t1", { "match[]": ['del_me{job="b"}', 'del_me{job="b"}'] });
    expect(r.status).toBe(204);
    const check = async () => {
      const s = await m.get("/prometheus/api/v1/series", "t1", { "match[]": "del_me" });
      expect(s.body.data).toEqual([a]);
      const jobs = await m.get("/prometheus/api/v1/label/job/values", "t1");
      expect(jobs.body.data).toEqual(["a"]);
      expect((await samplesOf(server.urls.metrics!, "t1", "del_me"))[key(b)]).toBeUndefined();
      // t2 still has it
      expect((await m.get("/prometheus/api/v1/label/job/values", "t2")).body.data).toEqual(["a", "b"]);
    };
    await check();
    await restart();
    await check();
    expect((await m.push("t1", [{ labels: b, samples: [[END + STEP, 7]] }])).status).toBe(200);
    const again = await m.query("t1", 'del_me{job="b"}', END + STEP);
    expect(again.body.data.result).toEqual([{ metric: b, value: [(END + STEP) / 1000, "7"] }]);
  }, 120_000);
});

describe("delete_series: tenants, answers and errors", () => {
  const ctx = useServer();
  const base = () => ctx.server.urls.metrics!;
  const now = Math.floor(Date.now() / 1000) * 1000;

  it("deletes only in the caller's tenant; PUT and the /prometheus prefix work too; clean_tombstones -> 204", async () => {
    const m = metricsClient(base());
    const push = { labels: { __name__: "iso" }, samples: [[now - 1000, 1], [now, 2]] as Array<[number, number]> };
    for (const tenant of ["x1", "x2"]) expect((await m.push(tenant, [push])).status).toBe(200);
    const r = await m.raw("/prometheus/api/v1/admin/tsdb/delete_series?match[]=iso", { method: "PUT", tenant: "x1" });
    expect(r.status).toBe(204);
    expect((await m.query("x1", "iso", now)).body.data.result).toEqual([]);
    expect((await m.query("x2", "iso", now)).body.data.result).toHaveLength(1);
    for (const prefix of ["", "/prometheus"]) {
      expect((await m.raw(`${prefix}/api/v1/admin/tsdb/clean_tombstones`, { method: "POST", tenant: "x1" })).status).toBe(204);
    }
    // a hostile match over everything, all time: only its own tenant
    expect((await m.raw(`/api/v1/admin/tsdb/delete_series?match[]=${encodeURIComponent('{__name__=~".+"}')}`, { method: "POST", tenant: "x1" })).status).toBe(204);
    expect((await m.query("x2", "iso", now)).body.data.result).toHaveLength(1);
    // counted in /metrics: two requests; the first left iso with nothing, removing it
    const text = (await m.raw("/metrics")).text;
    expect(text).toContain('cortex_purger_delete_requests_received_total{user="x1"} 2');
    expect(text).toContain('cortex_purger_delete_requests_processed_total{user="x1"} 2');
    expect(text).toContain('cortex_purger_deleted_samples_total{user="x1"} 2');
    expect(text).toContain('cortex_purger_removed_series_total{user="x1"} 1');
  });

  const bad: Array<[string, Record<string, string | string[]>, string]> = [
    ["no match[]", {}, "no match[] parameter provided"],
    ["a selector that does not parse", { "match[]": "up{" }, 'invalid parameter "match[]": '],
    ["a selector matching everything empty", { "match[]": '{job=""}' }, 'invalid parameter "match[]": match[] must contain at least one non-empty matcher'],
    ["an expression, not a selector", { "match[]": "rate(up[5m])" }, 'invalid parameter "match[]": '],
    ["a bad start", { "match[]": "up", start: "yesterday" }, 'invalid parameter "start": cannot parse "yesterday" to a valid timestamp'],
    ["a bad end", { "match[]": "up", end: "1e400" }, 'invalid parameter "end": cannot parse "1e400" to a valid timestamp'],
  ];
  for (const [what, params, message] of bad) {
    it(`${what} -> 400 bad_data, in Prometheus's JSON`, async () => {
      const r = await deleteSeries(base(), "x1", params);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ status: "error", errorType: "bad_data" });
      expect(r.body.error).toContain(message);
    });
  }

  it("a bad selector among good ones deletes nothing", async () => {
    const m = metricsClient(base());
    expect((await m.push("x3", [{ labels: { __name__: "kept" }, samples: [[now, 1]] }])).status).toBe(200);
    expect((await deleteSeries(base(), "x3", { "match[]": ["kept", "up{"] })).status).toBe(400);
    expect((await m.query("x3", "kept", now)).body.data.result).toHaveLength(1);
  });

  it("without X-Scope-OrgID -> 401 no org id", async () => {
    const r = await deleteSeries(base(), undefined, { "match[]": "up" });
    expect(r.status).toBe(401);
    expect(r.text).toContain("no org id");
  });
});

describe("delete_series in tokens mode", () => {
  const ctx = useServer({ "metrics.auth.type": "tokens", "metrics.admin_token": ADMIN_TOKEN });

  it("needs a token with metrics:delete for the tenant: a writer and reader's token is 403, none 401", async () => {
    const admin = adminApi(ctx.server.urls.metrics!);
    await admin.policy("rw", ["td"], ["metrics:write", "metrics:read"]);
    await admin.policy("deleter", ["td"], ["metrics:delete"]);
    const rw = await admin.token("rw", "rw");
    const deleter = await admin.token("d", "deleter");
    const m = metricsClient(ctx.server.urls.metrics!);
    const now = Date.now();
    expect((await m.push(undefined, [{ labels: { __name__: "tok" }, samples: [[now, 1]] }], { Authorization: basic("td", rw) })).status).toBe(200);
    const del = (auth?: string) => deleteSeries(ctx.server.urls.metrics!, undefined, { "match[]": "tok" }, auth ? { headers: { Authorization: auth } } : {});
    expect((await del(basic("td", rw))).status).toBe(403);
    expect((await del()).status).toBe(401);
    expect((await m.raw("/api/v1/admin/tsdb/clean_tombstones", { method: "POST", headers: { Authorization: basic("td", rw) } })).status).toBe(403);
    const query = async () =>
      (await m.raw(`/prometheus/api/v1/query?query=tok&time=${now / 1000}`, { headers: { Authorization: basic("td", rw) } })).body.data.result as unknown[];
    expect(await query()).toHaveLength(1);
    expect((await del(basic("td", deleter))).status).toBe(204);
    expect(await query()).toEqual([]);
    // the deleter's token reaches only its tenant
    expect((await deleteSeries(ctx.server.urls.metrics!, undefined, { "match[]": "tok" }, { headers: { Authorization: basic("other", deleter) } })).status).toBe(403);
  });
});
