// Issue 21: structured metadata in queries, as Loki 3.x answers. A push's
// metadata (JSON values' third element, protobuf structuredMetadata) was
// stored but never returned nor usable in LogQL. Now: plain answers group
// entries by stream labels + metadata (+ parsed labels); with
// `X-Loki-Response-Encoding-Flags: categorize-labels` streams keep their
// own labels and each value carries {structuredMetadata, parsed}; metadata
// keys work in label filters (the byte prefilters must not rule such
// entries out), templates, keep/drop and by/without; a key the stream has
// is `<key>_extracted`; it all holds from the heads and from stored chunks.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startTestServer, testClock, useServer } from "../helpers/server.ts";
import { logClient, type StreamIn } from "./helpers.ts";

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);
const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);
const CATEGORIZE = { "X-Loki-Response-Encoding-Flags": "categorize-labels" };

type Value = [string, string] | [string, string, Record<string, Record<string, string>>];
interface Result {
  stream: Record<string, string>;
  values: Value[];
}

/** the lines at T0-50s .. T0-10s: metadata (JSON and protobuf), none, a key the stream has, JSON lines for parsers */
function seed(t0: number): { json: StreamIn[]; protobuf: StreamIn[] } {
  return {
    json: [
      {
        stream: { app: "a", level: "info" },
        values: [
          [ns(t0 - 50_000), "no metadata"],
          [ns(t0 - 40_000), "first trace", { traceID: "abc" }],
          [ns(t0 - 30_000), '{"msg":"second","traceID":"parsed"}', { traceID: "def", "user.id": "u1" }],
          [ns(t0 - 20_000), "level clash", { level: "debug", traceID: "abc" }],
        ],
      },
    ],
    protobuf: [{ stream: { app: "b" }, values: [[ns(t0 - 10_000), "from protobuf", { traceID: "abc", span: "s1" }]] }],
  };
}

/** the queries and their answers, asked the same way before and after a restart */
function queries(base: () => string, tenant: string, t0: number) {
  const logs = () => logClient(base());
  const range = async (query: string, headers: Record<string, string> = {}) => {
    const params = new URLSearchParams({ query, start: ns(t0 - 120_000), end: ns(t0), direction: "forward" });
    const r = await fetch(`${base()}/loki/api/v1/query_range?${params}`, { headers: { "X-Scope-OrgID": tenant, ...headers } });
    expect(r.status).toBe(200);
    return ((await r.json()) as { data: { resultType: string; encodingFlags?: string[]; result: Result[] } }).data;
  };
  const lines = async (query: string) => (await range(query)).result.flatMap((s) => s.values.map((v) => v[1])).sort();
  return {
    async plain() {
      const data = await range('{app="a"}');
      expect(data.encodingFlags).toBeUndefined();
      // metadata joins the stream's labels; a key the stream has is <key>_extracted; names normalised (user.id -> user_id)
      expect(data.result).toEqual([
        { stream: { app: "a", level: "info" }, values: [[ns(t0 - 50_000), "no metadata"]] },
        { stream: { app: "a", level: "info", traceID: "abc" }, values: [[ns(t0 - 40_000), "first trace"]] },
        { stream: { app: "a", level: "info", traceID: "def", user_id: "u1" }, values: [[ns(t0 - 30_000), '{"msg":"second","traceID":"parsed"}']] },
        { stream: { app: "a", level: "info", level_extracted: "debug", traceID: "abc" }, values: [[ns(t0 - 20_000), "level clash"]] },
      ]);
      // the protobuf push's metadata the same way
      expect((await range('{app="b"}')).result).toEqual([{ stream: { app: "b", span: "s1", traceID: "abc" }, values: [[ns(t0 - 10_000), "from protobuf"]] }]);
    },
    async categorized() {
      const data = await range('{app="a"}', CATEGORIZE);
      expect(data.encodingFlags).toEqual(["categorize-labels"]);
      // one stream (the stream's labels only); every value has its third element, {} when it has nothing
      expect(data.result).toEqual([
        {
          stream: { app: "a", level: "info" },
          values: [
            [ns(t0 - 50_000), "no metadata", {}],
            [ns(t0 - 40_000), "first trace", { structuredMetadata: { traceID: "abc" } }],
            [ns(t0 - 30_000), '{"msg":"second","traceID":"parsed"}', { structuredMetadata: { traceID: "def", user_id: "u1" } }],
            [ns(t0 - 20_000), "level clash", { structuredMetadata: { level_extracted: "debug", traceID: "abc" } }],
          ],
        },
      ]);
      // a parser's label of a metadata key's name wins (Loki: parsed > structured metadata), and is parsed
      const parsed = await range('{app="a"} |= "second" | json', CATEGORIZE);
      expect(parsed.result).toEqual([
        { stream: { app: "a", level: "info" }, values: [[ns(t0 - 30_000), '{"msg":"second","traceID":"parsed"}', { structuredMetadata: { user_id: "u1" }, parsed: { msg: "second", traceID: "parsed" } }]] },
      ]);
      expect((await range('{app="a"} |= "second" | json')).result.map((s) => s.stream)).toEqual([{ app: "a", level: "info", msg: "second", traceID: "parsed", user_id: "u1" }]);
    },
    async filters() {
      expect(await lines('{app=~"a|b"} | traceID="abc"')).toEqual(["first trace", "from protobuf", "level clash"]);
      expect(await lines('{app="a"} | traceID!="abc"')).toEqual(["no metadata", '{"msg":"second","traceID":"parsed"}']);
      expect(await lines('{app="a"} | traceID=~"d.*"')).toEqual(['{"msg":"second","traceID":"parsed"}']);
      expect(await lines('{app="a"} | traceID!~"a.*|d.*"')).toEqual(["no metadata"]);
      expect(await lines('{app="a"} | user_id="u1" and traceID="def"')).toEqual(['{"msg":"second","traceID":"parsed"}']);
      // after a parser: the line need not hold the value (the byte prefilter must let such entries through)
      expect(await lines('{app="a"} | json | traceID="abc"')).toEqual(["first trace", "level clash"]);
      expect(await lines('{app="a"} | logfmt | user_id="u1"')).toEqual(['{"msg":"second","traceID":"parsed"}']);
      // a key the stream has: the stream's label is unchanged, the metadata's is level_extracted
      expect(await lines('{app="a"} | level="debug"')).toEqual([]);
      expect(await lines('{app="a"} | level_extracted="debug"')).toEqual(["level clash"]);
      expect(await lines('{app="a"} | json | level_extracted="debug"')).toEqual(["level clash"]);
      // templates, keep and drop
      expect(await lines('{app="a"} | traceID!="" | line_format "{{.traceID}} {{.level_extracted}}"')).toEqual(["abc ", "abc debug", "def "]);
      expect((await range('{app="a"} | traceID="def" | label_format who=user_id')).result.map((s) => s.stream)).toEqual([{ app: "a", level: "info", traceID: "def", who: "u1" }]);
      expect((await range('{app="a"} | traceID="def" | keep app, user_id')).result.map((s) => s.stream)).toEqual([{ app: "a", user_id: "u1" }]);
      expect((await range('{app="a"} | drop traceID, level_extracted, user_id="x"')).result.map((s) => s.stream)).toEqual([
        { app: "a", level: "info" },
        { app: "a", level: "info", user_id: "u1" },
      ]);
      // a label moved by label_format keeps its category; one a template makes is parsed
      const moved = await range('{app="a"} | traceID="def" | label_format who=user_id, t="{{.traceID}}"', CATEGORIZE);
      expect(moved.result[0]!.values[0]![2]).toEqual({ structuredMetadata: { traceID: "def", who: "u1" }, parsed: { t: "def" } });
    },
    async metrics() {
      const instant = async (query: string) => {
        const params = new URLSearchParams({ query, time: String(t0 / 1000) });
        const r = await logs().get(`/loki/api/v1/query?${params}`, tenant);
        expect(r.status).toBe(200);
        return (r.body.data.result as Array<{ metric: Record<string, string>; value: [number, string] }>)
          .map((s) => ({ ...s.metric, "=": s.value[1] }))
          .sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
      };
      expect(await instant('sum by (traceID) (count_over_time({app=~"a|b"}[5m]))')).toEqual([
        { "=": "1" },
        { traceID: "abc", "=": "3" },
        { traceID: "def", "=": "1" },
      ]);
      expect(await instant('sum without (app, level, level_extracted, span, user_id) (count_over_time({app=~"a|b"}[5m]))')).toEqual([
        { "=": "1" },
        { traceID: "abc", "=": "3" },
        { traceID: "def", "=": "1" },
      ]);
      // a grouping metadata cannot change (no labels, stream labels only): the chunks' fast path, the same counts
      expect(await instant('sum(count_over_time({app=~"a|b"}[5m]))')).toEqual([{ "=": "5" }]);
      expect(await instant('sum by (app) (count_over_time({app=~"a|b"}[5m]))')).toEqual([{ app: "a", "=": "4" }, { app: "b", "=": "1" }]);
      // without an aggregation, metadata splits the series (Loki's sample labels include it)
      expect(await instant('count_over_time({app="a"}[5m])')).toHaveLength(4);
      expect(await instant('sum by (user_id) (count_over_time({app="a"} | json | traceID="parsed" [5m]))')).toEqual([{ user_id: "u1", "=": "1" }]);
      expect(await instant('sum(count_over_time({app="a"} | traceID="abc" [5m]))')).toEqual([{ "=": "2" }]);
      const params = new URLSearchParams({ query: 'sum by (traceID) (bytes_over_time({app="a"} | traceID=~".+" [5m]))', start: ns(t0 - 60_000), end: ns(t0), step: "60" });
      const r = await logs().get(`/loki/api/v1/query_range?${params}`, tenant);
      expect(r.body.data.result.map((s: { metric: Record<string, string> }) => s.metric).sort((x: { traceID: string }, y: { traceID: string }) => x.traceID.localeCompare(y.traceID))).toEqual([{ traceID: "abc" }, { traceID: "def" }]);
    },
  };
}

describe("log store: structured metadata in queries", () => {
  const clock = testClock(T0);
  const t = useServer({}, clock);
  const tenant = "sm";
  const q = queries(() => t.server.urls.logs!, tenant, T0);

  it("push (JSON and protobuf), then the plain answer: metadata merged into the stream labels", async () => {
    const { json, protobuf } = seed(T0);
    const logs = logClient(t.server.urls.logs!);
    expect((await logs.push(tenant, json)).status).toBe(204);
    expect((await logs.push(tenant, protobuf, "protobuf")).status).toBe(204);
    await q.plain();
  });

  it("categorize-labels: encodingFlags, stream labels only, {structuredMetadata, parsed} per value", () => q.categorized());

  it("label filters (= != =~ !~) on metadata keys, after parsers too; templates, label_format, keep, drop", () => q.filters());

  it("metric queries by and without metadata keys", () => q.metrics());

  it("an unknown flag is echoed and changes nothing; metric answers carry no encodingFlags", async () => {
    const params = new URLSearchParams({ query: '{app="b"}', start: ns(T0 - 120_000), end: ns(T0) });
    const r = await fetch(`${t.server.urls.logs}/svc/api/v1/query_range?${params}`, { headers: { "X-Scope-OrgID": tenant, "X-Loki-Response-Encoding-Flags": "other" } });
    const body = (await r.json()) as { data: { encodingFlags: string[]; result: Result[] } };
    expect(body.data.encodingFlags).toEqual(["other"]);
    expect(body.data.result[0]!.values[0]).toHaveLength(2);
    const m = new URLSearchParams({ query: 'count_over_time({app="b"}[5m])', start: ns(T0 - 60_000), end: ns(T0), step: "60" });
    const metric = await fetch(`${t.server.urls.logs}/svc/api/v1/query_range?${m}`, { headers: { "X-Scope-OrgID": tenant, ...CATEGORIZE } });
    const data = ((await metric.json()) as { data: Record<string, unknown> }).data;
    expect(data.resultType).toBe("matrix");
    expect(data.encodingFlags).toBeUndefined();
  });
});

describe("log store: structured metadata after a restart (read from stored chunks)", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-log-metadata-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("the same answers once the heads are written to chunks and the store is opened again", async () => {
    const flags = { "storage.in_memory": false, "storage.data_dir": dir };
    const t0 = Date.now();
    const { json, protobuf } = seed(t0);
    const first = await startTestServer(flags);
    try {
      const logs = logClient(first.urls.logs!);
      expect((await logs.push("sm", json)).status).toBe(204);
      expect((await logs.push("sm", protobuf, "protobuf")).status).toBe(204);
    } finally {
      // a clean stop writes every head to chunks
      await first.stop();
    }
    const second = await startTestServer(flags);
    try {
      const q = queries(() => second.urls.logs!, "sm", t0);
      await q.plain();
      await q.categorized();
      await q.filters();
      await q.metrics();
    } finally {
      await second.stop();
    }
  }, 60_000);
});
