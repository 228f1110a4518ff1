// POST /api/v1/push (and the legacy /api/prom/push): Prometheus remote write
// 1.0. 200 with an empty body when everything was stored, as Mimir answers;
// errors are plain text; 429 and 5xx carry Retry-After so senders back off.
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { ingest, type IngestDeps } from "../core/ingest.ts";
import { decodeWriteRequest, uncompressBody } from "../core/remote-write.ts";
import { tenantOf, type TenantGate } from "./tenant.ts";

export interface PushDeps extends IngestDeps {
  gate: TenantGate;
  /** pushes handled at once before more are refused (0: unlimited) */
  maxInflight: number;
}

/** Mimir's Retry-After: exponential in the sender's Retry-Attempt (6 s doubling to 96 s), ±50 % jitter */
export function retryAfterSeconds(attemptHeader: string | undefined, random = Math.random): number {
  const attempt = Math.min(Math.max(Number.parseInt(attemptHeader ?? "1", 10) || 1, 1), 10);
  const base = Math.min(6 * 2 ** (attempt - 1), 96);
  return Math.max(3, Math.min(96, Math.round(base / 2 + random() * base)));
}

export function registerPush(app: Hono, deps: PushDeps): void {
  let inflight = 0;
  const retry = (c: Context) => ({ "Retry-After": String(retryAfterSeconds(c.req.header("Retry-Attempt"))) });
  const push = async (c: Context) => {
    const tenant = tenantOf(c, deps.gate);
    const type = c.req.header("Content-Type") ?? "";
    if (/proto=io\.prometheus\.write\.v2\.Request/i.test(type)) {
      throw new ApiError(415, "remote write 2.0 is not supported: send remote write 1.0 (application/x-protobuf)");
    }
    if (deps.maxInflight > 0 && inflight >= deps.maxInflight) {
      throw new ApiError(503, "cannot push: too many inflight push requests in ingester", { headers: retry(c) });
    }
    inflight++;
    try {
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const request = decodeWriteRequest(uncompressBody(raw));
      const result = ingest(deps, tenant, request, raw);
      if (result.status === 200) return c.body(null, 200);
      throw new ApiError(result.status, result.message ?? "", result.status === 429 ? { headers: retry(c) } : {});
    } finally {
      inflight--;
    }
  };
  app.post("/api/v1/push", push);
  app.post("/api/prom/push", push);
}
