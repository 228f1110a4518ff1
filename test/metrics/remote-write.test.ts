// Remote write through HTTP, as Prometheus sends it: the success answer, the
// distributor's validation messages, the ingester's ordering rules, partial
// ingest, every limit with its exact status and message, and the discarded
// samples counters (reference §7, conformance E; spec "Metrics store limit errors").
import { randomBytes } from "node:crypto";
import protobuf from "protobufjs/light.js";
import snappy from "snappyjs";
import { afterAll, describe, expect, it } from "vitest";
import { decodeWriteOn, OFF_THREAD_BYTES } from "../../src/apps/metrics/core/push-decode.ts";
import { encodeWriteRequestBytes } from "../../src/apps/metrics/core/remote-write.ts";
import { retryAfterSeconds } from "../../src/apps/metrics/routes/push-shared.ts";
import { ApiError } from "../../src/lib/errors.ts";
import type { TaskRunner } from "../../src/lib/tasks.ts";
import { WorkerDiedError } from "../../src/lib/worker-pool.ts";
import { POLL_DEADLINE_MS } from "../helpers/eventually.ts";
import { useServer } from "../helpers/server.ts";
import { metricsClient, overridesFile, writeBody } from "./helpers.ts";

const runtime = overridesFile({
  "two-series": { max_global_series_per_user: 2 },
  "two-per-metric": { max_global_series_per_metric: 2 },
  slow: { ingestion_rate: 1, ingestion_burst_size: 1 },
});

describe("remote write", () => {
  const ctx = useServer({ "metrics.runtime_config_file": runtime.path });
  afterAll(runtime.remove);
  const m = () => metricsClient(ctx.server.urls.metrics!);
  const now = () => Date.now();

  it("needs the tenant header: 401 no org id (plain text)", async () => {
    const r = await m().push(undefined, [{ labels: { __name__: "up", job: "a" }, samples: [[now(), 1]] }]);
    expect(r.status).toBe(401);
    expect(r.text).toBe("no org id\n");
    expect(r.headers.get("content-type")).toContain("text/plain");
  });

  it("a valid push is 200 with an empty body, and the sample is queryable", async () => {
    const t = now();
    const r = await m().push("t1", [{ labels: { __name__: "up", job: "a" }, samples: [[t, 1]] }]);
    expect(r.status).toBe(200);
    expect(r.text).toBe("");
    const q = await m().query("t1", "up", t);
    expect(q.body).toEqual({ status: "success", data: { resultType: "vector", result: [{ metric: { __name__: "up", job: "a" }, value: [t / 1000, "1"] }] } });
  });

  it("an uncompressed or garbage body is 400", async () => {
    for (const body of [new Uint8Array([1, 2, 3, 4, 5]), new TextEncoder().encode("hello world")]) {
      const r = await m().raw("/api/v1/push", { method: "POST", tenant: "t1", body, headers: { "Content-Type": "application/x-protobuf" } });
      expect(r.status).toBe(400);
    }
  });

  it("refuses invalid series with Mimir's messages, and counts them by reason", async () => {
    const t = now();
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ job: "x" }, "received series has no metric name (err-mimir-missing-metric-name)", "missing_metric_name"],
      [{ __name__: "1abc" }, "received a series with invalid metric name: '1abc' (err-mimir-metric-name-invalid)", "metric_name_invalid"],
      [{ __name__: "ok", "foo-bar": "1" }, "received a series with an invalid label: 'foo-bar' series: '{__name__=\"ok\", foo-bar=\"1\"}' (err-mimir-label-invalid)", "label_invalid"],
      [{ __name__: "ok", v: "x".repeat(2049) }, "(err-mimir-label-value-too-long)", "label_value_too_long"],
      [{ __name__: "ok", ["n".repeat(1025)]: "x" }, "(err-mimir-label-name-too-long)", "label_name_too_long"],
    ];
    for (const [labels, message] of cases) {
      const r = await m().push("val", [{ labels, samples: [[t, 1]] }]);
      expect(r.status).toBe(400);
      expect(r.text).toContain(message);
    }
    const many: Record<string, string> = { __name__: "wide" };
    for (let i = 0; i < 30; i++) many[`l${String(i).padStart(2, "0")}`] = "v";
    const wide = await m().push("val", [{ labels: many, samples: [[t, 1]] }]);
    expect(wide.status).toBe(400);
    expect(wide.text).toContain("(actual: 31, limit: 30)");
    expect(wide.text).toContain("(err-mimir-max-label-names-per-series). To adjust the related per-tenant limit, configure -validation.max-label-names-per-series, or contact your service administrator.");

    const future = await m().push("val", [{ labels: { __name__: "f" }, samples: [[t + 3_600_000, 1]] }]);
    expect(future.status).toBe(400);
    expect(future.text).toContain("received a sample whose timestamp is too far in the future");
    expect(future.text).toContain("(err-mimir-too-far-in-future)");

    const metrics = await m().raw("/metrics");
    for (const reason of ["missing_metric_name", "metric_name_invalid", "label_invalid", "label_value_too_long", "label_name_too_long", "max_label_names_per_series", "too_far_in_future"]) {
      expect(metrics.text).toContain(`cortex_discarded_samples_total{reason="${reason}",user="val"} 1`);
    }
  });

  it("duplicate label names are refused (the protobuf can carry them)", async () => {
    const r = await m().push("val2", [{ labels: { __name__: "d" }, samples: [[now(), 1]] }]);
    expect(r.status).toBe(200);
    // two labels with one name cannot be written as an object: build the request by hand
    const { encodeWriteRequest } = await import("../../src/apps/metrics/core/remote-write.ts");
    const body = encodeWriteRequest({ timeseries: [{ labels: [{ name: "__name__", value: "d" }, { name: "a", value: "1" }, { name: "a", value: "2" }], samples: [{ value: 1, timestampMs: now() }] }] });
    const dup = await m().raw("/api/v1/push", { method: "POST", tenant: "val2", body, headers: { "Content-Type": "application/x-protobuf" } });
    expect(dup.status).toBe(400);
    expect(dup.text).toContain("received a series with duplicate label name, label: 'a'");
    expect(dup.text).toContain("(err-mimir-duplicate-label-names)");
  });

  it("one valid and one invalid series: 400, and the valid one is stored", async () => {
    const t = now();
    const r = await m().push("partial", [
      { labels: { __name__: "good", job: "p" }, samples: [[t, 7]] },
      { labels: { __name__: "bad", "bad-label": "x" }, samples: [[t, 1]] },
    ]);
    expect(r.status).toBe(400);
    expect(r.text).toContain("(err-mimir-label-invalid)");
    const q = await m().query("partial", "good", t);
    expect(q.body.data.result).toEqual([{ metric: { __name__: "good", job: "p" }, value: [t / 1000, "7"] }]);
  });

  it("out of order, duplicate timestamps and too-old samples, as the ingester refuses them", async () => {
    const t = now();
    expect((await m().push("order", [{ labels: { __name__: "x" }, samples: [[t, 1]] }])).status).toBe(200);
    const ooo = await m().push("order", [{ labels: { __name__: "x" }, samples: [[t - 10_000, 1]] }]);
    expect(ooo.status).toBe(400);
    expect(ooo.text).toContain("the sample has been rejected because another sample with a more recent timestamp has already been ingested and out-of-order samples are not allowed (err-mimir-sample-out-of-order)");
    expect(ooo.text).toContain("is from series {__name__=\"x\"}");
    const dup = await m().push("order", [{ labels: { __name__: "x" }, samples: [[t, 2]] }]);
    expect(dup.status).toBe(400);
    expect(dup.text).toContain("(err-mimir-sample-duplicate-timestamp)");
    expect((await m().push("order", [{ labels: { __name__: "x" }, samples: [[t, 1]] }])).status).toBe(200);
    const old = await m().push("order", [{ labels: { __name__: "y" }, samples: [[t - 3 * 3_600_000, 1]] }]);
    expect(old.status).toBe(400);
    expect(old.text).toContain("the sample has been rejected because its timestamp is too old (err-mimir-sample-timestamp-too-old)");
    const metrics = await m().raw("/metrics");
    expect(metrics.text).toContain('cortex_discarded_samples_total{reason="sample-out-of-order",user="order"} 1');
    expect(metrics.text).toContain('cortex_discarded_samples_total{reason="new-value-for-timestamp",user="order"} 1');
    expect(metrics.text).toContain('cortex_discarded_samples_total{reason="sample-too-old",user="order"} 1');
  });

  it("per-user series limit: 400 with the spec's message; existing series still take samples; the rest of the push is stored", async () => {
    const t = now();
    expect((await m().push("two-series", [{ labels: { __name__: "a" }, samples: [[t, 1]] }, { labels: { __name__: "b" }, samples: [[t, 1]] }])).status).toBe(200);
    const third = await m().push("two-series", [
      { labels: { __name__: "a" }, samples: [[t + 1000, 2]] },
      { labels: { __name__: "c" }, samples: [[t, 1], [t + 1000, 1]] },
    ]);
    expect(third.status).toBe(400);
    expect(third.text).toBe("per-user series limit of 2 exceeded, please contact administrator to raise it (per-ingester local limit: 2)\n");
    expect((await m().query("two-series", "a", t + 1000)).body.data.result[0].value[1]).toBe("2");
    expect((await m().query("two-series", "c", t + 1000)).body.data.result).toEqual([]);
    expect((await m().push("two-series", [{ labels: { __name__: "b" }, samples: [[t + 2000, 3]] }])).status).toBe(200);
    const metrics = await m().raw("/metrics");
    expect(metrics.text).toContain('cortex_discarded_samples_total{reason="per_user_series_limit",user="two-series"} 2');
    expect(metrics.text).toContain('cortex_ingester_active_series{user="two-series"} 2');
  });

  it("per-metric series limit: 400 with the spec's message", async () => {
    const t = now();
    const r = await m().push("two-per-metric", [1, 2, 3].map((i) => ({ labels: { __name__: "m", i: String(i) }, samples: [[t, i]] as Array<[number, number]> })));
    expect(r.status).toBe(400);
    expect(r.text).toBe("per-metric series limit of 2 exceeded, please contact administrator to raise it (per-ingester local limit: 2)\n");
    expect((await m().push("two-per-metric", [{ labels: { __name__: "other" }, samples: [[t, 1]] }])).status).toBe(200);
    expect((await m().raw("/metrics")).text).toContain('cortex_discarded_samples_total{reason="per_metric_series_limit",user="two-per-metric"} 1');
  });

  it("ingestion rate and burst: 429 with the spec's message and a Retry-After; nothing of the request is stored", async () => {
    const t = now();
    const r = await m().push("slow", [{ labels: { __name__: "s" }, samples: [[t - 1000, 1], [t, 2]] }]);
    expect(r.status).toBe(429);
    expect(r.text).toBe("ingestion rate limit (1) exceeded while adding 2 samples and 0 metadata\n");
    const retry = Number(r.headers.get("retry-after"));
    expect(Number.isInteger(retry) && retry >= 3 && retry <= 96).toBe(true);
    expect((await m().query("slow", "s", t)).body.data.result).toEqual([]);
    expect((await m().raw("/metrics")).text).toContain('cortex_discarded_samples_total{reason="rate_limited",user="slow"} 2');
    // one sample fits the burst of one
    expect((await m().push("slow", [{ labels: { __name__: "s" }, samples: [[t, 2]] }])).status).toBe(200);
  });

  it("Retry-After grows with Retry-Attempt and stays within 3..96 s", () => {
    expect(retryAfterSeconds(undefined, () => 0)).toBe(3);
    expect(retryAfterSeconds("1", () => 0.999)).toBe(9);
    expect(retryAfterSeconds("3", () => 0.5)).toBe(24);
    expect(retryAfterSeconds("99", () => 0.999)).toBe(96);
  });

  it("a stale marker ends a series at once, on every runtime", async () => {
    const { encodeWriteRequest } = await import("../../src/apps/metrics/core/remote-write.ts");
    const t = now() - 60_000;
    const labels = [{ name: "__name__", value: "gone" }, { name: "job", value: "s" }];
    const body = encodeWriteRequest({ timeseries: [{ labels, samples: [{ value: 1, timestampMs: t }, { value: Number.NaN, timestampMs: t + 15_000, stale: true }] }] });
    const r = await m().raw("/api/v1/push", { method: "POST", tenant: "stale", body, headers: { "Content-Type": "application/x-protobuf" } });
    expect(r.status).toBe(200);
    // without the marker the sample at t would be returned for 5 minutes
    expect((await m().query("stale", "gone", t + 10_000)).body.data.result).toHaveLength(1);
    expect((await m().query("stale", "gone", t + 30_000)).body.data.result).toEqual([]);
    expect((await m().query("stale", "count_over_time(gone[1m])", t + 30_000)).body.data.result[0].value[1]).toBe("1");
    // a repeated marker is a duplicate, a plain NaN at the same time a new value
    const again = encodeWriteRequest({ timeseries: [{ labels, samples: [{ value: Number.NaN, timestampMs: t + 15_000, stale: true }] }] });
    expect((await m().raw("/api/v1/push", { method: "POST", tenant: "stale", body: again })).status).toBe(200);
    const plain = encodeWriteRequest({ timeseries: [{ labels, samples: [{ value: 0, timestampMs: t + 15_000 }] }] });
    expect((await m().raw("/api/v1/push", { method: "POST", tenant: "stale", body: plain })).text).toContain("(err-mimir-sample-duplicate-timestamp)");
  });

  it("tenants are isolated", async () => {
    const t = now();
    expect((await m().push("iso-a", [{ labels: { __name__: "secret_metric", who: "a" }, samples: [[t, 1]] }])).status).toBe(200);
    expect((await m().query("iso-b", "secret_metric", t)).body.data.result).toEqual([]);
    expect((await m().get("/prometheus/api/v1/label/__name__/values", "iso-b")).body).toEqual({ status: "success", data: [] });
    expect((await m().get("/prometheus/api/v1/labels", "iso-b")).body).toEqual({ status: "success", data: [] });
    expect((await m().get("/prometheus/api/v1/label/__name__/values", "iso-a")).body.data).toEqual(["secret_metric"]);
  });

  it("metadata as Mimir's distributor validates it: no name, or a name or unit over 1,024 characters, is dropped with its message (400, the series stored); a long help is cut", async () => {
    const t = now();
    // a WriteRequest's metadata (field 3: type 1, metric_family_name 2, help 4, unit 5) after its series
    const body = (metadata: Array<{ name: string; help?: string; unit?: string }>) => {
      const w = protobuf.Writer.create();
      for (const m of metadata) w.uint32(26).fork().uint32(8).int32(1).uint32(18).string(m.name).uint32(34).string(m.help ?? "").uint32(42).string(m.unit ?? "").ldelim();
      const series = encodeWriteRequestBytes({ timeseries: [{ labels: [{ name: "__name__", value: "meta_series" }], samples: [{ timestampMs: t, value: 1 }] }] });
      return snappy.compress(new Uint8Array([...series, ...w.finish()])) as Uint8Array<ArrayBuffer>;
    };
    const push = (metadata: Parameters<typeof body>[0]) =>
      m().raw("/api/v1/push", { method: "POST", tenant: "rw-meta", body: body(metadata), headers: { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" } });
    const hint = "To adjust the related per-tenant limit, configure -validation.max-metadata-length, or contact your service administrator.";
    const cases: Array<[Parameters<typeof body>[0], string]> = [
      [[{ name: "" }], "received a metric metadata with no metric name (err-mimir-metadata-missing-metric-name)"],
      [[{ name: "n".repeat(1025) }], `received a metric metadata whose metric name length exceeds the limit, metric name: '${"n".repeat(200)}' (err-mimir-metric-name-too-long). ${hint}`],
      [[{ name: "unit_long", unit: "u".repeat(1025) }], `received a metric metadata whose unit name length exceeds the limit, unit: '${"u".repeat(200)}' metric name: 'unit_long' (err-mimir-unit-too-long). ${hint}`],
    ];
    for (const [metadata, message] of cases) {
      const r = await push([...metadata, { name: "meta_ok", help: "fine" }]);
      expect(r.status).toBe(400);
      expect(r.text).toBe(`${message}\n`);
    }
    const cut = await push([{ name: "meta_help", help: "h".repeat(5000), unit: "u".repeat(1024) }]);
    expect(cut.status).toBe(200);
    const meta = (await m().get("/prometheus/api/v1/metadata", "rw-meta")).body.data as Record<string, Array<{ help: string; unit: string }>>;
    expect(Object.keys(meta).sort()).toEqual(["meta_help", "meta_ok"]);
    expect(meta.meta_help![0]).toEqual({ type: "counter", help: "h".repeat(1024), unit: "u".repeat(1024) });
    expect((await m().query("rw-meta", "meta_series", t)).body.data.result[0].value[1]).toBe("1");
    const text = (await m().get("/metrics", undefined)).text;
    for (const reason of ["missing_metric_name", "metric_name_too_long", "unit_too_long"]) {
      expect(text).toContain(`cortex_discarded_metadata_total{reason="${reason}",user="rw-meta"} 1`);
    }
  });

  it("writeBody round-trips through the decoder", () => {
    expect(writeBody([{ labels: { __name__: "a" }, samples: [[1, 2]] }]).length).toBeGreaterThan(0);
  });
});

describe("remote write: a decoding worker that died on a body", () => {
  const runner = (fail: () => Error): TaskRunner => ({ inline: false, size: 1, run: () => Promise.reject(fail()), close: async () => {} });
  // a label value snappy cannot shrink, so the body is large enough for the worker
  const pad = randomBytes(OFF_THREAD_BYTES).toString("base64");
  const body = writeBody([{ labels: { __name__: "big", pad }, samples: [[Date.now(), 1]] }]);
  const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: unknown) => e);

  it("is a 503 (413 when it ran out of memory), the body not decoded again on the event loop", async () => {
    expect(body.length).toBeGreaterThanOrEqual(OFF_THREAD_BYTES);
    const died = await failure(decodeWriteOn(runner(() => new WorkerDiedError("worker exited with code 134 while running decodeWrite")), body, 1 << 26));
    expect(died).toBeInstanceOf(ApiError);
    expect((died as ApiError).status).toBe(503);
    expect((died as ApiError).message).toBe("the decoder ended while decoding this request; it was not stored");
    const oom = Object.assign(new Error("Worker terminated due to reaching memory limit: JS heap out of memory"), { code: "ERR_WORKER_OUT_OF_MEMORY" });
    expect(((await failure(decodeWriteOn(runner(() => new WorkerDiedError("worker failed while running decodeWrite", { cause: oom })), body, 1 << 26))) as ApiError).status).toBe(413);
  });

  it("a pool that could not take the task (closing): decoded here instead", async () => {
    const decoded = await decodeWriteOn(runner(() => new Error("the worker pool is closed")), body, 1 << 26);
    expect("request" in decoded && decoded.request.timeseries.length).toBe(1);
  });
});

describe("remote write: in-flight limit", () => {
  const ctx = useServer({ "metrics.ingester.instance_limits.max_inflight_push_requests": 1 });
  it("a push beyond max_inflight_push_requests is refused with 503 and the spec's message", async () => {
    const base = ctx.server.urls.metrics!;
    // the first push's body never finishes arriving: it stays in flight
    let hold!: ReadableStreamDefaultController<Uint8Array>;
    const stream = new ReadableStream<Uint8Array>({ start: (c) => { hold = c; } });
    const first = fetch(`${base}/api/v1/push`, {
      method: "POST",
      headers: { "X-Scope-OrgID": "busy", "Content-Type": "application/x-protobuf" },
      body: stream,
      duplex: "half",
    } as RequestInit);
    const body = writeBody([{ labels: { __name__: "x" }, samples: [[Date.now(), 1]] }]);
    hold.enqueue(body.subarray(0, 1));
    let second = await metricsClient(base).push("busy", [{ labels: { __name__: "y" }, samples: [[Date.now(), 1]] }]);
    for (let i = 0, deadline = Date.now() + POLL_DEADLINE_MS; second.status === 200 && Date.now() < deadline; i++) {
      await new Promise((r) => setTimeout(r, 20));
      second = await metricsClient(base).push("busy", [{ labels: { __name__: "y" }, samples: [[Date.now() + i + 1, 1]] }]);
    }
    expect(second.status).toBe(503);
    expect(second.text).toBe("cannot push: too many inflight push requests in ingester\n");
    expect(second.headers.get("retry-after")).toMatch(/^\d+$/);
    hold.enqueue(body.subarray(1));
    hold.close();
    expect((await first).status).toBe(200);
    expect((await metricsClient(base).push("busy", [{ labels: { __name__: "z" }, samples: [[Date.now(), 1]] }])).status).toBe(200);
  });
});
