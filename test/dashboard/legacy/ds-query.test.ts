// POST /api/ds/query against the bundled stores: data frames as the real
// product sends them (reference §4, conformance 98-103), for the metrics
// store (prometheus) and the log store (loki).
import { beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../helpers/api.ts";
import { useServer } from "../../helpers/server.ts";
import { logClient, nsAgo } from "../../logstore/helpers.ts";
import { metricsClient } from "../../metrics/helpers.ts";

interface FrameJson {
  schema: { name?: string; refId: string; meta?: Record<string, unknown>; fields: Array<{ name: string; type: string; typeInfo: { frame: string }; labels?: Record<string, string>; config?: Record<string, unknown> }> };
  data: { values: unknown[][]; entities?: Array<Record<string, number[]> | null> };
}

/** every frame is columnar: one column per field, all of the same length */
function expectColumnar(frame: FrameJson) {
  expect(frame.data.values).toHaveLength(frame.schema.fields.length);
  const lengths = new Set(frame.data.values.map((c) => c.length));
  expect(lengths.size).toBeLessThanOrEqual(1);
}

describe("POST /api/ds/query", () => {
  const t = useServer();
  const now = Date.now();
  let metrics = "";
  let logs = "";
  const query = (body: unknown, auth = ADMIN) => t.api.post("/api/ds/query", { auth, body });

  beforeAll(async () => {
    const create = async (body: Record<string, unknown>) => {
      const r = await t.api.post("/api/datasources", { auth: ADMIN, body: { access: "proxy", ...body } });
      if (r.status !== 200) throw new Error(JSON.stringify(r.body));
      return r.body.datasource.uid as string;
    };
    metrics = await create({ name: "metrics", type: "prometheus", url: `${t.server.urls.metrics!}/prometheus`, jsonData: { tenantId: "team-q" } });
    logs = await create({ name: "logs", type: "loki", url: t.server.urls.logs!, jsonData: { tenantId: "team-q" } });
    const samples = (start: number) => Array.from({ length: 10 }, (_, i) => [now - 150_000 + i * 15_000, start + i] as [number, number]);
    const wrote = await metricsClient(t.server.urls.metrics!).push("team-q", [
      { labels: { __name__: "dsq_requests_total", job: "api", instance: "a" }, samples: samples(1) },
      { labels: { __name__: "dsq_requests_total", job: "api", instance: "b" }, samples: samples(100) },
    ]);
    expect(wrote.status).toBe(200);
    const pushed = await logClient(t.server.urls.logs!).push("team-q", [
      { stream: { app: "web", env: "prod" }, values: [[nsAgo(40, now), "first line"], [nsAgo(30, now), "second line"], [nsAgo(20, now), "third line"]] },
      { stream: { app: "db" }, values: [[nsAgo(25, now), "db line"]] },
    ]);
    expect(pushed.status).toBe(204);
  });

  it("a prometheus range query -> 200, one Time/Value frame per series with labels, legend and the executed query (102)", async () => {
    const r = await query({
      from: String(now - 300_000), to: String(now),
      queries: [{ refId: "A", datasource: { uid: metrics, type: "prometheus" }, expr: "dsq_requests_total", legendFormat: "{{instance}}", intervalMs: 15_000, maxDataPoints: 100 }],
    });
    expect(r.status).toBe(200);
    expect(Object.keys(r.body.results)).toEqual(["A"]);
    const a = r.body.results.A;
    expect(a.status).toBe(200);
    const frames = a.frames as FrameJson[];
    expect(frames).toHaveLength(2);
    for (const f of frames) expectColumnar(f);
    const [first, second] = frames as [FrameJson, FrameJson];
    expect(first.schema.refId).toBe("A");
    expect(first.schema.meta).toEqual({
      type: "timeseries-multi", typeVersion: [0, 1], custom: { resultType: "matrix" }, executedQueryString: "Expr: dsq_requests_total\nStep: 15s",
    });
    expect(first.schema.fields).toEqual([
      { name: "Time", type: "time", typeInfo: { frame: "time.Time" }, config: { interval: 15_000 } },
      { name: "Value", type: "number", typeInfo: { frame: "float64" }, labels: { __name__: "dsq_requests_total", job: "api", instance: "a" }, config: { displayNameFromDS: "a" } },
    ]);
    expect(second.schema.fields[1]!.labels).toEqual({ __name__: "dsq_requests_total", job: "api", instance: "b" });
    expect(second.schema.meta).not.toHaveProperty("executedQueryString");
    const [times, values] = first.data.values as [number[], number[]];
    expect(times.length).toBeGreaterThanOrEqual(9);
    expect(times.every((t) => t % 15_000 === 0)).toBe(true);
    expect(values.at(-1)).toBe(10);
    expect((second.data.values[1] as number[]).at(-1)).toBe(109);
  });

  it("instant queries, relative times (now-5m, now) and NaN/Inf written as data.entities", async () => {
    const r = await query({
      from: "now-5m", to: "now",
      queries: [
        { refId: "I", datasource: { uid: metrics }, expr: 'sum(dsq_requests_total{instance="a"})', instant: true },
        { refId: "X", datasource: { uid: metrics }, expr: 'dsq_requests_total{instance="a"} / 0', instant: true, range: false },
        { refId: "N", datasource: { uid: metrics }, expr: 'dsq_requests_total{instance="a"} * 0 / 0', instant: true },
      ],
    });
    expect(r.status).toBe(200);
    const [sum] = r.body.results.I.frames as FrameJson[];
    expect(sum!.schema.meta?.custom).toEqual({ resultType: "vector" });
    expect(sum!.data.values[1]).toEqual([10]);
    expect(sum!.schema.fields[1]!.config).toEqual({ displayNameFromDS: 'sum(dsq_requests_total{instance="a"})' });
    const [inf] = r.body.results.X.frames as FrameJson[];
    expect(inf!.data.values[1]).toEqual([null]);
    expect(inf!.data.entities).toEqual([null, { Inf: [0] }]);
    const [nan] = r.body.results.N.frames as FrameJson[];
    expect(nan!.data.entities).toEqual([null, { NaN: [0] }]);
  });

  it("a loki log query -> one log frame: labels, Time, Line, tsNs, id; maxLines and direction honoured", async () => {
    const r = await query({
      from: String(now - 600_000), to: String(now),
      queries: [
        { refId: "L", datasource: { uid: logs, type: "loki" }, expr: '{app="web"}', queryType: "range", maxLines: 2, direction: "forward" },
        { refId: "B", datasource: { uid: logs }, expr: '{app=~"web|db"}' },
      ],
    });
    expect(r.status).toBe(200);
    const [frame] = r.body.results.L.frames as FrameJson[];
    expectColumnar(frame!);
    expect(frame!.schema.meta).toEqual({ custom: { frameType: "LabeledTimeValues" }, executedQueryString: 'Expr: {app="web"}' });
    expect(frame!.schema.fields.map((f) => [f.name, f.type, f.typeInfo.frame])).toEqual([
      ["labels", "other", "json.RawMessage"], ["Time", "time", "time.Time"], ["Line", "string", "string"], ["tsNs", "string", "string"], ["id", "string", "string"],
    ]);
    const [labels, times, lines, tsNs, ids] = frame!.data.values as [unknown[], number[], string[], string[], string[]];
    expect(lines).toEqual(["first line", "second line"]);
    expect(labels).toEqual([{ app: "web", env: "prod" }, { app: "web", env: "prod" }]);
    expect(tsNs).toEqual([nsAgo(40, now), nsAgo(30, now)]);
    expect(times).toEqual(tsNs.map((ns) => Number(BigInt(ns) / 1_000_000n)));
    expect(new Set(ids).size).toBe(2);
    expect(ids[0]).toMatch(new RegExp(`^${tsNs[0]}_[0-9a-f]+_L$`));
    const both = (r.body.results.B.frames as FrameJson[])[0]!;
    // rows come stream by stream (as the real plugin's frame), each backward by default: the newest first
    const all = both.data.values[2] as string[];
    expect([...all].sort()).toEqual(["db line", "first line", "second line", "third line"]);
    expect(all.filter((l) => l !== "db line")).toEqual(["third line", "second line", "first line"]);
  });

  it("a loki metric query -> Time/Value frames named by their labels or legendFormat", async () => {
    const r = await query({
      from: String(now - 120_000), to: String(now),
      queries: [
        { refId: "M", datasource: { uid: logs }, expr: 'count_over_time({app="web"}[$__auto])', step: "10s" },
        { refId: "V", datasource: { uid: logs }, expr: "sum by (app) (count_over_time({env=\"prod\"}[5m]))", queryType: "instant", legendFormat: "app {{app}}" },
      ],
    });
    expect(r.status).toBe(200);
    const [m] = r.body.results.M.frames as FrameJson[];
    expectColumnar(m!);
    expect(m!.schema.name).toBe('{app="web", env="prod"}');
    expect(m!.schema.meta).toEqual({ type: "timeseries-multi", executedQueryString: 'Expr: count_over_time({app="web"}[10s])\nStep: 10s' });
    expect(m!.schema.fields[0]!.config).toEqual({ interval: 10_000 });
    expect((m!.data.values[1] as number[]).reduce((a, b) => a + b, 0)).toBe(3);
    const [v] = r.body.results.V.frames as FrameJson[];
    expect(v!.schema.fields[1]).toMatchObject({ labels: { app: "web" }, config: { displayNameFromDS: "app web" } });
    expect(v!.data.values[1]).toEqual([3]);
  });

  it("no queries -> 400 query.noQueries (98); no data source -> 400 query.invalidDatasourceId (99); a refId twice -> 400 query.duplicateRefId (100)", async () => {
    for (const body of [{ queries: [] }, {}]) {
      const r = await query(body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ messageId: "query.noQueries", message: "No queries found", statusCode: 400 });
    }
    const noDs = await query({ queries: [{ refId: "A" }] });
    expect(noDs.status).toBe(400);
    expect(noDs.body).toMatchObject({ messageId: "query.invalidDatasourceId", message: "Query does not contain a valid data source identifier" });
    const twice = await query({ queries: [{ refId: "A", datasource: { uid: metrics }, expr: "1" }, { refId: "A", datasource: { uid: metrics }, expr: "2" }] });
    expect(twice.status).toBe(400);
    expect(twice.body.messageId).toBe("query.duplicateRefId");
    expect(twice.body.message).toMatch(/^Multiple queries using the same RefId is not allowed/);
  });

  it("an unknown data source uid -> 404 (101); a user with role None -> 403; a viewer -> 200; a bad from -> 400 naming it", async () => {
    const unknown = await query({ queries: [{ refId: "A", datasource: { uid: "nope" }, expr: "1" }] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe("Data source not found");
    const body = { queries: [{ refId: "A", datasource: { uid: metrics }, expr: "1", instant: true }] };
    const none = await t.api.user("dsq-none", "None");
    expect((await query(body, none.auth)).status).toBe(403);
    const viewer = await t.api.user("dsq-viewer", "Viewer");
    expect((await query(body, viewer.auth)).status).toBe(200);
    const bad = await query({ ...body, from: "yesterday" });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("from");
    const byId = await t.api.get(`/api/datasources/uid/${metrics}`, { auth: ADMIN });
    const legacy = await query({ queries: [{ refId: "A", datasourceId: byId.body.id, expr: "1", instant: true }] });
    expect(legacy.status).toBe(200);
  });

  it("one bad query -> 400 with results.<ref>.error, the good one still answered (103); other types -> not supported", async () => {
    const es = await t.api.post("/api/datasources", { auth: ADMIN, body: { name: "es", type: "elasticsearch", access: "proxy", url: "http://127.0.0.1:9200" } });
    const r = await query({
      from: String(now - 300_000), to: String(now),
      queries: [
        { refId: "A", datasource: { uid: metrics }, expr: "dsq_requests_total" },
        { refId: "B", datasource: { uid: metrics }, expr: "sum(" },
        { refId: "C", datasource: { uid: logs }, expr: '{app="web"', queryType: "range" },
        { refId: "D", datasource: { uid: es.body.datasource.uid }, query: "*" },
      ],
    });
    expect(r.status).toBe(400);
    expect(r.body.results.A.status).toBe(200);
    expect(r.body.results.A.frames).toHaveLength(2);
    for (const ref of ["B", "C", "D"]) {
      expect(r.body.results[ref]).toEqual({ error: expect.any(String), errorSource: "downstream", status: 400, frames: [] });
      expect(r.body.results[ref].error.length).toBeGreaterThan(0);
    }
    expect(r.body.results.B.error).toMatch(/^bad_data: /);
    expect(r.body.results.D.error).toContain('not supported for data sources of type "elasticsearch"');
  });

  it("a data source without its tenant -> the query's error says to set one", async () => {
    const r0 = await t.api.post("/api/datasources", { auth: ADMIN, body: { name: "no-tenant", type: "prometheus", access: "proxy", url: `${t.server.urls.metrics!}/prometheus` } });
    const r = await query({ queries: [{ refId: "A", datasource: { uid: r0.body.datasource.uid }, expr: "1", instant: true }] });
    expect(r.status).toBe(400);
    expect(r.body.results.A.status).toBe(401);
    expect(r.body.results.A.error).toContain("no org id");
    expect(r.body.results.A.error).toContain("jsonData.tenantId");
  });
});
