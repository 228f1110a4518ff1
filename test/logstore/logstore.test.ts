import { describe, expect, it } from "vitest";
import { testClock, useServer } from "../helpers/server.ts";
import { logClient, nsAgo } from "./helpers.ts";

const QR = "/svc/api/v1/query_range";

describe("log store: tenancy", () => {
  const t = useServer();
  const logs = () => logClient(t.server.urls.logs!);

  it("no X-Scope-OrgID -> 401 'no org id' as plain text; /ready, /metrics and build info need none", async () => {
    for (const path of ["/svc/api/v1/labels", "/svc/api/v1/label/app/values", "/svc/api/v1/series", QR, "/svc/api/v1/query", "/svc/api/v1/index/stats"]) {
      const r = await logs().get(path, undefined);
      expect({ path, status: r.status, text: r.text }).toEqual({ path, status: 401, text: "no org id\n" });
      expect(r.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    }
    expect((await logs().push(undefined, [{ stream: { a: "b" }, values: [[nsAgo(1), "x"]] }])).status).toBe(401);
    expect((await logs().push("", [{ stream: { a: "b" }, values: [[nsAgo(1), "x"]] }])).status).toBe(401);
    expect((await logs().get("/ready", undefined)).text).toBe("ready\n");
    const metrics = await logs().get("/metrics", undefined);
    expect(metrics.status).toBe(200);
    expect(metrics.text).toContain("svc_distributor_lines_received_total");
    const config = await logs().get("/config", undefined);
    expect(config.status).toBe(200);
    expect(config.text).toMatch(/^server:/m);
    expect(config.text).toContain("auth_enabled: true");
    expect(config.text).toContain("max_entries_limit_per_query: 5000");
    const build = await logs().get("/svc/api/v1/status/buildinfo", undefined);
    expect(Object.keys(build.body).sort()).toEqual(["branch", "buildDate", "buildUser", "goVersion", "revision", "version"]);
  });

  it("tenant ids are validated with the real product's messages", async () => {
    const cases: Array<[string, string]> = [
      ["a/b", "tenant ID 'a/b' contains unsupported character '/'"],
      ["x".repeat(151), "tenant ID is too long: max 150 characters"],
      [".", "tenant ID is '.' or '..'"],
      ["..", "tenant ID is '.' or '..'"],
    ];
    for (const [tenant, message] of cases) {
      const r = await logs().push(tenant, [{ stream: { a: "b" }, values: [[nsAgo(1), "x"]] }]);
      expect({ tenant, status: r.status, text: r.text }).toEqual({ tenant, status: 400, text: `${message}\n` });
    }
    expect((await logs().push("a|b", [{ stream: { a: "b" }, values: [[nsAgo(1), "x"]] }])).text).toBe("multiple org IDs present\n");
    expect((await logs().get("/svc/api/v1/labels", "a|b")).status).toBe(400);
    expect((await logs().push("ok-_.*'()!1", [{ stream: { a: "b" }, values: [[nsAgo(1), "x"]] }])).status).toBe(204);
  });

  it("a label set of tens of kilobytes (long values under the limits) is one stream like any other", async () => {
    const value = (i: number) => Array.from({ length: 2048 }, (_, j) => String.fromCharCode(97 + ((((i + 1) * 2654435761 * (j + 1)) >>> 7) % 26))).join("");
    const wide = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`l${i}`, value(i)]));
    expect((await logs().push("wide", [{ stream: wide, values: [[nsAgo(2), "wide"]] }])).status).toBe(204);
    expect((await logs().push("wide", [{ stream: wide, values: [[nsAgo(1), "wide again"]] }])).status).toBe(204);
    expect((await logs().get("/svc/api/v1/series", "wide")).body.data).toHaveLength(1);
  });

  it("tenants never see each other's data, on every read endpoint", async () => {
    expect((await logs().push("iso-a", [{ stream: { app: "secret", job: "a" }, values: [[nsAgo(5), "only for a"]] }])).status).toBe(204);
    const b = "iso-b";
    const labels = await logs().get("/svc/api/v1/labels", b);
    expect(labels.body).toEqual({ status: "success" });
    expect((await logs().get("/svc/api/v1/label/app/values", b)).body).toEqual({ status: "success" });
    expect((await logs().get("/svc/api/v1/series", b, { "match[]": '{app="secret"}' })).body).toEqual({ status: "success", data: [] });
    expect((await logs().get(QR, b, { query: '{app="secret"}' })).body.data.result).toEqual([]);
    expect((await logs().get("/svc/api/v1/query", b, { query: 'count_over_time({app="secret"}[5m])' })).body.data.result).toEqual([]);
    expect((await logs().get("/svc/api/v1/index/stats", b, { query: '{app="secret"}' })).body).toEqual({ streams: 0, chunks: 0, entries: 0, bytes: 0 });
    // and the owner does see it
    expect((await logs().get("/svc/api/v1/label/app/values", "iso-a")).body.data).toEqual(["secret"]);
    expect((await logs().get(QR, "iso-a", { query: '{app="secret"}' })).body.data.result[0].values[0][1]).toBe("only for a");
  });
});

describe("log store: multi-tenant queries and auth disabled", () => {
  const multi = useServer({ "logs.multi_tenant_queries_enabled": true });
  const off = useServer({ "logs.auth_enabled": false });

  it("A|B reads both tenants and adds __tenant_id__", async () => {
    const logs = logClient(multi.server.urls.logs!);
    await logs.push("ta", [{ stream: { app: "x" }, values: [[nsAgo(3), "from a"]] }]);
    await logs.push("tb", [{ stream: { app: "x" }, values: [[nsAgo(2), "from b"]] }]);
    const r = await logs.get(QR, "tb|ta", { query: '{app="x"}', direction: "forward" });
    expect(r.status).toBe(200);
    expect(r.body.data.result.map((s: { stream: Record<string, string> }) => s.stream).sort((a: { __tenant_id__: string }, b: { __tenant_id__: string }) => a.__tenant_id__.localeCompare(b.__tenant_id__)))
      .toEqual([{ app: "x", __tenant_id__: "ta" }, { app: "x", __tenant_id__: "tb" }]);
    const only = await logs.get(QR, "ta|tb", { query: '{app="x", __tenant_id__="tb"}' });
    expect(only.body.data.result).toHaveLength(1);
    expect((await logs.push("ta|tb", [{ stream: { a: "b" }, values: [[nsAgo(1), "x"]] }])).status).toBe(400);
  });

  it("with auth disabled everything is the tenant fake, whatever header is sent", async () => {
    const logs = logClient(off.server.urls.logs!);
    expect((await logs.push(undefined, [{ stream: { app: "nohdr" }, values: [[nsAgo(1), "x"]] }])).status).toBe(204);
    expect((await logs.get("/svc/api/v1/label/app/values", "someone")).body.data).toEqual(["nohdr"]);
  });
});

describe("log store: ingest", () => {
  const t = useServer({ "logs.limits.max_line_size": "100B", "logs.limits.max_label_names_per_series": 3 });
  const logs = () => logClient(t.server.urls.logs!);

  it("JSON, gzip JSON and protobuf + snappy pushes read back identically", async () => {
    const values: Array<[string, string, Record<string, string>?]> = [[nsAgo(30), "first line"], [nsAgo(20), "second ünïcode line"], [nsAgo(10), "third", { trace_id: "abc" }]];
    const read: unknown[] = [];
    for (const format of ["json", "gzip", "protobuf"] as const) {
      const tenant = `fmt-${format}`;
      const r = await logs().push(tenant, [{ stream: { app: "fmt", env: "test" }, values: values as never }], format);
      expect({ format, status: r.status, text: r.text }).toEqual({ format, status: 204, text: "" });
      const q = await logs().get(QR, tenant, { query: '{app="fmt"}', direction: "forward" });
      read.push(q.body.data.result);
    }
    // an entry's structured metadata is part of its result stream's labels (Loki's plain answer)
    expect(read[0]).toEqual([
      { stream: { app: "fmt", env: "test" }, values: values.slice(0, 2).map(([ts, line]) => [ts, line]) },
      { stream: { app: "fmt", env: "test", trace_id: "abc" }, values: [[values[2]![0], "third"]] },
    ]);
    expect(read[1]).toEqual(read[0]);
    expect(read[2]).toEqual(read[0]);
  });

  it("bad bodies -> 400 naming the problem; no streams -> 422; unknown encoding -> 400", async () => {
    // bytes, so fetch adds no Content-Type of its own
    const post = (body: string, headers: Record<string, string>) =>
      fetch(`${t.server.urls.logs}/svc/api/v1/push`, { method: "POST", headers: { "X-Scope-OrgID": "bad", ...headers }, body: new TextEncoder().encode(body) });
    const json = { "Content-Type": "application/json" };
    expect((await post("{nope", json)).status).toBe(400);
    const numeric = await post(JSON.stringify({ streams: [{ stream: { a: "b" }, values: [[1, "x"]] }] }), json);
    expect(numeric.status).toBe(400);
    expect(await numeric.text()).toContain("Value is string");
    expect((await post(JSON.stringify({ streams: [{ stream: { a: "b" }, values: [["abc", "x"]] }] }), json)).status).toBe(400);
    const none = await post(JSON.stringify({ streams: [] }), json);
    expect(none.status).toBe(422);
    expect(await none.text()).toBe("error at least one valid stream is required for ingestion\n");
    const enc = await post("{}", { ...json, "Content-Encoding": "br" });
    expect(await enc.text()).toBe('Content-Encoding "br" not supported\n');
    expect(await (await post("{}", {})).text()).toBe("mime: no media type\n");
    expect((await post("not snappy", { "Content-Type": "application/x-protobuf" })).status).toBe(400);
  });

  it("validation: labels, label count, line size, old and future timestamps; valid entries of a partial push are kept", async () => {
    const push = (stream: Record<string, string>, values: Array<[string, string]>) => logs().push("val", [{ stream, values }]);
    const empty = await push({}, [[nsAgo(1), "x"]]);
    expect(empty).toMatchObject({ status: 400, text: "error at least one label pair is required per stream\n" });
    const badName = await push({ "1bad": "x" }, [[nsAgo(1), "x"]]);
    expect(badName.text).toContain("Error parsing labels '{1bad=\"x\"}' with error");
    const many = await push({ a: "1", b: "2", c: "3", d: "4" }, [[nsAgo(1), "x"]]);
    expect(many.text).toBe(`entry for stream '{a="1", b="2", c="3", d="4"}' has 4 label names; limit 3\n`);
    const long = await push({ app: "long" }, [[nsAgo(1), "y".repeat(101)]]);
    expect(long.text).toBe(`Max entry size '100' bytes exceeded for stream '{app="long"}' while adding an entry with length '101' bytes\n`);
    const old = await push({ app: "old" }, [[nsAgo(8 * 86400), "ancient"]]);
    expect(old.status).toBe(400);
    expect(old.text).toMatch(/^entry for stream '\{app="old"\}' has timestamp too old: \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ, oldest acceptable timestamp is: /);
    const future = await push({ app: "future" }, [[nsAgo(-3600), "later"]]);
    expect(future.text).toMatch(/has timestamp too new: /);
    const partial = await push({ app: "partial" }, [[nsAgo(2), "kept"], [nsAgo(1), "z".repeat(200)], [nsAgo(1), "z".repeat(300)]]);
    expect(partial.status).toBe(400);
    expect(partial.text).toMatch(/^2 errors like: Max entry size|^1 errors like: Max entry size/);
    const kept = await logs().get(QR, "val", { query: '{app="partial"}' });
    expect(kept.body.data.result[0].values.map((v: string[]) => v[1])).toEqual(["kept"]);
  });
});

describe("log store: rate limit and stream limit", () => {
  // The bucket refills 1048 bytes a second: on the real clock a loaded machine that takes 0.9 s between
  // the two pushes refilled it (the second push got 204). A clock that does not move refills nothing.
  // It stands 30 min ahead, so the entries (stamped from the real time) are in the past for the store.
  const t = useServer({ "logs.limits.ingestion_rate_mb": 0.001, "logs.limits.ingestion_burst_size_mb": 0.002, "logs.limits.max_streams_per_user": 2 }, testClock(Date.now() + 30 * 60_000));
  const logs = () => logClient(t.server.urls.logs!);

  it("a push over the burst -> 429 with the real product's message; nothing stored", async () => {
    const big = "x".repeat(1500);
    expect((await logs().push("rate", [{ stream: { app: "r" }, values: [[nsAgo(3), big]] }])).status).toBe(204);
    const r = await logs().push("rate", [{ stream: { app: "r" }, values: [[nsAgo(2), big]] }]);
    expect(r.status).toBe(429);
    expect(r.text).toBe(`Ingestion rate limit exceeded for user rate (limit: 1048 bytes/sec) while attempting to ingest '1' lines totaling '1500' bytes, reduce log volume or contact your svc administrator to see if the limit can be increased\n`);
    expect((await logs().get(QR, "rate", { query: '{app="r"}' })).body.data.result[0].values).toHaveLength(1);
    const metrics = await logs().get("/metrics", undefined);
    expect(metrics.text).toMatch(/svc_discarded_samples_total\{reason="rate_limited",tenant="rate"\} 1/);
  });

  it("a third stream over max_streams_per_user -> 429", async () => {
    expect((await logs().push("streams", [{ stream: { s: "1" }, values: [[nsAgo(1), "a"]] }])).status).toBe(204);
    expect((await logs().push("streams", [{ stream: { s: "2" }, values: [[nsAgo(1), "b"]] }])).status).toBe(204);
    const r = await logs().push("streams", [{ stream: { s: "3" }, values: [[nsAgo(1), "c"]] }]);
    expect(r.status).toBe(429);
    expect(r.text).toContain("Maximum active stream limit exceeded when trying to create stream {s=\"3\"}");
    expect((await logs().push("streams", [{ stream: { s: "1" }, values: [[nsAgo(0.5), "d"]] }])).status).toBe(204);
  });

  it("new streams of one push count against the limit together (three new streams under a limit of two: the third refused)", async () => {
    const r = await logs().push("together", [1, 2, 3].map((n) => ({ stream: { s: String(n) }, values: [[nsAgo(1), "x"]] as [string, string][] })));
    expect(r.status).toBe(429);
    expect(r.text).toContain("Maximum active stream limit exceeded when trying to create stream {s=\"3\"}");
    const stored = await logs().get("/svc/api/v1/series", "together", { match: '{s=~".+"}' });
    expect(stored.body.data).toHaveLength(2);
  });
});
