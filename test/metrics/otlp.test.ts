// POST /otlp/v1/metrics with hand-built OTLP bodies, as an OpenTelemetry
// exporter or the Collector's otlphttp exporter sends them: the names and
// labels of the Prometheus OTLP translator, both encodings, gzip, what is
// refused (delta, exponential histograms) and how (partial success or 400),
// bad bodies, the size limit, the series limit and the ingestion rate with
// Mimir's messages, tenant isolation, tokens mode, and the per-tenant OTLP
// statistics (docs/opentelemetry.md).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { ingest, ingestPacked } from "../../src/apps/metrics/core/ingest.ts";
import { decodeOtlpOn, otlpMetricsTasks } from "../../src/apps/metrics/core/otlp-decode.ts";
import * as names from "../../src/apps/metrics/core/otlp-names.ts";
import { translateMetrics } from "../../src/apps/metrics/core/otlp-translate.ts";
import { type PackedWrite, unpackWriteRequest } from "../../src/apps/metrics/core/push-decode.ts";
import { encodeWriteRequestBytes } from "../../src/apps/metrics/core/remote-write.ts";
import { type MetricsStore, openMetricsStore } from "../../src/apps/metrics/core/store.ts";
import type { MetricsLimits } from "../../src/apps/metrics/core/types.ts";
import { loadConfig } from "../../src/config/load.ts";
import { openDatabase } from "../../src/db/open.ts";
import { ApiError } from "../../src/lib/errors.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { decodeOtlp } from "../../src/lib/otlp/http.ts";
import type { TaskRunner } from "../../src/lib/tasks.ts";
import { WorkerDiedError } from "../../src/lib/worker-pool.ts";
import { eventually } from "../helpers/eventually.ts";
import { useServer } from "../helpers/server.ts";
import { adminApi, ADMIN_TOKEN, basic } from "../store-access/helpers.ts";
import { ingestDeps, metricsClient, overridesFile } from "./helpers.ts";
import { exponentialHistogram, gauge, histogram, ns, otlpClient, protobufBody, request, sum, summary } from "./otlp-helpers.ts";

const runtime = overridesFile({
  "two-series": { max_global_series_per_user: 2 },
  "two-series-h": { max_global_series_per_user: 2 },
  slow: { ingestion_rate: 1, ingestion_burst_size: 1 },
});
afterAll(runtime.remove);

/**
 * whether this runtime keeps a NaN's payload through a number (V8 does; JavaScriptCore, under Bun,
 * makes every NaN read from bytes the canonical one): where it does not, protobufjs has lost the
 * stale marker's bits of an as_double before the translation sees it, and it is a plain NaN on every
 * path alike (the write-ahead log then holds a plain NaN too)
 */
const KEEPS_NAN_BITS = (() => {
  const v = new DataView(new Uint8Array([2, 0, 0, 0, 0, 0, 0xf0, 0x7f]).buffer).getFloat64(0, true);
  return new Uint32Array(new Float64Array([v]).buffer)[0] === 2;
})();
const OTLP_SETTINGS = { suffixes: true, promoteResourceAttributes: [], promoteScopeMetadata: false, keepIdentifyingResourceAttributes: false };
const SERVICE = { "service.name": "checkout", "service.namespace": "shop", "service.instance.id": "pod-1", "host.name": "node-7" };
const MAX_RECV = 4 * 1024 * 1024;

/** the value of an instant query's only series, with its labels */
async function one(m: ReturnType<typeof metricsClient>, tenant: string, query: string, t: number) {
  const q = await m.query(tenant, query, t);
  expect(q.status).toBe(200);
  expect(q.body.data.result).toHaveLength(1);
  return { labels: q.body.data.result[0].metric as Record<string, string>, value: q.body.data.result[0].value[1] as string };
}

describe("OTLP metrics: translation and answers", () => {
  const ctx = useServer({ "metrics.runtime_config_file": runtime.path, "server.max_recv_msg_size": MAX_RECV });
  const m = () => metricsClient(ctx.server.urls.metrics!);
  const send = () => otlpClient(ctx.server.urls.metrics!);

  it("a protobuf push is 200 with an empty ExportMetricsServiceResponse, and every kind comes back with Prometheus names", async () => {
    const t = Date.now();
    const r = await send()(
      request(SERVICE, [
        sum("http.server.requests", "{request}", [{ t, v: 42, attrs: { "http.method": "GET" } }]),
        gauge("process.cpu.utilization", "1", [{ t, v: 0.25 }]),
        gauge("memory.used", "By", [{ t, v: 1024 }]),
        sum("queue.depth", "", [{ t, v: 3 }], { monotonic: false }),
        histogram("http.server.duration", "s", [{ t, count: 6, sum: 2.5, bounds: [0.1, 1], counts: [1, 3, 2], attrs: { route: "/cart" } }]),
        summary("rpc.latency", "ms", [{ t, count: 4, sum: 100, quantiles: [[0.5, 20], [0.99, 40]] }]),
      ], { name: "shop.meter", version: "1.2.0" }),
      { tenant: "tr" },
    );
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/x-protobuf");
    expect(r.bytes.length).toBe(0);

    const mm = m();
    const job = { job: "shop/checkout", instance: "pod-1" };
    expect(await one(mm, "tr", "http_server_requests_total", t)).toEqual({ labels: { __name__: "http_server_requests_total", ...job, http_method: "GET" }, value: "42" });
    expect((await one(mm, "tr", "process_cpu_utilization_ratio", t)).value).toBe("0.25");
    expect((await one(mm, "tr", "memory_used_bytes", t)).value).toBe("1024");
    expect((await one(mm, "tr", "queue_depth", t)).value).toBe("3");
    expect((await one(mm, "tr", 'http_server_duration_seconds_bucket{le="0.1"}', t)).value).toBe("1");
    expect((await one(mm, "tr", 'http_server_duration_seconds_bucket{le="1"}', t)).value).toBe("4");
    expect(await one(mm, "tr", 'http_server_duration_seconds_bucket{le="+Inf"}', t)).toEqual({
      labels: { __name__: "http_server_duration_seconds_bucket", ...job, route: "/cart", le: "+Inf" },
      value: "6",
    });
    expect((await one(mm, "tr", "http_server_duration_seconds_sum", t)).value).toBe("2.5");
    expect((await one(mm, "tr", "http_server_duration_seconds_count", t)).value).toBe("6");
    expect((await one(mm, "tr", 'rpc_latency_milliseconds{quantile="0.99"}', t)).value).toBe("40");
    expect((await one(mm, "tr", "rpc_latency_milliseconds_sum", t)).value).toBe("100");
    expect((await one(mm, "tr", "rpc_latency_milliseconds_count", t)).value).toBe("4");
    // the other resource attributes, in target_info (job and instance identify it)
    expect(await one(mm, "tr", "target_info", t)).toEqual({ labels: { __name__: "target_info", ...job, host_name: "node-7" }, value: "1" });
    // scope metadata is not promoted by default (Mimir's default)
    const scoped = await mm.query("tr", '{otel_scope_name!=""}', t);
    expect(scoped.body.data.result).toEqual([]);
    // metadata: types, help and unit per family
    const meta = await mm.get("/prometheus/api/v1/metadata", "tr");
    expect(meta.body.data.http_server_requests_total).toEqual([{ type: "counter", help: "", unit: "{request}" }]);
    expect(meta.body.data.http_server_duration_seconds[0].type).toBe("histogram");
    expect(meta.body.data.process_cpu_utilization_ratio[0].type).toBe("gauge");
    expect(meta.body.data.rpc_latency_milliseconds[0].type).toBe("summary");
  });

  it("a JSON push is 200 with {} and the same series; integers as text or numbers, enum names", async () => {
    const t = Date.now();
    const body = request({ "service.name": "json-svc" }, [sum("jobs.done", "", [{ t, v: 5 }])]);
    (body.resourceMetrics[0]!.scopeMetrics[0]!.metrics[0] as { sum: { aggregationTemporality: unknown } }).sum.aggregationTemporality = "AGGREGATION_TEMPORALITY_CUMULATIVE";
    const r = await send()(body, { tenant: "tr-json", json: true });
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json");
    expect(r.body).toEqual({});
    expect(await one(m(), "tr-json", "jobs_done_total", t)).toEqual({ labels: { __name__: "jobs_done_total", job: "json-svc" }, value: "5" });
  });

  it("attribute names are escaped as the translator's LabelNamer; colliding names join their values with ;", async () => {
    const t = Date.now();
    const r = await send()(
      request({ "service.name": "names" }, [gauge("my-metric.name", "", [{ t, v: 1, attrs: { "0abc": "a", _x: "b", "a.b": "v1", a_b: "v2", __keep: "c", empty: "" } }])]),
      { tenant: "tr-names" },
    );
    expect(r.status).toBe(200);
    expect((await one(m(), "tr-names", "my_metric_name", t)).labels).toEqual({
      __name__: "my_metric_name",
      job: "names",
      key_0abc: "a",
      key_x: "b",
      a_b: "v1;v2",
      __keep: "c",
    });
  });

  it("a data point flagged NoRecordedValue is a stale marker: the series ends", async () => {
    const t = Date.now();
    expect((await send()(request({ "service.name": "st" }, [gauge("temp", "Cel", [{ t, v: 21 }])]), { tenant: "tr-stale" })).status).toBe(200);
    expect((await one(m(), "tr-stale", "temp_celsius", t)).value).toBe("21");
    expect((await send()(request({ "service.name": "st" }, [gauge("temp", "Cel", [{ t: t + 1000, v: 0, flags: 1 }])]), { tenant: "tr-stale" })).status).toBe(200);
    expect((await m().query("tr-stale", "temp_celsius", t + 2000)).body.data.result).toEqual([]);
  });

  it("NaN and infinities are stored as sent", async () => {
    const t = Date.now();
    const r = await send()(request({ "service.name": "nan" }, [gauge("g.nan", "", [{ t, v: Number.NaN }]), gauge("g.inf", "", [{ t, v: Number.POSITIVE_INFINITY }])]), { tenant: "tr-nan" });
    expect(r.status).toBe(200);
    expect((await one(m(), "tr-nan", "g_nan", t)).value).toBe("NaN");
    expect((await one(m(), "tr-nan", "g_inf", t)).value).toBe("+Inf");
  });

  it("a delta sum is refused (Mimir's default): partial success beside stored points, 400 alone", async () => {
    const t = Date.now();
    const mixed = await send()(request({ "service.name": "d" }, [sum("deltas", "", [{ t, v: 1 }, { t, v: 2, attrs: { a: "b" } }], { delta: true }), gauge("kept", "", [{ t, v: 9 }])]), { tenant: "tr-delta" });
    expect(mixed.status).toBe(200);
    expect(mixed.body).toEqual({ partialSuccess: { rejectedDataPoints: "2", errorMessage: 'otlp parse error: invalid temporality and type combination for metric "deltas"' } });
    expect((await one(m(), "tr-delta", "kept", t)).value).toBe("9");
    expect((await m().query("tr-delta", "deltas_total", t)).body.data.result).toEqual([]);

    const alone = await send()(request({}, [sum("deltas", "", [{ t, v: 1 }], { delta: true })]), { tenant: "tr-delta", json: true });
    expect(alone.status).toBe(400);
    expect(alone.body).toEqual({ code: 3, message: 'otlp parse error: invalid temporality and type combination for metric "deltas"' });
  });

  it("exponential histograms are refused with a clear message (no native histograms here)", async () => {
    const t = Date.now();
    const mixed = await send()(request({ "service.name": "e" }, [exponentialHistogram("latency", t), gauge("ok", "", [{ t, v: 1 }])]), { tenant: "tr-exp" });
    expect(mixed.status).toBe(200);
    expect(mixed.body.partialSuccess.rejectedDataPoints).toBe("1");
    expect(mixed.body.partialSuccess.errorMessage).toContain('exponential histograms are not supported (this store keeps no native histograms): the 1 data points of metric "latency" were dropped');
    expect((await one(m(), "tr-exp", "ok", t)).value).toBe("1");
    const alone = await send()(request({}, [exponentialHistogram("latency", t)]), { tenant: "tr-exp" });
    expect(alone.status).toBe(400);
    expect(alone.body.code).toBe(3);
  });

  it("an attribute name that escapes to underscores only drops its data point, with the translator's message", async () => {
    const t = Date.now();
    const r = await send()(request({ "service.name": "bad" }, [gauge("g", "", [{ t, v: 1, attrs: { "..": "x" } }, { t, v: 2 }])]), { tenant: "tr-badname" });
    expect(r.status).toBe(200);
    expect(r.body.partialSuccess).toEqual({ rejectedDataPoints: "1", errorMessage: 'otlp parse error: normalization for label name ".." resulted in invalid name "__"' });
    expect((await one(m(), "tr-badname", "g", t)).value).toBe("2");
  });

  it("a series the distributor refuses (label value too long) is Mimir's message: 400 when nothing was stored, else partial success", async () => {
    const t = Date.now();
    const long = "x".repeat(3000);
    const alone = await send()(request({}, [gauge("lv", "", [{ t, v: 1, attrs: { big: long } }])]), { tenant: "tr-valid" });
    expect(alone.status).toBe(400);
    expect(alone.body.message).toMatch(/^received a series whose label value length exceeds the limit, label: 'big'/);
    const mixed = await send()(request({}, [gauge("lv", "", [{ t, v: 1, attrs: { big: long } }, { t, v: 2 }])]), { tenant: "tr-valid" });
    expect(mixed.status).toBe(200);
    expect(mixed.body.partialSuccess.rejectedDataPoints).toBe("1");
    expect(mixed.body.partialSuccess.errorMessage).toMatch(/\(err-mimir-label-value-too-long\)/);
  });

  it("wrong content type or compression: 415 with Mimir's messages (a Status in protobuf)", async () => {
    const body = protobufBody(request({}, []));
    const type = await send()(undefined, { tenant: "t", raw: body, headers: { "Content-Type": "text/plain" } });
    expect(type.status).toBe(415);
    expect(type.body).toEqual({ code: 3, message: "unsupported content type: text/plain, supported: [application/json, application/x-protobuf]" });
    const enc = await send()(undefined, { tenant: "t", raw: body, headers: { "Content-Encoding": "br" } });
    expect(enc.status).toBe(415);
    expect(enc.body.message).toBe('unsupported compression: br. Only "gzip", "deflate", or no compression supported');
  });

  it("a truncated protobuf or unparsable JSON is 400; unknown fields are skipped", async () => {
    const t = Date.now();
    const body = protobufBody(request({ "service.name": "u" }, [gauge("unk", "", [{ t, v: 4 }])]));
    const truncated = await send()(undefined, { tenant: "tr-bad", raw: body.subarray(0, body.length - 5) });
    expect(truncated.status).toBe(400);
    expect(truncated.body.message).toMatch(/^cannot parse the OTLP protobuf body: /);
    const garbage = await send()(undefined, { tenant: "tr-bad", raw: new TextEncoder().encode("{not json"), json: true });
    expect(garbage.status).toBe(400);
    expect(garbage.body.message).toMatch(/^cannot parse the OTLP\/JSON body: /);

    // field 99 (varint 1) at the top, and unknown JSON keys everywhere: ignored
    const withUnknown = new Uint8Array([...body, 0x98, 0x06, 0x01]);
    expect((await send()(undefined, { tenant: "tr-bad", raw: withUnknown })).status).toBe(200);
    expect((await one(m(), "tr-bad", "unk", t)).value).toBe("4");
    const json = request({ "service.name": "u" }, [{ ...gauge("unk2", "", [{ t, v: 5 }]), futureField: { x: 1 } }]) as Record<string, unknown>;
    json.somethingNew = [1, 2];
    expect((await send()(json, { tenant: "tr-bad", json: true })).status).toBe(200);
    expect((await one(m(), "tr-bad", "unk2", t)).value).toBe("5");
  });

  it("a JSON field of the wrong type is 400 naming the field, never 500", async () => {
    const t = Date.now();
    const cases: Array<[object, string]> = [
      [{ resourceMetrics: 5 }, "resourceMetrics must be an array"],
      [{ resourceMetrics: [7] }, "resourceMetrics[0] must be an object"],
      [request({}, [{ name: "g", gauge: { dataPoints: [{ timeUnixNano: String(t), asDouble: "abc" }] } }]), "resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].asDouble must be a number"],
      [request({}, [{ name: "g", gauge: { dataPoints: [{ timeUnixNano: "soon", asDouble: 1 }] } }]), "resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].timeUnixNano must be an unsigned 64-bit integer"],
      [request({}, [{ name: "g", gauge: { dataPoints: [{ timeUnixNano: String(t), asInt: "99999999999999999999" }] } }]), "resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].asInt must be a 64-bit integer"],
      [request({}, [{ name: "g", gauge: { dataPoints: [{ timeUnixNano: String(t), asInt: "-9223372036854775809" }] } }]), "resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].asInt must be a 64-bit integer"],
      [
        request({}, [{ name: "g", gauge: { dataPoints: [{ timeUnixNano: String(t), asInt: "1", attributes: [{ key: "k", value: { intValue: "-99999999999999999999" } }] }] } }]),
        "resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].attributes[0]: -99999999999999999999 is out of the int64 range",
      ],
      [request({}, [{ name: 5, gauge: { dataPoints: [] } }]), "resourceMetrics[0].scopeMetrics[0].metrics[0].name must be a string"],
      [request({}, [{ name: "h", histogram: { aggregationTemporality: 2, dataPoints: [{ timeUnixNano: String(t), count: "1", bucketCounts: ["x"], explicitBounds: [1] }] } }]), "resourceMetrics[0].scopeMetrics[0].metrics[0].histogram.dataPoints[0].bucketCounts[0] must be a number"],
      [{ resourceMetrics: [{ resource: { attributes: [{ key: 1 }] } }] }, "resourceMetrics[0].resource.attributes[0].key must be a string"],
      [{ resourceMetrics: [{ scopeMetrics: [{ metrics: [{ name: "g", gauge: "x" }] }] }] }, "resourceMetrics[0].scopeMetrics[0].metrics[0].gauge must be an object"],
    ];
    for (const [body, field] of cases) {
      const r = await send()(body, { tenant: "tr-types", json: true });
      expect(r.status, field).toBe(400);
      expect(r.body).toEqual({ code: 3, message: `cannot parse the OTLP/JSON body: ${field}` });
    }
  });

  it("gzip bodies are read; a body over max_recv_msg_size is 413 with Mimir's OTLP message, compressed or not", async () => {
    const t = Date.now();
    expect((await send()(request({ "service.name": "gz" }, [gauge("zipped", "", [{ t, v: 3 }])]), { tenant: "tr-gz", gzip: true })).status).toBe(200);
    expect((await one(m(), "tr-gz", "zipped", t)).value).toBe("3");

    const big = new Uint8Array(MAX_RECV + 1);
    const raw = await send()(undefined, { tenant: "tr-gz", raw: big });
    expect(raw.status).toBe(413);
    expect(raw.body.message).toBe(
      `the incoming OTLP request has been rejected because its message size of ${MAX_RECV + 1} bytes (uncompressed) is larger than the allowed limit of ${MAX_RECV} bytes (err-mimir-distributor-max-otlp-request-size). To adjust the related limit, configure -distributor.max-otlp-request-size, or contact your service administrator.`,
    );
    // a small gzip body that inflates past the limit
    const bomb = await send()(undefined, { tenant: "tr-gz", raw: gzipSync(new Uint8Array(4 * MAX_RECV)), headers: { "Content-Encoding": "gzip" } });
    expect(bomb.status).toBe(413);
    expect(bomb.body.message).toContain(`the incoming OTLP request has been rejected because its message size is larger than the allowed limit of ${MAX_RECV} bytes`);
  });

  it("many tiny items cost more than their bytes: a JSON body of empty objects is refused, 413", async () => {
    const r = await send()(undefined, { tenant: "tr-gz", json: true, raw: new TextEncoder().encode(`{"resourceMetrics":[${"{},".repeat(30_000)}{}]}`) });
    expect(r.status).toBe(413);
    expect(r.body.message).toMatch(/^the incoming OTLP request has been rejected because its message size of \d+ bytes/);
  });

  it("a histogram with a huge number of buckets is charged for its series, 413 rather than memory", async () => {
    const t = Date.now();
    const n = 40_000;
    const r = await send()(request({}, [histogram("wide", "", [{ t, count: n, bounds: Array.from({ length: n }, (_, i) => i), counts: Array.from({ length: n + 1 }, () => 1) }])]), { tenant: "tr-gz" });
    expect(r.status).toBe(413);
  });

  it("the series limit: Mimir's message, a partial success (the ingester's soft error), even when nothing was stored", async () => {
    const t = Date.now();
    const r = await send()(request({}, [gauge("s", "", [{ t, v: 1, attrs: { i: "1" } }, { t, v: 2, attrs: { i: "2" } }, { t, v: 3, attrs: { i: "3" } }])]), { tenant: "two-series" });
    expect(r.status).toBe(200);
    expect(r.body.partialSuccess).toEqual({
      rejectedDataPoints: "1",
      errorMessage: "per-user series limit of 2 exceeded, please contact administrator to raise it (per-ingester local limit: 2)",
    });
    const none = await send()(request({}, [gauge("s", "", [{ t, v: 4, attrs: { i: "4" } }])]), { tenant: "two-series", json: true });
    expect(none.status).toBe(200);
    expect(none.body.partialSuccess.rejectedDataPoints).toBe("1");
    const q = await m().query("two-series", "count(s)", t);
    expect(q.body.data.result[0].value[1]).toBe("2");
  });

  it("the ingestion rate: 429 with Mimir's message, a Status and Retry-After", async () => {
    const t = Date.now();
    const r = await send()(request({}, [gauge("r", "", [{ t, v: 1, attrs: { i: "1" } }, { t, v: 2, attrs: { i: "2" } }, { t, v: 3, attrs: { i: "3" } }])]), { tenant: "slow" });
    expect(r.status).toBe(429);
    expect(r.body).toEqual({ code: 8, message: "ingestion rate limit (1) exceeded while adding 3 samples and 1 metadata" });
    expect(Number(r.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("tenants are isolated, and the tenant is required (401)", async () => {
    const t = Date.now();
    expect((await send()(request({ "service.name": "iso" }, [gauge("secret", "", [{ t, v: 1 }])]), { tenant: "iso-a" })).status).toBe(200);
    expect((await one(m(), "iso-a", "secret", t)).value).toBe("1");
    expect((await m().query("iso-b", "secret", t)).body.data.result).toEqual([]);
    const anonymous = await send()(request({}, []), { json: true });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ code: 16, message: "no org id" });
  });

  it("a large body (decoded on the ingest decoder's worker) stores the same as a small one, and again when its series are known", async () => {
    const t = Date.now();
    const points = Array.from({ length: 400 }, (_, i) => ({ t, v: i, attrs: { series: `s-${i}`, pad: "p".repeat(40) } }));
    const body = request({ "service.name": "big", "host.name": "h" }, [gauge("big.gauge", "", points), sum("big.count", "", points)]);
    expect(protobufBody(body).length).toBeGreaterThan(16 * 1024);
    expect((await send()(body, { tenant: "tr-big" })).status).toBe(200);
    expect((await m().query("tr-big", "count(big_gauge)", t)).body.data.result[0].value[1]).toBe("400");
    expect((await m().query("tr-big", "sum(big_count_total)", t)).body.data.result[0].value[1]).toBe(String((399 * 400) / 2));
    const later = request({ "service.name": "big", "host.name": "h" }, [gauge("big.gauge", "", points.map((p) => ({ ...p, t: t + 1000, v: p.v + 1 })))]);
    expect((await send()(later, { tenant: "tr-big" })).status).toBe(200);
    expect((await m().query("tr-big", "sum(big_gauge)", t + 1000)).body.data.result[0].value[1]).toBe(String((401 * 400) / 2));
    expect((await one(m(), "tr-big", "target_info", t + 1000)).labels).toEqual({ __name__: "target_info", job: "big", host_name: "h" });
    // a small gzip body that inflates to a large one: inflated first, then decoded on the worker too
    const zipped = request({ "service.name": "big", "host.name": "h" }, [gauge("big.gauge", "", points.map((p) => ({ ...p, t: t + 2000, v: p.v + 2 })))]);
    expect(gzipSync(protobufBody(zipped)).length).toBeLessThan(16 * 1024);
    expect((await send()(zipped, { tenant: "tr-big", gzip: true })).status).toBe(200);
    expect((await m().query("tr-big", "sum(big_gauge)", t + 2000)).body.data.result[0].value[1]).toBe(String((401 * 400) / 2 + 400));
  });

  it("the tenant's OTLP statistics: user_stats, all_user_stats and cortex_distributor_otlp_requests_total", async () => {
    const t = Date.now();
    const r = await send()(request({}, [gauge("st", "", [{ t, v: 1 }, { t, v: 2, attrs: { a: "b" } }]), sum("d", "", [{ t, v: 1 }], { delta: true })]), { tenant: "tr-stats" });
    expect(r.status).toBe(200);
    await eventually(
      () => m().get("/api/v1/user_stats", "tr-stats"),
      (s) => expect(s.body).toMatchObject({ otlpRequests: 1, otlpDataPoints: 3, otlpSamples: 2 }),
    );
    const all = await m().get("/distributor/all_user_stats", undefined);
    expect(all.body.find((u: { userID: string }) => u.userID === "tr-stats")).toMatchObject({ otlpRequests: 1, otlpDataPoints: 3, otlpSamples: 2 });
    const text = (await m().get("/metrics", undefined)).text;
    expect(text).toMatch(/cortex_distributor_otlp_requests_total\{user="tr-stats"\} 1/);
    expect(text).toMatch(/cortex_discarded_samples_total\{reason="otlp_parse_error",user="tr-stats"\} 1/);
  });
});

describe("OTLP metrics: translation settings (metrics.otlp.*)", () => {
  const ctx = useServer({
    "metrics.otlp.metric_suffixes_enabled": false,
    "metrics.otlp.promote_resource_attributes": ["deployment.environment"],
    "metrics.otlp.promote_scope_metadata": true,
    "metrics.otlp.keep_identifying_resource_attributes": true,
  });

  it("no suffixes, promoted resource attributes, scope labels, identifying attributes kept in target_info", async () => {
    const t = Date.now();
    const send = otlpClient(ctx.server.urls.metrics!);
    const r = await send(
      request({ "service.name": "svc", "deployment.environment": "prod", region: "eu" }, [sum("http.requests", "{request}", [{ t, v: 2 }]), gauge("mem", "By", [{ t, v: 5 }])], {
        name: "io.meter",
        version: "0.1",
        attributes: { "lib.kind": "auto" },
        schemaUrl: "https://opentelemetry.io/schemas/1.26.0",
      }),
      { tenant: "settings" },
    );
    expect(r.status).toBe(200);
    const m = metricsClient(ctx.server.urls.metrics!);
    const scope = { otel_scope_name: "io.meter", otel_scope_version: "0.1", otel_scope_schema_url: "https://opentelemetry.io/schemas/1.26.0", otel_scope_lib_kind: "auto" };
    expect(await one(m, "settings", "http_requests", t)).toEqual({ labels: { __name__: "http_requests", job: "svc", deployment_environment: "prod", ...scope }, value: "2" });
    expect((await one(m, "settings", "mem", t)).value).toBe("5");
    expect((await one(m, "settings", "target_info", t)).labels).toEqual({
      __name__: "target_info",
      job: "svc",
      service_name: "svc",
      deployment_environment: "prod",
      region: "eu",
    });
  });
});

describe("OTLP metrics in tokens mode", () => {
  const ctx = useServer({ "metrics.auth.type": "tokens", "metrics.admin_token": ADMIN_TOKEN });

  it("a token with metrics:write pushes for its tenant; a reader's token is 403, none 401", async () => {
    const admin = adminApi(ctx.server.urls.metrics!);
    await admin.policy("otlp-writer", ["ta"], ["metrics:write", "metrics:read"]);
    await admin.policy("otlp-reader", ["ta"], ["metrics:read"]);
    const writer = await admin.token("w", "otlp-writer");
    const reader = await admin.token("r", "otlp-reader");
    const send = otlpClient(ctx.server.urls.metrics!);
    const t = Date.now();
    const body = request({ "service.name": "tok" }, [gauge("tokened", "", [{ t, v: 7 }])]);
    expect((await send(body, { headers: { Authorization: basic("ta", writer) } })).status).toBe(200);
    expect((await send(body, { headers: { Authorization: basic("ta", reader) } })).status).toBe(403);
    expect((await send(body, {})).status).toBe(401);
    const q = await fetch(`${ctx.server.urls.metrics}/prometheus/api/v1/query?query=tokened&time=${t / 1000}`, { headers: { Authorization: basic("ta", reader) } });
    expect(((await q.json()) as { data: { result: Array<{ value: [number, string] }> } }).data.result[0]!.value[1]).toBe("7");
  });
});

// The review of the OTLP metrics ingest: bodies that asked for unbounded work
// or memory, names and metadata without bounds, a dead worker's body run again
// on the event loop, the stale marker's bits, and what rejected_data_points counts.
describe("OTLP metrics: bounded work and memory, and the review's other findings", () => {
  const ctx = useServer({ "metrics.runtime_config_file": runtime.path, "server.max_recv_msg_size": MAX_RECV });
  const m = () => metricsClient(ctx.server.urls.metrics!);
  const send = () => otlpClient(ctx.server.urls.metrics!);
  const json = (text: string) => new TextEncoder().encode(text);

  it("a time at or past 2^64 ns, negative, or not an integer is a 400 naming the field (a 306-byte body once looped target_info forever)", async () => {
    const body = (time: string) =>
      `{"resourceMetrics":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}},{"key":"host.name","value":{"stringValue":"h"}}]},"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"timeUnixNano":${time},"asDouble":1},{"timeUnixNano":"1700000000000000000","asDouble":2}]}}]}]}]}`;
    // 3e27 last: before the fix it never returned
    for (const time of ['"18446744073709551616"', '"99999999999999999999"', "1e300", "-1", '"-1"', "1.5", '{"__isLong__":true,"high":1,"low":1}', "3e27"]) {
      const r = await send()(undefined, { tenant: "tr-time", json: true, raw: json(body(time)) });
      expect(r.status, time).toBe(400);
      expect(r.body, time).toEqual({ code: 3, message: "cannot parse the OTLP/JSON body: resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints[0].timeUnixNano must be an unsigned 64-bit integer" });
    }
  });

  it("the largest time (2^64-1 ns) beside now: target_info has at most an hour of samples; the far point is refused, target_info counts as no data point", async () => {
    const t = Date.now();
    const body = request({ "service.name": "far", "host.name": "h" }, [{ name: "far", gauge: { dataPoints: [{ timeUnixNano: "18446744073709551615", asDouble: 1 }, { timeUnixNano: ns(t), asDouble: 2 }] } }]);
    const r = await send()(body, { tenant: "tr-time" });
    expect(r.status).toBe(200);
    expect(r.body.partialSuccess.rejectedDataPoints).toBe("1");
    expect(r.body.partialSuccess.errorMessage).toMatch(/^received a sample whose timestamp is too far in the future, timestamp: 18446744073709 series: 'far\{/);
    expect((await one(m(), "tr-time", "far", t)).value).toBe("2");
  });

  it("each bucket series is charged for the labels it copies: 2,000 buckets of 27 long attributes (a 3.4 KB gzip body) is 413, 10 buckets are stored", async () => {
    const t = Date.now();
    const attrs: Record<string, string> = {};
    for (let i = 0; i < 27; i++) attrs[`a${i}`] = String.fromCharCode(97 + (i % 26)).repeat(2000);
    const wide = (n: number, name: string) => request({ "service.name": "amp" }, [histogram(name, "", [{ t, count: n, bounds: Array.from({ length: n }, (_, i) => i), counts: Array.from({ length: n + 1 }, () => 1), attrs }])]);
    const big = await send()(wide(2000, "amp_wide"), { tenant: "tr-amp", gzip: true });
    expect(big.status).toBe(413);
    expect(big.body.message).toMatch(/^the incoming OTLP request has been rejected because its message size of \d+ bytes \(uncompressed\) is larger than the allowed limit of 4194304 bytes/);
    expect((await m().query("tr-amp", "count(amp_wide_bucket)", t)).body.data.result).toEqual([]);
    const small = await send()(wide(10, "amp_narrow"), { tenant: "tr-amp", gzip: true });
    expect(small.status).toBe(200);
    expect((await one(m(), "tr-amp", "count(amp_narrow_bucket)", t)).value).toBe("11");
  });

  it("what the translation is charged covers the series it builds (as encoded for the worker's answer and the write-ahead log)", () => {
    const t = Date.now();
    const attrs: Record<string, string> = {};
    for (let i = 0; i < 20; i++) attrs[`attribute.${i}`] = "v".repeat(500 + i);
    const message = request({ "service.name": "c", "host.name": "h", region: "r".repeat(3000) }, [
      histogram("h", "s", [{ t, count: 200, sum: 3, bounds: Array.from({ length: 200 }, (_, i) => i / 10), counts: Array.from({ length: 201 }, () => 1), attrs }]),
      summary("s", "ms", [{ t, count: 1, sum: 1, quantiles: Array.from({ length: 50 }, (_, i): [number, number] => [i / 50, i]), attrs }]),
      gauge("g", "By", [{ t, v: 1, attrs }, { t: t - 3_600_000, v: 2, attrs }]),
    ]);
    const decoded = decodeOtlp("ExportMetricsServiceRequest", protobufBody(message), "protobuf", 1 << 30);
    const budget = { charged: 0, limit: 1 << 30 };
    const translated = translateMetrics(decoded, OTLP_SETTINGS, budget);
    expect(translated.timeseries.length).toBe(203 + 52 + 2 + 1);
    expect(budget.charged).toBeGreaterThan(encodeWriteRequestBytes(translated).length);
  });

  it("names are bounded: an attribute name over 1,024 characters or a metric name over 2,048 drops its data points with a message; `__` is refused as LabelNamer refuses it", async () => {
    const t = Date.now();
    const r = await send()(
      request({ "service.name": "names" }, [
        gauge("bounded", "", [{ t, v: 1, attrs: { ["k".repeat(1025)]: "x" } }, { t, v: 2, attrs: { __: "y" } }, { t, v: 3, attrs: { ["k".repeat(1024)]: "z" } }]),
        gauge("m".repeat(2049), "", [{ t, v: 4 }]),
        gauge("n".repeat(2045), "By", [{ t, v: 5 }]),
        gauge(`long${"x".repeat(2000)}`, "", [{ t, v: 6 }]),
      ]),
      { tenant: "tr-names2" },
    );
    expect(r.status).toBe(200);
    expect(r.body.partialSuccess.rejectedDataPoints).toBe("4");
    const messages = (r.body.partialSuccess.errorMessage as string).split("; ");
    expect(messages).toEqual([
      // a name under the series' bound but over the metadata's: the series is stored, its metadata is not (Mimir's message)
      `received a metric metadata whose metric name length exceeds the limit, metric name: 'long${"x".repeat(196)}' (err-mimir-metric-name-too-long). To adjust the related per-tenant limit, configure -validation.max-metadata-length, or contact your service administrator.`,
      `otlp parse error: label name "${"k".repeat(100)}…" is longer than 1024 characters`,
      'normalization for label name "__" resulted in invalid name "__"',
      `the name made of metric "${"m".repeat(100)}…" is longer than 2048 characters`,
      `the name made of metric "${"n".repeat(100)}…" is longer than 2048 characters`,
    ]);
    expect((await one(m(), "tr-names2", "bounded", t)).labels).toEqual({ __name__: "bounded", job: "names", ["k".repeat(1024)]: "z" });
    expect((await one(m(), "tr-names2", `long${"x".repeat(2000)}`, t)).value).toBe("6");
  });

  it("the name memos keep short names only (a name of any length was kept, 4,096 of them)", () => {
    const before = names.rememberedNames();
    names.labelName(`long.${"a".repeat(300)}`);
    names.metricName(`long.${"m".repeat(300)}`, "By", "gauge", true);
    expect(names.rememberedNames()).toBe(before);
    names.labelName(`short.${before}`);
    expect(names.rememberedNames()).toBe(before + 1);
  });

  it("metadata only for a metric that made a series, and within Mimir's max_metadata_length (name and unit refused, help cut)", async () => {
    const t = Date.now();
    const described = (metric: object, description: string) => ({ ...metric, description });
    const r = await send()(
      request({}, [
        described({ name: "no.points", unit: "By", gauge: { dataPoints: [] } }, "never stored"),
        described(gauge("all.refused", "", [{ t, v: 1, attrs: { "..": "x" } }]), "never stored"),
        described(gauge("kept", "", [{ t, v: 1 }]), "h".repeat(5000)),
        described(gauge("unit.long", `{${"u".repeat(1500)}}`, [{ t, v: 2 }]), "unit"),
        described(gauge(`name${"n".repeat(1100)}`, "", [{ t, v: 3 }]), "name"),
      ]),
      { tenant: "tr-meta" },
    );
    expect(r.status).toBe(200);
    expect(r.body.partialSuccess.rejectedDataPoints).toBe("1");
    expect(r.body.partialSuccess.errorMessage).toBe(
      `received a metric metadata whose unit name length exceeds the limit, unit: '{${"u".repeat(199)}' metric name: 'unit_long' (err-mimir-unit-too-long). To adjust the related per-tenant limit, configure -validation.max-metadata-length, or contact your service administrator.; ` +
        `otlp parse error: empty data points. no.points is dropped; normalization for label name ".." resulted in invalid name "__"`,
    );
    const meta = (await m().get("/prometheus/api/v1/metadata", "tr-meta")).body.data as Record<string, Array<{ help: string }>>;
    expect(Object.keys(meta)).toEqual(["kept"]);
    expect(meta.kept![0]!.help).toBe("h".repeat(1024));
    // the series themselves are stored
    expect((await one(m(), "tr-meta", "unit_long", t)).value).toBe("2");
    expect((await one(m(), "tr-meta", `name${"n".repeat(1100)}`, t)).value).toBe("3");
    const text = (await m().get("/metrics", undefined)).text;
    expect(text).toMatch(/cortex_discarded_metadata_total\{reason="unit_too_long",user="tr-meta"\} 1/);
    expect(text).toMatch(/cortex_discarded_metadata_total\{reason="metric_name_too_long",user="tr-meta"\} 1/);
  });

  it("a value with the stale marker's bits (no NoRecordedValue flag) is a stale marker on the event loop and on the worker alike (where the runtime keeps the bits)", async () => {
    const t = Date.now();
    const SENTINEL = 98765.4321;
    const staleBits = (body: Uint8Array) => {
      const view = new DataView(body.buffer, body.byteOffset, body.byteLength);
      let found = 0;
      for (let i = 0; i + 8 <= body.length; i++) {
        if (view.getFloat64(i, true) !== SENTINEL) continue;
        view.setUint32(i, 2, true);
        view.setUint32(i + 4, 0x7ff00000, true);
        found++;
      }
      expect(found).toBe(1);
      return body;
    };
    // small: translated on the event loop (a plain sample first, then the stale bits)
    expect((await send()(request({ "service.name": "st" }, [gauge("bits.small", "", [{ t: t - 1000, v: 1 }])]), { tenant: "tr-bits" })).status).toBe(200);
    const small = staleBits(protobufBody(request({ "service.name": "st" }, [gauge("bits.small", "", [{ t, v: SENTINEL }])])));
    expect(small.length).toBeLessThan(16 * 1024);
    expect((await send()(undefined, { tenant: "tr-bits", raw: small })).status).toBe(200);
    expect((await one(m(), "tr-bits", "bits_small", t - 1000)).value).toBe("1");
    if (KEEPS_NAN_BITS) {
      expect((await m().query("tr-bits", "bits_small", t)).body.data.result).toEqual([]);
      // the same point flagged NoRecordedValue is the same stale marker again: a duplicate, silently taken
      const again = await send()(request({ "service.name": "st" }, [gauge("bits.small", "", [{ t, v: 0, flags: 1 }])]), { tenant: "tr-bits" });
      expect(again.status).toBe(200);
      expect(again.bytes.length).toBe(0);
    } else expect((await one(m(), "tr-bits", "bits_small", t)).value).toBe("NaN");
    // large: translated on the ingest decoder's worker
    const points = Array.from({ length: 300 }, (_, i) => ({ t, v: i === 7 ? SENTINEL : i, attrs: { series: `s-${i}`, pad: "p".repeat(40) } }));
    const large = staleBits(protobufBody(request({ "service.name": "st" }, [gauge("bits.large", "", points)])));
    expect(large.length).toBeGreaterThan(16 * 1024);
    expect((await send()(undefined, { tenant: "tr-bits", raw: large })).status).toBe(200);
    if (KEEPS_NAN_BITS) expect((await m().query("tr-bits", 'bits_large{series="s-7"}', t)).body.data.result).toEqual([]);
    else expect((await one(m(), "tr-bits", 'bits_large{series="s-7"}', t)).value).toBe("NaN");
    expect((await m().query("tr-bits", "count(bits_large)", t)).body.data.result[0].value[1]).toBe(KEEPS_NAN_BITS ? "299" : "300");
  });

  it("rejected_data_points counts data points: a histogram point of 13 series, 11 of them over the series limit, is one", async () => {
    const t = Date.now();
    const r = await send()(request({}, [histogram("lim", "", [{ t, count: 10, sum: 1, bounds: Array.from({ length: 10 }, (_, i) => i), counts: Array.from({ length: 11 }, () => 1) }])]), { tenant: "two-series-h" });
    expect(r.status).toBe(200);
    expect(r.body.partialSuccess).toEqual({
      rejectedDataPoints: "1",
      errorMessage: "per-user series limit of 2 exceeded, please contact administrator to raise it (per-ingester local limit: 2)",
    });
    // the same counted through the worker (a large body): 100 points of one series each, the first two stored
    const points = Array.from({ length: 100 }, (_, i) => ({ t, v: i, attrs: { series: `s-${i}`, pad: "p".repeat(200) } }));
    const wide = await send()(request({}, [gauge("lim.g", "", points)]), { tenant: "two-series-h" });
    expect(wide.status).toBe(200);
    expect(wide.body.partialSuccess.rejectedDataPoints).toBe("100");
  });
});

describe("OTLP metrics: a decoding worker that died on a body", () => {
  const runner = (fail: () => Error): TaskRunner => ({ inline: false, size: 1, run: () => Promise.reject(fail()), close: async () => {} });
  const body = protobufBody(request({ "service.name": "w" }, [gauge("w", "", Array.from({ length: 300 }, (_, i) => ({ t: Date.now(), v: i, attrs: { s: `s-${i}`, pad: "p".repeat(40) } })))]));
  const input = { body, contentEncoding: "", encoding: "protobuf" as const, maxBytes: 1 << 26, settings: OTLP_SETTINGS };
  const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

  it("is a 503 (413 when it ran out of memory), the body not translated again on the event loop", async () => {
    expect(body.length).toBeGreaterThan(16 * 1024);
    const died = await failure(decodeOtlpOn(runner(() => new WorkerDiedError("worker exited with code 134 while running decodeOtlpMetrics")), input));
    expect(died).toBeInstanceOf(ApiError);
    expect((died as ApiError).status).toBe(503);
    expect((died as ApiError).message).toBe("the decoder ended while decoding this request; it was not stored");
    const oom = Object.assign(new Error("Worker terminated due to reaching memory limit: JS heap out of memory"), { code: "ERR_WORKER_OUT_OF_MEMORY" });
    const outOfMemory = await failure(decodeOtlpOn(runner(() => new WorkerDiedError("worker failed: out of memory while running decodeOtlpMetrics", { cause: oom })), input));
    expect((outOfMemory as ApiError).status).toBe(413);
  });

  it("a pool that could not take the task (closing): translated here instead", async () => {
    const decoded = await decodeOtlpOn(runner(() => new Error("the worker pool is closed")), input);
    expect("request" in decoded && decoded.request.timeseries.length).toBe(300);
  });
});

describe("OTLP metrics and the write-ahead log", () => {
  it("a push translated on the event loop and one on the worker replay as they were stored, stale markers (flag or bits) included", async () => {
    const walDir = mkdtempSync(join(tmpdir(), "otlp-wal-"));
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const limits: MetricsLimits = { ...loadConfig().metrics.limits };
      const open = () => openMetricsStore({ pg: db.pg, logger: silentLogger, walDir, now: Date.now, flushInterval: 3_600_000, checkpointWalBytes: 1 << 40, checkpointInterval: 3_600_000 });
      const state = (store: MetricsStore) =>
        (store.peek("t")?.select([{ type: "=~", name: "__name__", value: ".+" }]) ?? [])
          .map((s) => ({ labels: s.labels, lastT: s.lastT, stale: s.lastStale }))
          .sort((a, b) => JSON.stringify(a.labels).localeCompare(JSON.stringify(b.labels)));
      const first = await open();
      const deps = ingestDeps(first, () => limits);
      const t = Date.now() - 600_000;
      const SENTINEL = 98765.4321;
      for (let r = 0; r < 4; r++) {
        const message = request({ "service.name": "svc", "host.name": "h" }, [
          gauge("g", "By", [{ t: t + r * 1000, v: r, attrs: { a: "1" } }, { t: t + r * 1000, v: r, attrs: { a: "2" }, flags: r === 3 ? 1 : 0 }, { t: t + r * 1000, v: r === 3 ? SENTINEL : r, attrs: { a: "3" } }]),
          histogram("h", "s", [{ t: t + r * 1000, count: 3, sum: 1.5, bounds: [0.1, 1], counts: [1, 1, 1] }]),
        ]);
        const pb = protobufBody(message);
        const view = new DataView(pb.buffer, pb.byteOffset, pb.byteLength);
        for (let i = 0; i + 8 <= pb.length; i++) if (view.getFloat64(i, true) === SENTINEL) view.setUint32(i + 4, 0x7ff00000, true), view.setUint32(i, 2, true);
        const input = { body: pb, contentEncoding: "", encoding: "protobuf" as const, maxBytes: 1 << 26, settings: OTLP_SETTINGS };
        // the last push (stale flag and stale bits) on the event loop
        if (r % 2 === 1) {
          const d = await decodeOtlpOn(undefined, input);
          if (!("request" in d)) throw new Error("expected the event loop's form");
          expect(ingest(deps, "t", d.request).status).toBe(200);
        } else {
          const out = otlpMetricsTasks.decodeOtlpMetrics!(input, { cancelled: () => false }).result as { packed: PackedWrite; wal: Uint8Array };
          const known = (k: number, c: number) => first.peek("t")?.findRaw(k, c) !== undefined;
          expect((ingestPacked(deps, "t", out.packed, out.wal) ?? ingest(deps, "t", unpackWriteRequest(out.packed, known), out.wal)).status).toBe(200);
        }
      }
      const before = state(first);
      expect(before.filter((s) => s.stale).map((s) => s.labels.a)).toEqual(KEEPS_NAN_BITS ? ["2", "3"] : ["2"]);
      // kill -9: the store is not closed, the write-ahead log is replayed
      const second = await open();
      expect(state(second)).toEqual(before);
    } finally {
      rmSync(walDir, { recursive: true, force: true });
      await db.close();
    }
  });
});
