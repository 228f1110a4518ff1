// query_range with a limit reads newest-first (or oldest-first) across
// streams and stops once the answer is decided (issue 17); these are the
// edges of that reading, against hand-computed answers: equal timestamps
// across streams, a limit cut inside a chunk, forward and backward, a line
// filter that drops most lines, entries still in the head beside stored
// chunks, and the range's start (inclusive) and end (exclusive).
import { describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { testClock, useServer } from "../helpers/server.ts";
import { logClient } from "./helpers.ts";

const QR = "/svc/api/v1/query_range";
const T0 = Date.UTC(2026, 10, 20, 12, 0, 0);
const ns = (ms: number) => String(BigInt(ms) * 1_000_000n);
type Result = Array<{ stream: Record<string, string>; values: Array<[string, string]> }>;

describe("log store: query_range limits read only what the answer needs", () => {
  const clock = testClock(T0);
  const t = useServer({}, clock);
  const logs = () => logClient(t.server.urls.logs!);
  const range = async (tenant: string, query: string, extra: Record<string, string>) => {
    const r = await logs().get(QR, tenant, { query, start: ns(T0 - 3_600_000), end: ns(T0 + 600_000), ...extra });
    expect(r.status).toBe(200);
    return r.body.data.result as Result;
  };
  /** [stream's app, line] in answer order: streams in order, each stream's values in order */
  const flat = (result: Result) => result.flatMap((s) => s.values.map((v) => [s.stream.app, v[1]]));

  it("equal timestamps across streams: stream order breaks the tie, both directions; start inclusive, end exclusive", async () => {
    const tenant = "ties";
    // three streams, created a, b, c; each has a line at T0-20s, T0-10s and T0-5s
    for (const app of ["a", "b", "c"]) {
      await logs().push(tenant, [{ stream: { app }, values: [[ns(T0 - 20_000), `${app} old`], [ns(T0 - 10_000), `${app} mid`], [ns(T0 - 5_000), `${app} new`]] }]);
    }
    expect(flat(await range(tenant, '{app=~".+"}', { limit: "4" }))).toEqual([["a", "a new"], ["a", "a mid"], ["b", "b new"], ["c", "c new"]]);
    expect(flat(await range(tenant, '{app=~".+"}', { limit: "4", direction: "forward" }))).toEqual([["a", "a old"], ["a", "a mid"], ["b", "b old"], ["c", "c old"]]);
    // start at T0-10s exactly is in, end at T0-5s exactly is out
    const window = { start: ns(T0 - 10_000), end: ns(T0 - 5_000) };
    expect(flat(await range(tenant, '{app=~".+"}', { ...window, limit: "2" }))).toEqual([["a", "a mid"], ["b", "b mid"]]);
    expect(flat(await range(tenant, '{app=~".+"}', { ...window, limit: "100", direction: "forward" }))).toEqual([["a", "a mid"], ["b", "b mid"], ["c", "c mid"]]);
  });

  it("a limit cut inside a chunk, a filter that drops most lines, and head entries older than stored ones", async () => {
    const tenant = "cut";
    // 200 lines of one stream over 200 s before T0-10m; every 40th says "rare"
    const line = (i: number) => `n=${i}${i % 40 === 7 ? " rare" : ""}`;
    const first = Array.from({ length: 200 }, (_, i) => [ns(T0 - 800_000 + i * 1000), line(i)] as [string, string]);
    await logs().push(tenant, [{ stream: { app: "x" }, values: first }, { stream: { app: "y" }, values: [[ns(T0 - 700_000), "y one"]] }]);
    // a head older than the maximum chunk age is cut into a chunk and stored
    clock.advance(6 * 60_000);
    await eventually(
      () => logs().get("/svc/api/v1/index/stats", tenant, { query: '{app="x"}', start: ns(T0 - 3_600_000), end: ns(T0 + 600_000) }),
      (r) => expect(r.body).toMatchObject({ chunks: 1, entries: 200 }),
    );
    // now late lines in the head, between the stored ones (half a second after each 50th)
    const late = Array.from({ length: 4 }, (_, k) => [ns(T0 - 800_000 + k * 50_000 + 500), `late ${k}`] as [string, string]);
    await logs().push(tenant, [{ stream: { app: "x" }, values: late }]);

    const backward = await range(tenant, '{app="x"}', { limit: "5" });
    expect(flat(backward).map((v) => v[1])).toEqual(["n=199", "n=198", "n=197", "n=196", "n=195"]);
    const forward = await range(tenant, '{app="x"}', { limit: "5", direction: "forward" });
    expect(flat(forward).map((v) => v[1])).toEqual(["n=0", "late 0", "n=1", "n=2", "n=3"]);
    expect(forward[0]!.values.map((v) => v[0])).toEqual([ns(T0 - 800_000), ns(T0 - 800_000 + 500), ns(T0 - 799_000), ns(T0 - 798_000), ns(T0 - 797_000)]);
    // a stored line and a head line in one answer, in time order
    const around = await range(tenant, '{app="x"}', { start: ns(T0 - 751_000), end: ns(T0 - 749_000), direction: "forward" });
    expect(flat(around).map((v) => v[1])).toEqual(["n=49", "n=50", "late 1"]);
    // every 40th line from 7 says rare: 5 of them, the newest three backward, the oldest two forward
    expect(flat(await range(tenant, '{app="x"} |= "rare"', { limit: "3" })).map((v) => v[1])).toEqual(["n=167 rare", "n=127 rare", "n=87 rare"]);
    expect(flat(await range(tenant, '{app="x"} |= "rare"', { limit: "2", direction: "forward" })).map((v) => v[1])).toEqual(["n=7 rare", "n=47 rare"]);
    expect(flat(await range(tenant, '{app=~"x|y"} |~ "rare|late 3|y"', { limit: "3" }))).toEqual([["x", "n=167 rare"], ["x", "late 3"], ["x", "n=127 rare"]]);
    expect(flat(await range(tenant, '{app=~"x|y"} |~ "y one|n=150$"', { limit: "100" }))).toEqual([["x", "n=150"], ["y", "y one"]]);
  });
});
