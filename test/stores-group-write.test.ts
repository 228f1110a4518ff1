// Pushes that arrive together share one write-ahead write (issue 17: a write
// per push was a visible share of a push's cost under load); each is still
// answered only once its record is in the file, so kill -9 right after the
// answers loses none of them — log pushes and metric pushes alike.
import { describe, expect, it } from "vitest";
import { useDataDirServer } from "./helpers/process.ts";
import { logClient, nsAgo } from "./logstore/helpers.ts";
import { metricsClient } from "./metrics/helpers.ts";

describe("write-ahead group writes", () => {
  const { start } = useDataDirServer("outpost-group-write-");

  it("40 log pushes and 40 metric pushes sent at once, all acknowledged, all there after kill -9", async () => {
    const first = await start();
    const logs = logClient(first.urls.logs!);
    const metrics = metricsClient(first.urls.metrics!);
    const t0 = Date.now() - 30 * 60_000;
    const sent: string[] = [];
    const pushes: Array<Promise<number>> = [];
    for (let i = 0; i < 40; i++) {
      const values: Array<[string, string]> = Array.from({ length: 5 }, (_, j) => [nsAgo(100 - i - j / 10), `group ${i}-${j}`]);
      sent.push(...values.map((v) => v[1]));
      pushes.push(logs.push("group", [{ stream: { app: "g", sender: String(i % 4) }, values }]).then((r) => r.status));
      const series = [{ labels: { __name__: "g_metric", sender: String(i) }, samples: [[t0, i], [t0 + 10_000, i + 1]] as Array<[number, number]> }];
      pushes.push(metrics.push("group", series).then((r) => r.status));
    }
    const statuses = await Promise.all(pushes);
    expect(statuses.filter((s, i) => s !== (i % 2 ? 200 : 204))).toEqual([]);
    await first.stop("SIGKILL");

    const second = await start();
    const read = await logClient(second.urls.logs!).get("/svc/api/v1/query_range", "group", { query: '{app="g"}', direction: "forward", limit: "5000", since: "1h" });
    expect(read.status).toBe(200);
    const lines = (read.body.data.result as Array<{ values: string[][] }>).flatMap((s) => s.values.map((v) => v[1]));
    expect(lines.sort()).toEqual([...sent].sort());
    const count = await metricsClient(second.urls.metrics!).query("group", "count(count_over_time(g_metric[1h]))", t0 + 10_000);
    expect(count.body.data.result).toMatchObject([{ value: [expect.anything(), "40"] }]);
    const samples = await metricsClient(second.urls.metrics!).query("group", "sum(count_over_time(g_metric[1h]))", t0 + 10_000);
    expect(samples.body.data.result).toMatchObject([{ value: [expect.anything(), "80"] }]);
    expect(await second.stop("SIGTERM")).toBe(0);
  }, 180_000);
});
