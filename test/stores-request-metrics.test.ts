// Both stores' GET /metrics count their requests in a duration histogram by
// method, route pattern and status (svc_request_duration_seconds,
// cortex_request_duration_seconds), in Prometheus's text format: cumulative
// buckets, +Inf equal to the count. Recorded by Outpost's own histogram since
// issue 17 (prom-client's cost per observation showed in the soak profile).
import { describe, expect, it } from "vitest";
import { useServer } from "./helpers/server.ts";
import { logClient, nsAgo } from "./logstore/helpers.ts";
import { metricsClient } from "./metrics/helpers.ts";

describe("request duration histograms on the stores' /metrics", () => {
  const ctx = useServer();
  const scrape = async (url: string) => {
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    return res.text();
  };
  const seriesOf = (text: string, name: string, labels: string) => {
    const buckets = [...text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)",${labels}\\} (\\S+)$`, "gm"))].map((m) => [m[1], Number(m[2])] as const);
    const one = (suffix: string) => Number(new RegExp(`^${name}_${suffix}\\{${labels}\\} (\\S+)$`, "m").exec(text)?.[1]);
    return { buckets, count: one("count"), sum: one("sum") };
  };

  it("three log pushes, two 404s, /ready and a refused URL, two metric pushes: counted by route pattern and status, buckets cumulative", async () => {
    const logs = logClient(ctx.server.urls.logs!);
    for (let i = 0; i < 3; i++) expect((await logs.push("h", [{ stream: { app: "h" }, values: [[nsAgo(1), `line ${i}`]] }])).status).toBe(204);
    for (let i = 0; i < 2; i++) expect((await fetch(`${ctx.server.urls.logs!}/svc/api/v1/nope`)).status).toBe(404);
    // every request is counted, /ready and one refused before its route too (issue 17: recorded by the outer layer)
    for (let i = 0; i < 2; i++) expect((await fetch(`${ctx.server.urls.logs!}/ready`)).status).toBe(200);
    expect((await fetch(`${ctx.server.urls.logs!}/svc/api/v1/labels?x=%00`)).status).toBe(400);
    const metrics = metricsClient(ctx.server.urls.metrics!);
    for (let i = 0; i < 2; i++) expect((await metrics.push("h", [{ labels: { __name__: "h_metric" }, samples: [[Date.now() - 1000 + i, i]] }])).status).toBe(200);

    const logText = await scrape(ctx.server.urls.logs!);
    expect(logText).toContain("# HELP svc_request_duration_seconds Time (in seconds) spent serving HTTP requests.\n# TYPE svc_request_duration_seconds histogram\n");
    const push = seriesOf(logText, "svc_request_duration_seconds", 'method="POST",route="/svc/api/v1/push",status_code="204"');
    expect(push.buckets.map(([le]) => le)).toEqual(["0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10", "+Inf"]);
    expect(push.count).toBe(3);
    expect(push.buckets.at(-1)![1]).toBe(3);
    expect(push.buckets.every(([, n], i) => i === 0 || n >= push.buckets[i - 1]![1])).toBe(true);
    expect(push.sum).toBeGreaterThan(0);
    expect(seriesOf(logText, "svc_request_duration_seconds", 'method="GET",route="/\\*",status_code="404"').count).toBe(2);
    expect(seriesOf(logText, "svc_request_duration_seconds", 'method="GET",route="/ready",status_code="200"').count).toBe(2);
    expect(seriesOf(logText, "svc_request_duration_seconds", 'method="GET",route="/\\*",status_code="400"').count).toBe(1);

    const metricText = await scrape(ctx.server.urls.metrics!);
    const remote = seriesOf(metricText, "cortex_request_duration_seconds", 'method="POST",route="/api/v1/push",status_code="200"');
    expect(remote.count).toBe(2);
    expect(remote.buckets.at(-1)![1]).toBe(2);
  });
});
