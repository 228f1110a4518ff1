// POST /svc/api/v1/push (and the legacy /api/prom/push): JSON, gzip JSON or
// protobuf + snappy; 204 when everything was stored (reference §2).
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { ingest, type IngestDeps } from "../core/ingest.ts";
import { decodePushOn } from "../core/push-tasks.ts";
import type { TaskRunner } from "../../../lib/tasks.ts";
import { memoryPacer } from "../../../platform/memory.ts";
import type { StoreAuth } from "../../../store-access/http.ts";

/**
 * the runtime is asked to collect after every 8 MiB of push bodies, at most 10 times a second
 * (platform/memory.ts): at 80 MB/s of pushes the peak RSS of a 3 GB ingest went from ~1.7 to ~1.3 GiB
 */
const RELEASE_EVERY_BYTES = 8 * 1024 * 1024;
const RELEASE_MIN_MS = 100;

/**
 * `maxRecvMsgSize`: the largest decoded body (server.max_recv_msg_size); `decoder`: where large
 * bodies are decoded (push-tasks.ts; undefined: on this thread)
 */
export function registerPush(app: Hono, deps: IngestDeps, auth: StoreAuth, maxRecvMsgSize: number, decoder?: TaskRunner): void {
  const release = memoryPacer(RELEASE_EVERY_BYTES, RELEASE_MIN_MS);
  const push = async (c: Context) => {
    const tenant = auth.tenant(c, "logs:write");
    // more cut chunks wait to be written than memory should hold: this push waits for the
    // writes, its body still unread (ingest slows to what the store can write)
    await deps.store.admit();
    const body = new Uint8Array(await c.req.arrayBuffer());
    release(body.length);
    const contentType = c.req.header("Content-Type");
    const contentEncoding = c.req.header("Content-Encoding");
    const streams = await decodePushOn(decoder, { body, contentType, contentEncoding, maxBytes: maxRecvMsgSize });
    const result = await ingest(deps, tenant, streams, { body, contentType, contentEncoding });
    if (result.status === 204) {
      auth.wrote(c, streams.reduce((n, s) => n + s.entries.length, 0), body.length);
      return c.body(null, 204);
    }
    throw new ApiError(result.status, result.message ?? "");
  };
  app.post("/svc/api/v1/push", push);
  app.post("/api/prom/push", push);
}
