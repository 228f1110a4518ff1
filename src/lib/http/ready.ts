// GET /ready as Loki and Mimir answer it: plain text, 200 once running,
// 503 while starting or shutting down.
import type { Hono } from "hono";
import type { Lifecycle } from "../lifecycle.ts";

export function registerReady(app: Hono, lifecycle: Lifecycle): void {
  app.get("/ready", (c) =>
    lifecycle.isReady() ? c.text("ready\n", 200) : c.text("not ready\n", 503),
  );
}
