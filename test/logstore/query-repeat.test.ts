// The same query text asked again (as dashboards and tailing clients do) is
// parsed once and its AST shared (issue 17): answers stay those of a fresh
// parse — labels a parser stage extracted for one answer never leak into the
// next, a refused query is refused again with the same message.
import { describe, expect, it } from "vitest";
import { testClock, useServer } from "../helpers/server.ts";
import { logClient } from "./helpers.ts";

const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);
const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);

describe("log store: a query asked again", () => {
  const clock = testClock(T0);
  const t = useServer({}, clock);
  const q = (query: string) => logClient(t.server.urls.logs!).get("/svc/api/v1/query_range", "rq", { query, start: String((T0 - 600_000) / 1000), end: String(T0 / 1000), direction: "forward" });

  it("pipelines with parsers, filters and templates give the same answers each time; errors repeat", async () => {
    const push = await logClient(t.server.urls.logs!).push("rq", [
      { stream: { app: "a" }, values: [[ns(T0 - 300_000), 'level=info msg="one" status=200'], [ns(T0 - 200_000), 'level=error msg="two" status=500']] },
      { stream: { app: "b" }, values: [[ns(T0 - 250_000), '{"level":"warn","msg":"three"}']] },
    ]);
    expect(push.status).toBe(204);
    const logfmt = '{app=~"a|b"} | logfmt | level="error" | line_format "{{.msg}} ({{.status}})"';
    const first = await q(logfmt);
    expect(first.status).toBe(200);
    expect(first.body.data.result).toEqual([{ stream: { app: "a", level: "error", msg: "two", status: "500" }, values: [[ns(T0 - 200_000), "two (500)"]] }]);
    for (let i = 0; i < 3; i++) expect((await q(logfmt)).body.data.result).toEqual(first.body.data.result);

    // another query over the same streams: nothing extracted above shows up
    const plain = await q('{app=~"a|b"} |= "e"');
    expect(plain.body.data.result).toEqual([
      { stream: { app: "a" }, values: [[ns(T0 - 300_000), 'level=info msg="one" status=200'], [ns(T0 - 200_000), 'level=error msg="two" status=500']] },
      { stream: { app: "b" }, values: [[ns(T0 - 250_000), '{"level":"warn","msg":"three"}']] },
    ]);
    const json = await q('{app="b"} | json | label_format lvl="{{.level}}"');
    expect(json.body.data.result).toEqual([{ stream: { app: "b", level: "warn", msg: "three", lvl: "warn" }, values: [[ns(T0 - 250_000), '{"level":"warn","msg":"three"}']] }]);
    expect((await q('{app="b"} | json | label_format lvl="{{.level}}"')).body.data.result).toEqual(json.body.data.result);

    const bad = await q('{app="a"} |= ');
    expect(bad.status).toBe(400);
    const again = await q('{app="a"} |= ');
    expect([again.status, again.text]).toEqual([400, bad.text]);
  });

  it("parameters from one parse of the query string: escaped names, + as space, the first of repeated values", async () => {
    const base = t.server.urls.logs!;
    const get = async (qs: string) => {
      const res = await fetch(`${base}/svc/api/v1/query_range?${qs}`, { headers: { "X-Scope-OrgID": "rq" } });
      return { status: res.status, body: (await res.json()) as { data: { result: Array<{ values: string[][] }> } } };
    };
    const range = `start=${(T0 - 600_000) / 1000}&end=${T0 / 1000}`;
    const lines = (r: Awaited<ReturnType<typeof get>>) => r.body.data.result.flatMap((s) => s.values.map((v) => v[1]));
    const escaped = await get(`%71uery=${encodeURIComponent('{app="a"}')}&${range}&%6Cimit=1&limit=5&direction=forward`);
    expect(escaped.status).toBe(200);
    expect(lines(escaped)).toEqual(['level=info msg="one" status=200']);
    const plus = await get(`query=${encodeURIComponent('{app="a"}').replace(/%20/g, "+")}+%7C%3D+%22two%22&query=${encodeURIComponent('{app="b"}')}&${range}`);
    expect(lines(plus)).toEqual(['level=error msg="two" status=500']);
  });

  it("a streams answer is the text JSON.stringify gives, escapes and all, the first time and the next", async () => {
    const odd = ['quote " backslash \\ tab \t', "unicode é 漢字 😀", "control \u0001\u001f", "lone \ud800 surrogate", "x".repeat(3000), ""];
    const push = await logClient(t.server.urls.logs!).push("rq", [{ stream: { app: "odd", weird: "va\"l\\ue" }, values: odd.map((line, i) => [ns(T0 - 100_000 + i), line]) }]);
    expect(push.status).toBe(204);
    for (let i = 0; i < 2; i++) {
      const res = await q('{app="odd"}');
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      expect(res.text).toBe(JSON.stringify(JSON.parse(res.text)));
      expect(res.body.data.result).toEqual([{ stream: { app: "odd", weird: "va\"l\\ue" }, values: odd.map((line, j) => [ns(T0 - 100_000 + j), line.replace("\ud800", "\ufffd")]) }]);
      expect(res.body.data.stats.summary.execTime).toBe(0);
    }
  });
});
