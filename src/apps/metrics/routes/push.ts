// POST /api/v1/push (and the legacy /api/prom/push): Prometheus remote write
// 1.0. 200 with an empty body when everything was stored, as Mimir answers;
// errors are plain text; 429 and 5xx carry Retry-After so senders back off.
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { ingest, ingestPacked } from "../core/ingest.ts";
import { decodeWriteOn, unpackWriteRequest } from "../core/push-decode.ts";
import { type PushDeps, pushMemoryPacer, REMOTE_WRITE_PATHS, retryHeaders } from "./push-shared.ts";
import { tenantOf } from "./tenant.ts";

export function registerPush(app: Hono, deps: PushDeps): void {
  const paced = pushMemoryPacer();
  const push = async (c: Context) => {
    const tenant = tenantOf(c, deps.gate, "metrics:write");
    const type = c.req.header("Content-Type") ?? "";
    if (/proto=io\.prometheus\.write\.v2\.Request/i.test(type)) {
      throw new ApiError(415, "remote write 2.0 is not supported: send remote write 1.0 (application/x-protobuf)");
    }
    const raw = new Uint8Array(await c.req.arrayBuffer());
    // snappy bodies of series decode to ~4 times their size, and come back from the decoder as much again
    paced(raw.length * 8);
    // series the tenant's head knows by their raw labels are not decoded into strings again
    const known = (key: number, check: number) => deps.store.peek(tenant)?.findRaw(key, check) !== undefined;
    const decoded = await decodeWriteOn(deps.decoder, raw, deps.maxRecvMsgSize, known);
    // the common push stored straight from its packed form; anything else through ingest()
    const result =
      ("packed" in decoded ? ingestPacked(deps, tenant, decoded.packed, raw) : undefined) ??
      ingest(deps, tenant, "packed" in decoded ? unpackWriteRequest(decoded.packed, known) : decoded.request, raw);
    // acknowledged only once in the write-ahead log for good (at once for its files; a shared log commits)
    if (result.appended) await deps.store.durable();
    if (result.appended) deps.gate.auth.wrote(c, result.appended, raw.length);
    if (result.status === 200) return c.body(null, 200);
    throw new ApiError(result.status, result.message ?? "", result.status === 429 ? { headers: retryHeaders(c) } : {});
  };
  for (const path of REMOTE_WRITE_PATHS) app.post(path, push);
}
