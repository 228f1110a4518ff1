// Graceful shutdown: in-flight requests finish, /ready turns 503, and the
// drain is bounded by the shutdown timeout.
import { describe, expect, it } from "vitest";
import { createBaseApp } from "../../src/lib/http/base-app.ts";
import { renderPrometheusError } from "../../src/lib/http/prometheus-errors.ts";
import { createStoreApp } from "../../src/lib/http/store-app.ts";
import { createLifecycle } from "../../src/lib/lifecycle.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { listen } from "../../src/platform/listen.ts";

function slowApp() {
  const lifecycle = createLifecycle();
  const app = createBaseApp({ logger: silentLogger, lifecycle, maxBodyBytes: 1024, render: renderPrometheusError });
  let release!: () => void;
  const gate = new Promise<void>((r) => { release = r; });
  let entered!: () => void;
  const inside = new Promise<void>((r) => { entered = r; });
  app.get("/slow", async (c) => {
    entered();
    await gate;
    return c.text("finished");
  });
  return { app, lifecycle, release, inside };
}

describe("graceful shutdown", () => {
  it("an in-flight request completes while the listener stops accepting", async () => {
    const { app, lifecycle, release, inside } = slowApp();
    const listener = await listen(app.fetch, { host: "127.0.0.1", port: 0 });
    const pending = fetch(`${listener.url}/slow`);
    await inside;
    expect(lifecycle.inFlight()).toBe(1);
    lifecycle.markStopping();
    const closing = listener.close(false);
    const drained = lifecycle.drain(5_000);
    setTimeout(release, 50);
    const res = await pending;
    expect(res.status).toBe(200);
    expect(await res.text()).toBe("finished");
    expect(await drained).toBe(true);
    await Promise.race([closing, new Promise((r) => setTimeout(r, 1_000))]);
    await listener.close(true);
    await expect(fetch(`${listener.url}/slow`)).rejects.toThrow();
  });

  it("the drain gives up after the timeout", async () => {
    const { app, lifecycle, release, inside } = slowApp();
    const listener = await listen(app.fetch, { host: "127.0.0.1", port: 0 });
    const pending = fetch(`${listener.url}/slow`).catch(() => undefined);
    await inside;
    const started = Date.now();
    expect(await lifecycle.drain(100)).toBe(false);
    expect(Date.now() - started).toBeLessThan(2_000);
    release();
    await pending;
    await listener.close(true);
  });

  it("GET /ready while stopping -> 503 not ready", async () => {
    const lifecycle = createLifecycle();
    const app = createStoreApp({ service: "metrics", logger: silentLogger, lifecycle, maxBodyBytes: 1024 });
    expect((await app.request("/ready")).status).toBe(503); // starting
    lifecycle.markReady();
    expect(await (await app.request("/ready")).text()).toBe("ready\n");
    lifecycle.markStopping();
    const res = await app.request("/ready");
    expect(res.status).toBe(503);
    expect(await res.text()).toBe("not ready\n");
  });
});
