// Both stores' GET /metrics show the process metrics (CPU, memory, event-loop
// lag) under their own prefix from the very first scrape, though they are
// registered after the start rather than during it, and once only.
import { describe, expect, it } from "vitest";
import { useServer } from "./helpers/server.ts";

describe("process metrics on the stores' /metrics", () => {
  const ctx = useServer();
  const scrape = async (url: string) => {
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };
  const count = (text: string, line: RegExp) => text.split("\n").filter((l) => line.test(l)).length;

  it("the first scrape right after the start, and every later one, has them, each once", async () => {
    for (const [url, prefix] of [[ctx.server.urls.logs!, "svc_logs_"], [ctx.server.urls.metrics!, "svc_metrics_"]] as const) {
      for (let i = 0; i < 2; i++) {
        const text = await scrape(url);
        expect(count(text, new RegExp(`^# TYPE ${prefix}process_cpu_user_seconds_total counter$`))).toBe(1);
        expect(count(text, new RegExp(`^${prefix}process_resident_memory_bytes \\d`))).toBe(1);
        expect(count(text, new RegExp(`^# TYPE ${prefix}nodejs_eventloop_lag_seconds gauge$`))).toBe(1);
      }
    }
  });
});
