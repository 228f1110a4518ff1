// POST /api/v1/push (and the legacy /api/prom/push): Prometheus remote write
// 1.0. 200 with an empty body when everything was stored, as Mimir answers;
// errors are plain text; 429 and 5xx carry Retry-After so senders back off.
import type { Context, Hono, MiddlewareHandler } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { ingest, ingestPacked, type IngestDeps } from "../core/ingest.ts";
import type { TaskRunner } from "../../../lib/tasks.ts";
import { decodeWriteOn, unpackWriteRequest } from "../core/push-decode.ts";
import { collectYoung, giveBackMemory, memoryPacer } from "../../../platform/memory.ts";
import { tenantOf, type TenantGate } from "./tenant.ts";

export interface PushDeps extends IngestDeps {
  gate: TenantGate;
  /** largest decoded body (server.max_recv_msg_size) */
  maxRecvMsgSize: number;
  /** where large bodies are decoded (a worker of its own); undefined: on the event loop */
  decoder?: TaskRunner | undefined;
}

const PUSH_PATHS = new Set(["/api/v1/push", "/api/prom/push"]);
const retryHeaders = (c: Context) => ({ "Retry-After": String(retryAfterSeconds(c.req.header("Retry-Attempt"))) });

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

export function registerPush(app: Hono, deps: PushDeps): void {
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
  const push = async (c: Context) => {
    const tenant = tenantOf(c, deps.gate, "metrics:write");
    const type = c.req.header("Content-Type") ?? "";
    if (/proto=io\.prometheus\.write\.v2\.Request/i.test(type)) {
      throw new ApiError(415, "remote write 2.0 is not supported: send remote write 1.0 (application/x-protobuf)");
    }
    const raw = new Uint8Array(await c.req.arrayBuffer());
    lastPush = performance.now();
    // snappy bodies of series decode to ~4 times their size, and come back from the decoder as much again
    release(raw.length * 8);
    // series the tenant's head knows by their raw labels are not decoded into strings again
    const known = (key: number, check: number) => deps.store.peek(tenant)?.findRaw(key, check) !== undefined;
    const decoded = await decodeWriteOn(deps.decoder, raw, deps.maxRecvMsgSize, known);
    // the common push stored straight from its packed form; anything else through ingest()
    const result =
      ("packed" in decoded ? ingestPacked(deps, tenant, decoded.packed, raw) : undefined) ??
      ingest(deps, tenant, "packed" in decoded ? unpackWriteRequest(decoded.packed, known) : decoded.request, raw);
    if (result.appended) deps.gate.auth.wrote(c, result.appended, raw.length);
    if (result.status === 200) return c.body(null, 200);
    throw new ApiError(result.status, result.message ?? "", result.status === 429 ? { headers: retryHeaders(c) } : {});
  };
  for (const path of PUSH_PATHS) app.post(path, push);
}
