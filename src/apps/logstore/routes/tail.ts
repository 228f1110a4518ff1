// GET /svc/api/v1/tail (and /loki/api/v1/tail): Loki's live tail, a
// WebSocket (reference §3; Loki's querier TailHandler). Everything is checked
// on the handshake request, before upgrading: credentials and the one tenant
// (`logs:read`; several tenants: 400 `multiple org IDs present`), the
// parameters as Loki's ParseTailQuery reads them, the limits, and then the
// handshake itself (a plain GET: gorilla/websocket's 400 `Bad Request`).
// Then core/tail.ts sends the messages.
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { queryParams } from "../../../lib/http/query.ts";
import { handshakeProblem, upgradeWebSocket } from "../../../platform/websocket.ts";
import type { StoreAuth } from "../../../store-access/http.ts";
import type { Limits } from "../core/limits.ts";
import { runLogQuery } from "../core/logql/evaluate.ts";
import { parseLogQL } from "../core/logql/parse.ts";
import { startTail } from "../core/tail.ts";
import type { TailHub } from "../core/tail-hub.ts";
import { parseDelayFor, parseLimit, parseTime } from "./params.ts";
import { CATEGORIZE_LABELS, encodingFlagsOf, type QueryRunner } from "./query-runner.ts";

export interface TailDeps {
  hub: TailHub;
  /** the queue and limits the history query runs under (shared with query.ts) */
  queries: QueryRunner;
  auth: StoreAuth;
  limits: (tenant: string) => Limits;
  now: () => number;
  /** a tail ends after this long (ms; Loki's querier.tail_max_duration) */
  maxDurationMs: number;
}

const bad = (message: string) => new ApiError(400, message);
/** Loki's default start: an hour ago */
const DEFAULT_SINCE_NS = 3_600_000_000_000n;

export function registerTail(app: Hono, deps: TailDeps): void {
  const tail = (c: Context) => {
    const tenant = deps.auth.tenant(c, "logs:read");
    const p = queryParams(c);
    const query = parseLogQL(p.one("query") ?? "");
    const limit = parseLimit(p.one("limit"));
    const now = BigInt(deps.now()) * 1_000_000n;
    const start = parseTime(p.one("start"), "start", now - DEFAULT_SINCE_NS);
    parseTime(p.one("end"), "end", now);
    const delaySeconds = parseDelayFor(p.one("delay_for"));
    // Loki says so when it selects the history (querier.Tail), after upgrading: here before
    if (query.kind !== "log") throw bad("only log selector is supported");
    deps.queries.checkEntries([tenant], limit);
    deps.queries.checkLength([tenant], start, now);
    const problem = handshakeProblem(c.req.raw);
    if (problem) throw new ApiError(problem.status, problem.body, { headers: { "Sec-Websocket-Version": "13" } });
    const release = deps.hub.admit(tenant, deps.limits(tenant).max_concurrent_tail_requests);
    const flags = encodingFlagsOf(c);
    const categorized = flags.includes(CATEGORIZE_LABELS);
    let session: { stop(): void } | undefined;
    const response = upgradeWebSocket(c.req.raw, {
      open(peer) {
        session = startTail({
          hub: deps.hub,
          tenant,
          query,
          delayMs: delaySeconds * 1000,
          maxDurationMs: deps.maxDurationMs,
          categorized,
          flags,
          maxTemplateOutput: deps.queries.sourceOf([tenant]).maxTemplateOutput,
          now: deps.now,
          history: (end, signal) => deps.queries.limited(signal, [tenant], (src) => runLogQuery(src, query, start, end + 1n, limit, true, categorized)),
          sink: peer,
          ended: release,
        });
      },
      close() {
        session?.stop();
        release();
      },
    });
    if (!response) {
      release();
      throw new ApiError(400, "Bad Request", { headers: { "Sec-Websocket-Version": "13" } });
    }
    deps.auth.queried(c);
    return response;
  };
  app.get("/svc/api/v1/tail", tail);
  app.post("/svc/api/v1/tail", tail);
}
