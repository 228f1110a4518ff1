// What the metrics store's two push routes share (remote write, push.ts;
// OTLP, otlp.ts): the inflight limit over both, Mimir's Retry-After, and the
// pacing that gives a burst of pushes' garbage back.
import type { Context, MiddlewareHandler } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import type { TaskRunner } from "../../../lib/tasks.ts";
import { collectYoung, giveBackMemory, memoryPacer } from "../../../platform/memory.ts";
import type { IngestDeps } from "../core/ingest.ts";
import type { TenantGate } from "./tenant.ts";

export interface PushDeps extends IngestDeps {
  gate: TenantGate;
  /** largest decoded body (server.max_recv_msg_size) */
  maxRecvMsgSize: number;
  /** where large bodies are decoded (a worker of its own); undefined: on the event loop */
  decoder?: TaskRunner | undefined;
}

/** remote write 1.0 (and its legacy path) */
export const REMOTE_WRITE_PATHS = ["/api/v1/push", "/api/prom/push"] as const;
/** OTLP/HTTP metrics: Mimir's OTLPPushEndpoint (pkg/api), its only path (an otlphttp exporter's endpoint is then http://host:9009/otlp) */
export const OTLP_METRICS_PATH = "/otlp/v1/metrics";
const PUSH_PATHS = new Set<string>([...REMOTE_WRITE_PATHS, OTLP_METRICS_PATH]);

export const retryHeaders = (c: Context) => ({ "Retry-After": String(retryAfterSeconds(c.req.header("Retry-Attempt"))) });

/**
 * max_inflight_push_requests: pushes being received or ingested at once; one
 * more is refused with 503 before its body is read, so senders back off
 * while the server still has memory for those it took (0: unlimited).
 */
export function inflightPushLimit(max: number): MiddlewareHandler {
  let inflight = 0;
  return async (c, next) => {
    if (max <= 0 || c.req.method !== "POST" || !PUSH_PATHS.has(c.req.path)) return next();
    if (inflight >= max) throw new ApiError(503, "cannot push: too many inflight push requests in ingester", { headers: retryHeaders(c) });
    inflight++;
    try {
      await next();
    } finally {
      inflight--;
    }
  };
}

/** Mimir's Retry-After: exponential in the sender's Retry-Attempt (6 s doubling to 96 s), ±50 % jitter */
export function retryAfterSeconds(attemptHeader: string | undefined, random = Math.random): number {
  const attempt = Math.min(Math.max(Number.parseInt(attemptHeader ?? "1", 10) || 1, 1), 10);
  const base = Math.min(6 * 2 ** (attempt - 1), 96);
  return Math.max(3, Math.min(96, Math.round(base / 2 + random() * base)));
}

/** a push's garbage (its body, the arrays its decoding moved here) collected every so many bytes */
const RELEASE_EVERY_BYTES = 32 * 1024 * 1024;
const RELEASE_MIN_MS = 50;
/**
 * once pushes pause this long after a young collection, a full one is asked
 * for (without waiting for it): what a burst of pushes left behind (the
 * strings and arrays of new series, buffers whose release waits for the
 * engine's sweep) is given back then, not at the engine's own later time
 */
const SETTLE_MS = 300;

/** the pacing of one route's pushes: call it with the bytes each push will leave behind */
export function pushMemoryPacer(): (bytes: number) => void {
  let lastPush = 0;
  let waiting = false;
  const settle = () => {
    const quiet = performance.now() - lastPush;
    if (quiet < SETTLE_MS) return void later(SETTLE_MS - quiet);
    waiting = false;
    giveBackMemory();
  };
  const later = (ms: number) => (setTimeout(settle, ms) as { unref?: () => void }).unref?.();
  const release = memoryPacer(RELEASE_EVERY_BYTES, RELEASE_MIN_MS, () => {
    collectYoung();
    if (!waiting) {
      waiting = true;
      later(SETTLE_MS);
    }
  });
  return (bytes) => {
    lastPush = performance.now();
    release(bytes);
  };
}
