// Instant and range selectors: matcher types, the lookback window, stale
// markers, offset and @, and how each selector's data is fetched.
import { describe, expect, it } from "vitest";
import { instantQuery, rangeQuery } from "../../../src/apps/metrics/core/promql/index.ts";
import { errorOf, MemoryQuerier, sec } from "./fixture.ts";

const up = new MemoryQuerier([
  { labels: { __name__: "up", job: "api", instance: "a:1" }, samples: [[sec(100), 1]] },
  { labels: { __name__: "up", job: "api", instance: "b:1" }, samples: [[sec(100), 0]] },
  { labels: { __name__: "up", job: "db", instance: "c:1" }, samples: [[sec(100), 1]] },
  { labels: { __name__: "node_up", job: "db" }, samples: [[sec(100), 1]] },
]);

const instancesOf = async (query: string) => {
  const r = await instantQuery(up, query, sec(100));
  if (r.resultType !== "vector") throw new Error(r.resultType);
  return r.result.map((s) => s.metric.instance ?? s.metric.__name__);
};

describe("instant selectors: matchers", () => {
  it("a bare metric name selects every series of it, sorted by labels", async () => {
    expect(await instancesOf("up")).toEqual(["a:1", "b:1", "c:1"]);
  });

  it("= and != (a missing label counts as empty)", async () => {
    expect(await instancesOf('up{job="api"}')).toEqual(["a:1", "b:1"]);
    expect(await instancesOf('up{job!="api"}')).toEqual(["c:1"]);
    expect(await instancesOf('{job="db", instance!=""}')).toEqual(["c:1"]);
  });

  it("=~ and !~ are fully anchored", async () => {
    expect(await instancesOf('up{instance=~"a.*|c:1"}')).toEqual(["a:1", "c:1"]);
    // "a" alone does not match "a:1": the expression is anchored at both ends
    expect(await instancesOf('up{instance=~"a"}')).toEqual([]);
    expect(await instancesOf('up{instance!~"[ab]:1"}')).toEqual(["c:1"]);
  });

  it("__name__ matchers select across metric names", async () => {
    expect(await instancesOf('{__name__=~"up|node_up", job="db"}')).toEqual(["node_up", "c:1"]);
  });

  it("results carry the series' labels, names sorted, values as strings, time in float seconds", async () => {
    const r = await instantQuery(up, 'up{instance="a:1"}', 100_500);
    expect(r).toEqual({ resultType: "vector", result: [{ metric: { __name__: "up", instance: "a:1", job: "api" }, value: [100.5, "1"] }] });
    expect(Object.keys(r.resultType === "vector" ? r.result[0]!.metric : {})).toEqual(["__name__", "instance", "job"]);
  });
});

// st: 1 at 0s, 2 at 60s, a stale marker at 120s, 3 at 240s
const stale = new MemoryQuerier([
  { labels: { __name__: "st", job: "x" }, samples: [[0, 1], [sec(60), 2], [sec(120), "stale"], [sec(240), 3]] },
]);

const valueAt = async (query: string, t: number, lookbackDelta?: number) => {
  const r = await instantQuery(stale, query, sec(t), lookbackDelta === undefined ? {} : { lookbackDelta });
  if (r.resultType !== "vector") throw new Error(r.resultType);
  return r.result.map((s) => s.value[1]);
};

describe("instant selectors: lookback and staleness", () => {
  it("takes the newest sample in (T - 5m, T]", async () => {
    expect(await valueAt("st", 0)).toEqual(["1"]);
    expect(await valueAt("st", 59)).toEqual(["1"]);
    expect(await valueAt("st", 60)).toEqual(["2"]);
    expect(await valueAt("st", 100)).toEqual(["2"]);
    // 3 at 240s is seen until 540s, excluded: the window is open on the left
    expect(await valueAt("st", 539)).toEqual(["3"]);
    expect(await valueAt("st", 540)).toEqual([]);
  });

  it("a stale marker ends the series until the next sample", async () => {
    expect(await valueAt("st", 120)).toEqual([]);
    expect(await valueAt("st", 200)).toEqual([]);
    expect(await valueAt("st", 240)).toEqual(["3"]);
  });

  it("the lookback delta is an option", async () => {
    // with 1m: at 100s the sample at 60s is within (40s, 100s]; at 59s the one at 0s is not within (-1s, 59s]... it is
    expect(await valueAt("st", 100, 60_000)).toEqual(["2"]);
    expect(await valueAt("st", 230, 60_000)).toEqual([]);
    expect(await valueAt("st", 60 + 60, 60_000)).toEqual([]);
  });

  it("offset moves the evaluation time back (or forward when negative)", async () => {
    expect(await valueAt("st offset 1m", 120)).toEqual(["2"]);
    expect(await valueAt("st offset -1m", 0)).toEqual(["2"]);
  });

  it("@ pins the evaluation time; offset applies relative to it", async () => {
    expect(await valueAt("st @ 60", 500)).toEqual(["2"]);
    expect(await valueAt("st @ 100 offset 100s", 500)).toEqual(["1"]);
  });

  it("@ start() and @ end() are the range query's ends", async () => {
    const r = await rangeQuery(stale, "st @ end()", 0, sec(60), sec(30));
    expect(r).toEqual({ resultType: "matrix", result: [{ metric: { __name__: "st", job: "x" }, values: [[0, "2"], [30, "2"], [60, "2"]] }] });
  });
});

describe("range selectors", () => {
  it("an instant query of x[range] returns the raw samples in (T - range, T], stale markers dropped", async () => {
    const r = await instantQuery(stale, "st[4m]", sec(240));
    // (0s, 240s]: 60s and 240s; 0s is on the open edge, 120s is a stale marker
    expect(r).toEqual({ resultType: "matrix", result: [{ metric: { __name__: "st", job: "x" }, values: [[60, "2"], [240, "3"]] }] });
  });

  it("a range selector with offset", async () => {
    const r = await instantQuery(stale, "st[1m] offset 3m", sec(240));
    expect(r.resultType === "matrix" && r.result[0]!.values).toEqual([[60, "2"]]);
  });

  it("a range query cannot return a range vector: a 400 on the query parameter", async () => {
    const err = await errorOf(() => rangeQuery(stale, "st[1m]", 0, 60_000, 15_000));
    expect([err.status, err.message]).toEqual([
      400,
      'invalid parameter "query": invalid expression type "range vector" for range query, must be Scalar or instant Vector',
    ]);
  });
});

describe("fetching", () => {
  it("selects each selector once, over exactly the window the query reads", async () => {
    const q = new MemoryQuerier([{ labels: { __name__: "x" }, samples: [[0, 1]] }]);
    await instantQuery(q, "rate(x[5m]) + x offset 1m", sec(1000));
    expect(q.calls.map((c) => [c.mint, c.maxt])).toEqual([
      [sec(1000) - 300_000 + 1, sec(1000)],
      [sec(940) - 300_000 + 1, sec(940)],
    ]);
  });

  it("a range query fetches each selector once for all its steps", async () => {
    const q = new MemoryQuerier([{ labels: { __name__: "x" }, samples: [[0, 1]] }]);
    await rangeQuery(q, "sum(rate(x[1m]))", sec(600), sec(1200), sec(15));
    expect(q.calls).toHaveLength(1);
    expect([q.calls[0]!.mint, q.calls[0]!.maxt]).toEqual([sec(540) + 1, sec(1200)]);
  });

  it("a subquery widens its selectors' window by its range and offset", async () => {
    const q = new MemoryQuerier([{ labels: { __name__: "x" }, samples: [[0, 1]] }]);
    await instantQuery(q, "max_over_time(x[10m:1m] offset 5m)", sec(3600));
    expect([q.calls[0]!.mint, q.calls[0]!.maxt]).toEqual([sec(3600 - 300 - 600) - 300_000 + 1, sec(3600 - 300)]);
  });
});
