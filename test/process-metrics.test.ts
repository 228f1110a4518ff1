// Every listener's GET /metrics (dashboard, log store, metrics store: each its
// own scrape target, as each real product) shows the process metrics (CPU,
// memory, file descriptors, event-loop lag) under their standard names,
// unprefixed, from the very first scrape, though they are registered after
// the start rather than during it, and once only.
import { describe, expect, it } from "vitest";
import { useServer } from "./helpers/server.ts";

describe("process metrics on every listener's /metrics", () => {
  const ctx = useServer();
  const scrape = async (url: string) => {
    const res = await fetch(`${url}/metrics`);
    expect(res.status).toBe(200);
    return res.text();
  };
  const count = (text: string, line: RegExp) => text.split("\n").filter((l) => line.test(l)).length;

  it("the first scrape right after the start, and every later one, has them, each once, without a prefix", async () => {
    for (const url of [ctx.server.urls.dashboard, ctx.server.urls.logs!, ctx.server.urls.metrics!]) {
      for (let i = 0; i < 2; i++) {
        const text = await scrape(url);
        expect(count(text, /^# TYPE process_cpu_seconds_total counter$/)).toBe(1);
        expect(count(text, /^# TYPE process_cpu_user_seconds_total counter$/)).toBe(1);
        expect(count(text, /^process_resident_memory_bytes \d/)).toBe(1);
        expect(count(text, /^process_start_time_seconds \d/)).toBe(1);
        // Linux (/proc/self/fd), where the tests run
        expect(count(text, /^process_open_fds \d/)).toBe(1);
        expect(count(text, /^# TYPE nodejs_eventloop_lag_seconds gauge$/)).toBe(1);
        expect(text).not.toMatch(/^# TYPE svc_(logs|metrics)_process_/m);
      }
    }
  });
});
