import { describe, expect, it } from "vitest";
import { testClock, useServer } from "../helpers/server.ts";
import { logClient } from "./helpers.ts";

const QR = "/svc/api/v1/query_range";
const T0 = Date.UTC(2026, 10, 20, 12, 0, 0); // the test clock's "now"
const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);
const sec = (ms: number) => String(ms / 1000);

describe("log store: queries (LogQL subset) against hand-computed results", () => {
  const clock = testClock(T0);
  const t = useServer({}, clock);
  const logs = () => logClient(t.server.urls.logs!);
  const tenant = "q";
  const q = (query: string, extra: Record<string, string> = {}) =>
    logs().get(QR, tenant, { query, start: sec(T0 - 600_000), end: sec(T0), ...extra });

  // web/prod: 6 lines at T0-5m .. T0-30s; web/dev: 2 lines; api/prod: 3 lines
  const seed = async () => {
    const web = [
      [T0 - 300_000, 'level=info msg="started" status=200'],
      [T0 - 240_000, 'level=error msg="boom" status=500'],
      [T0 - 180_000, 'level=info msg="ok" status=200'],
      [T0 - 120_000, '{"level":"warn","msg":"slow","req":{"ms":900}}'],
      [T0 - 60_000, 'level=error msg="again" status=503'],
      [T0 - 30_000, "plain text line"],
    ] as const;
    await logs().push(tenant, [
      { stream: { app: "web", env: "prod" }, values: web.map(([ts, line]) => [ns(ts), line]) },
      { stream: { app: "web", env: "dev" }, values: [[ns(T0 - 200_000), "level=info dev one"], [ns(T0 - 100_000), "level=error dev two"]] },
      { stream: { app: "api", env: "prod" }, values: [[ns(T0 - 250_000), "GET /a"], [ns(T0 - 150_000), "GET /b"], [ns(T0 - 50_000), "POST /c"]] },
    ]);
  };

  it("selectors, direction, limit, start inclusive and end exclusive", async () => {
    await seed();
    const prod = await q('{env="prod"}', { limit: "4" });
    expect(prod.status).toBe(200);
    expect(prod.body.data.resultType).toBe("streams");
    expect(prod.body.data.stats.summary).toBeDefined();
    // newest four across streams, newest first
    const lines = prod.body.data.result.flatMap((s: { values: string[][] }) => s.values).sort((a: string[], b: string[]) => b[0]!.localeCompare(a[0]!));
    expect(lines.map((v: string[]) => v[1])).toEqual(["plain text line", "POST /c", 'level=error msg="again" status=503', '{"level":"warn","msg":"slow","req":{"ms":900}}']);
    const forward = await q('{app="api"}', { direction: "forward" });
    expect(forward.body.data.result[0].values.map((v: string[]) => v[1])).toEqual(["GET /a", "GET /b", "POST /c"]);
    const regex = await q('{app=~"w.b", env!="dev"}');
    expect(regex.body.data.result).toHaveLength(1);
    expect((await q('{app!~"web|api", env="prod"}')).body.data.result).toEqual([]);
    const window = await logs().get(QR, tenant, { query: '{app="api"}', start: sec(T0 - 250_000), end: sec(T0 - 50_000) });
    expect(window.body.data.result[0].values.map((v: string[]) => v[1])).toEqual(["GET /b", "GET /a"]);
    const nanos = await logs().get(QR, tenant, { query: '{app="api"}', start: ns(T0 - 250_000), end: new Date(T0).toISOString() });
    expect(nanos.body.data.result[0].values).toHaveLength(3);
  });

  it("line filters, logfmt, json, label filters, line_format", async () => {
    const lines = async (query: string) =>
      (await q(query, { direction: "forward" })).body.data.result.flatMap((s: { values: string[][] }) => s.values.map((v) => v[1])).sort();
    expect(await lines('{app="web", env="prod"} |= "error"')).toEqual(['level=error msg="again" status=503', 'level=error msg="boom" status=500']);
    expect(await lines('{app="web", env="prod"} |= "level" != "error" !~ "warn"')).toEqual(['level=info msg="ok" status=200', 'level=info msg="started" status=200']);
    expect(await lines('{app="api"} |~ "^GET /[ab]$"')).toEqual(["GET /a", "GET /b"]);
    expect(await lines('{app="web", env="prod"} |= "level=" | logfmt | status >= 500')).toEqual(['level=error msg="again" status=503', 'level=error msg="boom" status=500']);
    expect(await lines('{app="web", env="prod"} |= "{" | json | req_ms > 500')).toEqual(['{"level":"warn","msg":"slow","req":{"ms":900}}']);
    expect(await lines('{app="web", env="prod"} |= "level=" | logfmt | level="info" or status="503" | line_format "{{.level}}: {{.msg}}"')).toEqual(["error: again", "info: ok", "info: started"]);
    const parsed = await q('{app="web", env="prod"} |= "boom" | logfmt');
    expect(parsed.body.data.result[0].stream).toEqual({ app: "web", env: "prod", level: "error", msg: "boom", status: "500" });
    const err = await q('{app="web", env="prod"} |= "plain" | json');
    expect(err.body.data.result[0].stream.__error__).toBe("JSONParserErr");
  });

  it("metric queries: count_over_time, rate, bytes_over_time, sum by, topk; instant query", async () => {
    const range = (query: string, step = "60") => q(query, { step });
    const count = await range('count_over_time({app="api"}[5m])');
    expect(count.body.data.resultType).toBe("matrix");
    // steps T0-10m .. T0 every minute; each api line counts for five minutes after it
    const values = Object.fromEntries(count.body.data.result[0].values.map(([t, v]: [number, string]) => [(t * 1000 - T0) / 60_000, v]));
    expect(values).toEqual({ "-4": "1", "-3": "1", "-2": "2", "-1": "2", "0": "3" });
    const rate = await range('rate({app="api"}[1m])');
    expect(rate.body.data.result[0].values.find(([t]: [number]) => t * 1000 === T0 - 120_000)[1]).toBe(String(1 / 60));
    const bytes = await range('bytes_over_time({app="api"}[10m])');
    expect(bytes.body.data.result[0].values.at(-1)[1]).toBe(String("GET /a".length + "GET /b".length + "POST /c".length));
    const byEnv = await range('sum by (env) (count_over_time({app=~".+"}[10m]))');
    const last = Object.fromEntries(byEnv.body.data.result.map((s: { metric: { env: string }; values: Array<[number, string]> }) => [s.metric.env, s.values.at(-1)![1]]));
    expect(last).toEqual({ prod: "9", dev: "2" });
    const top = await range('topk(1, count_over_time({app=~".+"}[10m]))');
    expect(top.body.data.result.map((s: { metric: Record<string, string> }) => s.metric)).toContainEqual({ app: "web", env: "prod" });
    const levels = await range('sum by (level) (count_over_time({app="web"} |= "level=" | logfmt [10m]))');
    const byLevel = Object.fromEntries(levels.body.data.result.map((s: { metric: { level: string }; values: Array<[number, string]> }) => [s.metric.level, s.values.at(-1)![1]]));
    expect(byLevel).toEqual({ info: "3", error: "3" });
    const instant = await logs().get("/svc/api/v1/query", tenant, { query: 'sum(count_over_time({env="prod"}[10m]))', time: sec(T0) });
    expect(instant.body.data).toMatchObject({ resultType: "vector", result: [{ metric: {}, value: [T0 / 1000, "9"] }] });
    const logInstant = await logs().get("/svc/api/v1/query", tenant, { query: '{env="prod"}' });
    expect(logInstant.status).toBe(400);
    expect(logInstant.text).toBe("log queries are not supported as an instant query type, please change your query to a range query type\n");
  });

  it("labels, label values, series, index/stats over the time range", async () => {
    const labels = await logs().get("/svc/api/v1/labels", tenant, { start: sec(T0 - 600_000), end: sec(T0) });
    expect(labels.body).toEqual({ status: "success", data: ["app", "env"] });
    expect((await logs().get("/svc/api/v1/label/env/values", tenant, { start: sec(T0 - 600_000), end: sec(T0) })).body.data).toEqual(["dev", "prod"]);
    expect((await logs().get("/svc/api/v1/label/nope/values", tenant, { start: sec(T0 - 600_000), end: sec(T0) })).body).toEqual({ status: "success" });
    const series = await logs().get("/svc/api/v1/series", tenant, { "match[]": '{env="prod"}', start: sec(T0 - 600_000), end: sec(T0) });
    expect(series.body.data).toEqual(expect.arrayContaining([{ app: "web", env: "prod" }, { app: "api", env: "prod" }]));
    expect(series.body.data).toHaveLength(2);
    const notSelector = await logs().get("/svc/api/v1/series", tenant, { "match[]": '{env="prod"} |= "x"' });
    expect(notSelector.text).toBe("only label matchers are supported\n");
    // an hour later the default range (the last hour) no longer reaches them
    expect((await logs().get("/svc/api/v1/labels", tenant, { start: sec(T0 + 3_600_000), end: sec(T0 + 7_200_000) })).body).toEqual({ status: "success" });
    const stats = await logs().get("/svc/api/v1/index/stats", tenant, { query: '{env="prod"}', start: sec(T0 - 600_000), end: sec(T0) });
    expect(stats.body).toMatchObject({ streams: 2, entries: 9 });
  });

  it("parameter and limit errors -> 400 with the real product's messages", async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ query: '{app="web"' }, "parse error at line 1, col 11: syntax error: unexpected $end"],
      [{ query: '{app!="web"}' }, 'parse error : queries require at least one regexp or equality matcher that does not have an empty-compatible value. For instance, app=~".*" does not meet this requirement, but app=~".+" will'],
      [{ query: '{app="web"}', limit: "0" }, "limit must be a positive value"],
      [{ query: '{app="web"}', limit: "5001" }, "max entries limit per query exceeded, limit > max_entries_limit_per_query (5001 > 5000)"],
      [{ query: '{app="web"}', direction: "sideways" }, "invalid direction 'sideways'"],
      [{ query: '{app="web"}', start: "yesterday" }, `could not parse 'start' parameter: cannot parse "yesterday" to a valid timestamp`],
      [{ query: '{app="web"}', start: sec(T0), end: sec(T0 - 1000) }, "end timestamp must not be before or equal to start time"],
      [{ query: 'count_over_time({app="web"}[1m])', step: "0" }, "zero or negative query resolution step widths are not accepted. Try a positive integer"],
      [{ query: 'count_over_time({app="web"}[1m])', step: "0.01" }, "exceeded maximum resolution of 11,000 points per time series. Try increasing the value of the step parameter"],
      [{ query: '{app="web"}', start: sec(T0 - 40 * 86_400_000), end: sec(T0) }, "the query time range exceeds the limit (query length: 960h0m0s, limit: 721h0m0s)"],
    ];
    for (const [params, message] of cases) {
      const r = await logs().get(QR, tenant, { start: sec(T0 - 600_000), end: sec(T0), ...params });
      expect({ params, status: r.status, text: r.text }).toEqual({ params, status: 400, text: `${message}\n` });
    }
  });
});
