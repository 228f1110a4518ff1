// The Prometheus-compatible query API through HTTP (reference §10,
// conformance F): shapes, parameters and errors; the per-query limits (422);
// data read back from the database as well as from the head; a real
// remote-write client library.
import { pushTimeseries } from "prometheus-remote-write";
import { encodeXorChunk } from "../../src/apps/metrics/core/xor-chunk.ts";
import { describe, expect, it } from "vitest";
import { useServer } from "../helpers/server.ts";
import { metricsClient } from "./helpers.ts";

describe("query API", () => {
  const ctx = useServer({ "metrics.limits.max_series_per_query": 3, "metrics.limits.max_fetched_chunk_bytes_per_query": 0 });
  const m = () => metricsClient(ctx.server.urls.metrics!);
  const t0 = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000;

  it("needs the tenant header: 401 no org id", async () => {
    const r = await m().get("/prometheus/api/v1/query", undefined, { query: "up" });
    expect(r.status).toBe(401);
    expect(r.text).toBe("no org id\n");
  });

  it("1+1 is a scalar", async () => {
    const r = await m().get("/prometheus/api/v1/query", "q", { query: "1+1", time: "1700000000" });
    expect(r.body).toEqual({ status: "success", data: { resultType: "scalar", result: [1700000000, "2"] } });
  });

  it("parse errors and bad parameters are 400 bad_data with Prometheus's messages", async () => {
    const bad = async (path: string, params: Record<string, string>) => {
      const r = await m().get(path, "q", params);
      expect(r.status).toBe(400);
      expect(r.headers.get("content-type")).toContain("application/json");
      expect(r.body.status).toBe("error");
      expect(r.body.errorType).toBe("bad_data");
      return r.body.error as string;
    };
    expect(await bad("/prometheus/api/v1/query", { query: "up{" })).toBe('invalid parameter "query": 1:4: parse error: unexpected end of input inside braces');
    expect(await bad("/prometheus/api/v1/query", { query: "" })).toBe('invalid parameter "query": unknown position: parse error: no expression found in input');
    expect(await bad("/prometheus/api/v1/query", { query: "up", time: "yesterday" })).toBe('invalid parameter "time": cannot parse "yesterday" to a valid timestamp');
    expect(await bad("/prometheus/api/v1/query_range", { query: "up", start: "100", end: "50", step: "1" })).toBe('invalid parameter "end": end timestamp must not be before start time');
    expect(await bad("/prometheus/api/v1/query_range", { query: "up", start: "0", end: "100", step: "0" })).toContain("zero or negative query resolution step widths are not accepted. Try a positive integer");
    expect(await bad("/prometheus/api/v1/query_range", { query: "up", start: "0", end: "86400", step: "1" })).toBe("exceeded maximum resolution of 11,000 points per timeseries. Try decreasing the query resolution (?step=XX)");
    expect(await bad("/prometheus/api/v1/series", {})).toBe("no match[] parameter provided");
    expect(await bad("/prometheus/api/v1/series", { "match[]": '{job=~".*"}' })).toBe('invalid parameter "match[]": match[] must contain at least one non-empty matcher');
    expect(await bad("/prometheus/api/v1/label/foo-bar/values", {})).toBe('invalid label name: "foo-bar"');
    // a malformed escape in the path is a bad name, not a server error
    const escaped = await m().get("/prometheus/api/v1/label/%ff/values", "q");
    expect(escaped.status).toBe(400);
    expect(escaped.body.errorType).toBe("bad_data");
  });

  it("a real remote-write client (prometheus-remote-write) pushes successfully", async () => {
    const result = await pushTimeseries(
      [
        { labels: { __name__: "http_requests_total", job: "api", instance: "a" }, samples: [{ value: 10, timestamp: t0 }, { value: 20, timestamp: t0 + 60_000 }] },
        { labels: { __name__: "http_requests_total", job: "api", instance: "b" }, samples: [{ value: 5, timestamp: t0 }, { value: 8, timestamp: t0 + 60_000 }] },
        { labels: { __name__: "http_requests_total", job: "web", instance: "c" }, samples: [{ value: 1, timestamp: t0 }, { value: 1, timestamp: t0 + 60_000 }] },
      ],
      { url: `${ctx.server.urls.metrics}/api/v1/push`, headers: { "X-Scope-OrgID": "q" }, fetch: globalThis.fetch as never },
    );
    expect(result.status).toBe(200);
  });

  it("instant and range queries read what was pushed", async () => {
    const sum = await m().query("q", "sum by (job) (http_requests_total)", t0 + 60_000);
    expect(sum.body.data).toEqual({
      resultType: "vector",
      result: [
        { metric: { job: "api" }, value: [(t0 + 60_000) / 1000, "28"] },
        { metric: { job: "web" }, value: [(t0 + 60_000) / 1000, "1"] },
      ],
    });
    const range = await m().get("/prometheus/api/v1/query_range", "q", { query: 'http_requests_total{instance="a"}', start: String(t0 / 1000), end: String((t0 + 60_000) / 1000), step: "30" });
    expect(range.body.data).toEqual({
      resultType: "matrix",
      result: [{ metric: { __name__: "http_requests_total", instance: "a", job: "api" }, values: [[t0 / 1000, "10"], [(t0 + 30_000) / 1000, "10"], [(t0 + 60_000) / 1000, "20"]] }],
    });
  });

  it("series, labels and label values", async () => {
    const series = await m().get("/prometheus/api/v1/series", "q", { "match[]": 'http_requests_total{job="api"}' });
    expect(series.body).toEqual({
      status: "success",
      data: [
        { __name__: "http_requests_total", instance: "a", job: "api" },
        { __name__: "http_requests_total", instance: "b", job: "api" },
      ],
    });
    expect((await m().get("/prometheus/api/v1/labels", "q")).body).toEqual({ status: "success", data: ["__name__", "instance", "job"] });
    expect((await m().get("/prometheus/api/v1/label/job/values", "q")).body).toEqual({ status: "success", data: ["api", "web"] });
    expect((await m().get("/prometheus/api/v1/label/job/values", "q", { "match[]": '{instance="c"}' })).body.data).toEqual(["web"]);
    // a time range with no data
    expect((await m().get("/prometheus/api/v1/series", "q", { "match[]": "http_requests_total", start: "1", end: "2" })).body.data).toEqual([]);
    // POST form works as GET
    const post = await m().raw("/prometheus/api/v1/query", { method: "POST", tenant: "q", body: new URLSearchParams({ query: "count(http_requests_total)", time: String((t0 + 60_000) / 1000) }), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(post.body.data.result[0].value[1]).toBe("3");
  });

  it("max_series_per_query: 422 execution with the real product's message", async () => {
    const t = Date.now();
    await m().push("wide", [1, 2, 3, 4].map((i) => ({ labels: { __name__: "w", i: String(i) }, samples: [[t, i]] as Array<[number, number]> })));
    const r = await m().query("wide", "sum(w)", t);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ status: "error", errorType: "execution", error: "the query hit the max number of series limit (limit: 3 series)" });
    expect((await m().query("wide", 'w{i=~"1|2"}', t)).status).toBe(200);
  });

  it("build info and readiness", async () => {
    const info = await m().get("/api/v1/status/buildinfo", undefined);
    expect(info.status).toBe(200);
    expect(info.body.status).toBe("success");
    expect(typeof info.body.data.application).toBe("string");
    for (const v of Object.values(info.body.data.features)) expect(typeof v).toBe("string");
    const ready = await m().raw("/ready");
    expect(ready.status).toBe(200);
    expect(ready.text).toBe("ready\n");
  });
});

// 150 samples: one full chunk (120) is cut, the last 30 stay in the open chunk
const heavyStart = Date.now() - 150 * 15_000;
const heavy = Array.from({ length: 150 }, (_, i) => [heavyStart + i * 15_000, i * 1.5] as [number, number]);
const closedBytes = encodeXorChunk(heavy.slice(0, 120).map((s) => s[0]), heavy.slice(0, 120).map((s) => s[1])).length;
const openBytes = encodeXorChunk(heavy.slice(120).map((s) => s[0]), heavy.slice(120).map((s) => s[1])).length;
const chunkLimit = openBytes + Math.floor(closedBytes / 2);

describe("query API: chunk bytes limit", () => {
  const ctx = useServer({ "metrics.limits.max_fetched_chunk_bytes_per_query": chunkLimit });
  it("a query fetching more chunk bytes than the limit is 422 with the spec's message", async () => {
    const m = metricsClient(ctx.server.urls.metrics!);
    const t = heavyStart;
    expect((await m.push("big", [{ labels: { __name__: "heavy" }, samples: heavy }])).status).toBe(200);
    const r = await m.get("/prometheus/api/v1/query_range", "big", { query: "heavy", start: String(t / 1000), end: String((t + 149 * 15_000) / 1000), step: "60" });
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ status: "error", errorType: "execution", error: `the query hit the aggregated chunks size limit (limit: ${chunkLimit} bytes)` });
    // a window over the open chunk only fits
    const small = await m.query("big", "heavy", t + 149 * 15_000);
    expect(small.status).toBe(200);
    expect(small.body.data.result[0].value[1]).toBe(String(149 * 1.5));
  });
});

describe("query API: chunk bytes limit off while streaming chunks is off", () => {
  const ctx = useServer({ "metrics.limits.max_fetched_chunk_bytes_per_query": 10, "metrics.ingester_stream_chunks_when_using_blocks": false });
  it("the limit does not apply", async () => {
    const m = metricsClient(ctx.server.urls.metrics!);
    const t = Date.now();
    expect((await m.push("nolimit", [{ labels: { __name__: "x" }, samples: [[t - 1000, 1], [t, 2]] }])).status).toBe(200);
    expect((await m.query("nolimit", "x", t)).status).toBe(200);
  });
});
