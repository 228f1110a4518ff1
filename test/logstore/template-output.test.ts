// Issue 16 (review of #19): a line_format / label_format template may not
// multiply a line without bound. Chained templates that each repeat the line
// 10 times would make 10^8 copies; a rendering stops once it passes the log
// store's max_line_size (256KB by default) and the line is kept as it was with
// __error__="TemplateFormatErr", the real product's answer to an execution error.
import { describe, expect, it } from "vitest";
import { useServer } from "../helpers/server.ts";
import { logClient, nsAgo } from "./helpers.ts";

const LINE = "0123456789abcdefghij"; // 20 characters
const TIMES_TEN = "{{__line__}}".repeat(10);
const chained = (stage: string, n: number) => `{job="bomb"}${` | ${stage}`.repeat(n)}`;
const lineBomb = chained(`line_format "${TIMES_TEN}"`, 8);
const labelBomb = `{job="bomb"} | label_format a="${TIMES_TEN}"${` | label_format a="${"{{.a}}".repeat(10)}"`.repeat(7)}`;

describe("log store: template output is capped (issue 16 #19)", () => {
  const ctx = useServer();
  const logs = () => logClient(ctx.server.urls.logs!);
  const range = (tenant: string, query: string) => logs().get("/svc/api/v1/query_range", tenant, { query, limit: "10", since: "1h" });

  it("chained line_format ×10 eight times -> 200 quickly, the line kept at its last size under the cap, __error__ set", async () => {
    expect((await logs().push("tpl", [{ stream: { job: "bomb" }, values: [[nsAgo(5), LINE]] }])).status).toBe(204);
    const before = process.memoryUsage().rss;
    const r = await range("tpl", lineBomb);
    expect(r.status).toBe(200);
    const [stream, ...others] = r.body.data.result;
    expect(others).toEqual([]);
    expect(stream.stream).toEqual({ job: "bomb", __error__: "TemplateFormatErr" });
    // 20 × 10^4 characters fit 256KB; the fifth stage (2,000,000) does not, nor does any later one
    expect(stream.values[0][1]).toBe(LINE.repeat(10_000));
    // the same pipeline under a metric query
    const metric = await logs().get("/svc/api/v1/query", "tpl", { query: `count_over_time(${lineBomb}[1h])` });
    expect(metric.status).toBe(200);
    expect(metric.body.data.result).toEqual([{ metric: { job: "bomb", __error__: "TemplateFormatErr" }, value: [expect.any(Number), "1"] }]);
    // label_format: the label keeps its last value under the cap
    const labelled = await range("tpl", labelBomb);
    expect(labelled.status).toBe(200);
    expect(labelled.body.data.result[0].stream.__error__).toBe("TemplateFormatErr");
    expect(labelled.body.data.result[0].stream.a).toBe(LINE.repeat(10_000));
    // functions that multiply text are refused before they build it
    for (const query of [
      `{job="bomb"} | line_format "{{ alignLeft 1000000000 __line__ }}"`,
      `{job="bomb"} | line_format "{{ repeat 10000 __line__ }}"${` | line_format "{{ repeat 10000 __line__ }}"`.repeat(2)}`,
      `{job="bomb"} | line_format "{{ repeat 10000 __line__ }}" | line_format "{{ replace \\"0\\" __line__ __line__ }}"`,
    ]) {
      const x = await range("tpl", query);
      expect({ query, status: x.status }).toEqual({ query, status: 200 });
      expect(x.body.data.result[0].stream.__error__).toBe("TemplateFormatErr");
      expect(x.body.data.result[0].values[0][1].length).toBeLessThanOrEqual(256 * 1024);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    expect((await logs().get("/ready", undefined)).status).toBe(200);
    // ordinary templates are untouched
    const ok = await range("tpl", '{job="bomb"} | line_format "{{.job}}: {{__line__}}" | label_format short="{{ trunc 4 __line__ }}"');
    expect(ok.body.data.result).toEqual([{ stream: { job: "bomb", short: "bomb" }, values: [[expect.any(String), `bomb: ${LINE}`]] }]);
  }, 120_000);
});

describe("log store: a configured max_line_size caps templates", () => {
  const ctx = useServer({ "logs.limits.max_line_size": "1KB" });
  const logs = () => logClient(ctx.server.urls.logs!);

  it("a rendering over max_line_size -> the line kept with __error__; under it -> formatted", async () => {
    expect((await logs().push("tpl", [{ stream: { job: "bomb" }, values: [[nsAgo(5), LINE]] }])).status).toBe(204);
    const over = await logs().get("/svc/api/v1/query_range", "tpl", { query: `{job="bomb"} | line_format "${"{{__line__}}".repeat(60)}"`, since: "1h" });
    expect(over.status).toBe(200);
    expect(over.body.data.result).toEqual([{ stream: { job: "bomb", __error__: "TemplateFormatErr" }, values: [[expect.any(String), LINE]] }]);
    const under = await logs().get("/svc/api/v1/query_range", "tpl", { query: `{job="bomb"} | line_format "${"{{__line__}}".repeat(40)}"`, since: "1h" });
    expect(under.body.data.result).toEqual([{ stream: { job: "bomb" }, values: [[expect.any(String), LINE.repeat(40)]] }]);
  }, 60_000);
});
