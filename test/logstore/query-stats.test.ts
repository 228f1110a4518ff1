// Issue 21: the stats of a query answer count what it returned
// (summary.totalEntriesReturned: the entries of a streams answer, the series
// of a matrix or vector), as Loki's do; they said 0 whatever came back.
import { describe, expect, it } from "vitest";
import { useServer } from "../helpers/server.ts";

const ns = (ms: number) => `${BigInt(ms) * 1_000_000n}`;

describe("query stats", () => {
  const t = useServer({});
  const get = async (path: string, params: Record<string, string>) => {
    const r = await fetch(`${t.server.urls.logs}${path}?${new URLSearchParams(params)}`, { headers: { "X-Scope-OrgID": "stats" } });
    expect(r.status).toBe(200);
    return (await r.json()) as { data: { resultType: string; result: unknown[]; stats: { summary: { totalEntriesReturned: number } } } };
  };

  it("totalEntriesReturned: 3 lines of two streams -> 3; their count_over_time by stream -> 2 series; an instant vector -> its series", async () => {
    const now = Date.now();
    const push = await fetch(`${t.server.urls.logs}/svc/api/v1/push`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Scope-OrgID": "stats" },
      body: JSON.stringify({ streams: [
        { stream: { app: "a" }, values: [[ns(now - 2000), "one"], [ns(now - 1000), "two"]] },
        { stream: { app: "b" }, values: [[ns(now - 1500), "three"]] },
      ] }),
    });
    expect(push.status).toBe(204);
    const range = { start: ns(now - 60_000), end: ns(now + 1000) };
    const lines = await get("/svc/api/v1/query_range", { query: '{app=~"a|b"}', ...range });
    expect(lines.data.resultType).toBe("streams");
    expect(lines.data.stats.summary.totalEntriesReturned).toBe(3);
    const matrix = await get("/svc/api/v1/query_range", { query: 'sum by (app) (count_over_time({app=~"a|b"}[1m]))', ...range, step: "10" });
    expect(matrix.data.resultType).toBe("matrix");
    expect(matrix.data.stats.summary.totalEntriesReturned).toBe(2);
    const vector = await get("/svc/api/v1/query", { query: 'sum by (app) (count_over_time({app=~"a|b"}[1m]))', time: ns(now + 1000) });
    expect(vector.data.resultType).toBe("vector");
    expect(vector.data.stats.summary.totalEntriesReturned).toBe(vector.data.result.length);
  });
});
