// Issue 16 #18, #19 (query_exemplars), #14 (metrics): durations, times and
// sample timestamps beyond what can be represented are refused with the real
// products' 400 messages, never a 500; the rest of a push is still stored.
import { describe, expect, it } from "vitest";
import { useServer } from "../helpers/server.ts";
import { metricsClient } from "./helpers.ts";

const INT64_MAX = { low: 0xffffffff, high: 0x7fffffff } as never as number;
const INT64_MIN = { low: 0, high: 0x80000000 } as never as number;

describe("metrics store: ranges, times and timestamps beyond limits", () => {
  const ctx = useServer();
  const m = () => metricsClient(ctx.server.urls.metrics!);
  const badData = async (path: string, params: Record<string, string>) => {
    const r = await m().get(path, "rb", params);
    expect(r.status).toBe(400);
    expect(r.body.status).toBe("error");
    expect(r.body.errorType).toBe("bad_data");
    return r.body.error as string;
  };

  it("#18: fz_m[9999999999999999999y] is 400 duration out of range, also once its chunks are in the database", async () => {
    const t = Date.now() - 200 * 1000;
    // 150 samples: one closed chunk, flushed to the database within the flush interval (10 s)
    const samples = Array.from({ length: 150 }, (_, i) => [t + i * 1000, i] as [number, number]);
    expect((await m().push("rb", [{ labels: { __name__: "fz_m" }, samples }])).status).toBe(200);
    const deadline = Date.now() + 12_000;
    do {
      expect(await badData("/prometheus/api/v1/query", { query: "fz_m[9999999999999999999y]" })).toBe(
        'invalid parameter "query": 1:6: parse error: duration out of range',
      );
      await new Promise((r) => setTimeout(r, 1000));
    } while (Date.now() < deadline);
    // far @ and offsets select nothing rather than failing the database query
    for (const query of ["count_over_time(fz_m[292y] @ 9e15)", "fz_m offset -292y", "fz_m @ -9e15", "count_over_time(fz_m[292y] offset 292y)"]) {
      const r = await m().query("rb", query, t + 149_000);
      expect(r.status, query).toBe(200);
    }
    expect((await m().query("rb", "count_over_time(fz_m[1h])", t + 149_000)).body.data.result[0].value[1]).toBe("150");
  }, 60_000);

  it("#18: every duration of the query is bounded (range, subquery step, offset, number of seconds)", async () => {
    for (const [query, col] of [["x[293y]", 3], ["x[5m:9999999y]", 6], ["x offset 9999999999y", 10], ["x[1e300]", 3], ["time() - 9999999999999y", 10]] as const) {
      expect(await badData("/prometheus/api/v1/query", { query })).toBe(`invalid parameter "query": 1:${col}: parse error: duration out of range`);
    }
    expect(await badData("/prometheus/api/v1/query", { query: "x @ 1e300" })).toContain("timestamp out of bounds for @ modifier");
  });

  it("#18: time and step parameters that overflow are 400 bad_data", async () => {
    const huge = "9".repeat(400);
    expect(await badData("/prometheus/api/v1/query", { query: "1", time: `${huge}.5` })).toBe(`invalid parameter "time": cannot parse "${huge}.5" to a valid timestamp`);
    expect(await badData("/prometheus/api/v1/query", { query: "1", time: "1e300" })).toBe('invalid parameter "time": cannot parse "1e300" to a valid timestamp');
    expect(await badData("/prometheus/api/v1/query_range", { query: "1", start: "-1e300", end: "0", step: "1" })).toBe(
      'invalid parameter "start": cannot parse "-1e300" to a valid timestamp',
    );
    expect(await badData("/prometheus/api/v1/query_range", { query: "1", start: "0", end: "100", step: "1e300" })).toBe(
      'invalid parameter "step": cannot parse "1e300" to a valid duration. It overflows int64',
    );
    expect(await badData("/prometheus/api/v1/query_range", { query: "1", start: "0", end: "100", step: "9999999999999999999y" })).toBe(
      'invalid parameter "step": cannot parse "9999999999999999999y" to a valid duration',
    );
    expect(await badData("/prometheus/api/v1/series", { "match[]": "up", start: huge })).toBe(`invalid parameter "start": cannot parse "${huge}" to a valid timestamp`);
    expect(await badData("/prometheus/api/v1/labels", { end: "1e300" })).toBe('invalid parameter "end": cannot parse "1e300" to a valid timestamp');
    // the largest times that fit are fine
    expect((await m().query("rb", "1", 9_000_000_000_000_000)).status).toBe(200);
  });

  it("#19: query_exemplars with start=1.5.5 is 400 bad_data, as Prometheus", async () => {
    expect(await badData("/prometheus/api/v1/query_exemplars", { query: "up", start: "1.5.5" })).toBe('invalid parameter "start": cannot parse "1.5.5" to a valid timestamp');
    expect(await badData("/prometheus/api/v1/query_exemplars", { query: "up", end: "x" })).toBe('invalid parameter "end": cannot parse "x" to a valid timestamp');
    expect(await badData("/prometheus/api/v1/query_exemplars", { query: "up", start: "10", end: "5" })).toBe("end timestamp must not be before start timestamp");
    const ok = await m().get("/prometheus/api/v1/query_exemplars", "rb", { query: "up", start: "1", end: "5" });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ status: "success", data: [] });
  });

  it("#14: a sample at int64 max is too far in the future, at int64 min too old; the rest of the push is stored", async () => {
    const t = Date.now();
    const future = await m().push("ts", [
      { labels: { __name__: "ts_max" }, samples: [[INT64_MAX, 1]] },
      { labels: { __name__: "ts_ok" }, samples: [[t, 7]] },
    ]);
    expect(future.status).toBe(400);
    expect(future.text).toContain("received a sample whose timestamp is too far in the future");
    expect(future.text).toContain("(err-mimir-too-far-in-future)");
    const old = await m().push("ts", [
      { labels: { __name__: "ts_min" }, samples: [[INT64_MIN, 1]] },
      { labels: { __name__: "ts_ok2" }, samples: [[t, 8]] },
    ]);
    expect(old.status).toBe(400);
    expect(old.text).toContain("the sample has been rejected because its timestamp is too old (err-mimir-sample-timestamp-too-old)");
    // a new tenant's first sample at int64 min is refused too
    const first = await m().push("ts-empty", [{ labels: { __name__: "ts_min" }, samples: [[INT64_MIN, 1]] }]);
    expect(first.status).toBe(400);
    expect(first.text).toContain("(err-mimir-sample-timestamp-too-old)");
    expect((await m().query("ts", "ts_ok", t)).body.data.result[0].value[1]).toBe("7");
    expect((await m().query("ts", "ts_ok2", t)).body.data.result[0].value[1]).toBe("8");
    expect((await m().query("ts", "ts_max", t)).body.data.result).toEqual([]);
    expect((await m().get("/prometheus/api/v1/series", "ts-empty", { "match[]": "ts_min" })).body.data).toEqual([]);
  });
});
