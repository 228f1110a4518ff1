// The log store's delete requests, kept in PGlite (log_delete_requests,
// migration 19) so they survive restarts, and in memory (loaded at start,
// changed by each write) for the queries that filter with the pending ones.
// Ids, statuses and the list's shape are the real product's
// (pkg/compactor/deletion: delete_requests_store.go, request_handler.go).
import type { Sql } from "../../../../db/sql.ts";
import { ApiError } from "../../../../lib/errors.ts";
import type { LogQuery } from "../logql/parse.ts";
import { goDurationText, parseDeleteQuery, type ActiveDelete, type DeleteSpec } from "./query.ts";

export interface DeleteRequest {
  tenant: string;
  id: string;
  query: string;
  parsed: LogQuery;
  /** the range deleted, ms, both ends included */
  startMs: number;
  endMs: number;
  createdMs: number;
  /** when its lines were removed; undefined while pending */
  processedMs: number | undefined;
  deletedLines: number;
  /** set when it is cancelled: processing it stops */
  cancelled?: boolean;
}

/** a request as GET /loki/api/v1/delete lists it: times in seconds, as Go's model.Time marshals */
export interface DeleteRequestView {
  request_id: string;
  start_time: number;
  end_time: number;
  query: string;
  status: string;
  created_at: number;
  user_id: string;
}

/** unprocessed requests a tenant may hold: each one is checked by every query of its streams (not a limit of the real product) */
export const MAX_PENDING_PER_TENANT = 1000;

export interface DeleteRequests {
  /** a tenant's requests, oldest first */
  list(tenant: string): DeleteRequest[];
  /** every request not yet processed, oldest first */
  unprocessed(): DeleteRequest[];
  /** a tenant's unprocessed requests, as queries filter with them (kept until one changes) */
  active(tenant: string): readonly ActiveDelete[];
  add(tenant: string, spec: DeleteSpec): Promise<DeleteRequest>;
  /**
   * Cancels a request (request_handler.go CancelDeleteRequestHandler): 404
   * when the tenant has none with that id; a processed one, or one past its
   * cancellation period without `force`, is refused with Loki's 400s.
   */
  cancel(tenant: string, id: string, force: boolean, cancelPeriodMs: number): Promise<DeleteRequest>;
  /** the request's lines are gone: it is processed */
  complete(r: DeleteRequest, deletedLines: number): Promise<void>;
}

export const viewOf = (r: DeleteRequest): DeleteRequestView => ({
  request_id: r.id,
  start_time: r.startMs / 1000,
  end_time: r.endMs / 1000,
  query: r.query,
  status: r.processedMs === undefined ? "received" : "processed",
  created_at: r.createdMs / 1000,
  user_id: r.tenant,
});

/** Go's hash/fnv New32 (FNV-1) */
function fnv32(parts: Uint8Array[]): number {
  let h = 0x811c9dc5;
  for (const p of parts) for (const b of p) h = (Math.imul(h, 0x01000193) ^ b) >>> 0;
  return h >>> 0;
}

const encoder = new TextEncoder();

/** generateUniqueID: FNV-32 of the tenant, the time in ns (little-endian) and the query, as 8 hex digits */
function requestId(tenant: string, nowNs: bigint, query: string): string {
  const time = new Uint8Array(8);
  new DataView(time.buffer).setBigUint64(0, BigInt.asUintN(64, nowNs), true);
  return fnv32([encoder.encode(tenant), time, encoder.encode(query)]).toString(16).padStart(8, "0");
}

export async function openDeleteRequests(pg: Sql, now: () => number): Promise<DeleteRequests> {
  const byTenant = new Map<string, Map<string, DeleteRequest>>();
  const actives = new Map<string, readonly ActiveDelete[]>();
  const activeOf = new WeakMap<DeleteRequest, ActiveDelete>();
  let seq = 0;
  /** a request no longer filters: queries' per-stream lists drop it (deletion/query.ts touchingOf) */
  const retire = (r: DeleteRequest) => {
    const a = activeOf.get(r);
    if (a) a.gone = true;
  };
  const remember = (r: DeleteRequest) => {
    let m = byTenant.get(r.tenant);
    if (!m) byTenant.set(r.tenant, (m = new Map()));
    m.set(r.id, r);
    actives.delete(r.tenant);
  };
  const rows = await pg.query<{ tenant: string; request_id: string; query: string; start_ms: string; end_ms: string; created_ms: string; processed_ms: string | null; deleted_lines: string }>(
    "select tenant, request_id, query, start_ms::text, end_ms::text, created_ms::text, processed_ms::text, deleted_lines::text from log_delete_requests order by created_ms, request_id",
  );
  for (const row of rows.rows) {
    remember({
      tenant: row.tenant,
      id: row.request_id,
      query: row.query,
      // checked when it was made; the grammar is the same
      parsed: parseDeleteQuery(row.query),
      startMs: Number(row.start_ms),
      endMs: Number(row.end_ms),
      createdMs: Number(row.created_ms),
      processedMs: row.processed_ms === null ? undefined : Number(row.processed_ms),
      deletedLines: Number(row.deleted_lines),
    });
  }
  const list = (tenant: string) => [...(byTenant.get(tenant)?.values() ?? [])].sort((a, b) => a.createdMs - b.createdMs);
  // ids drawn in one millisecond (a test clock that stands still) still differ
  let salt = 0n;
  return {
    list,
    unprocessed: () => [...byTenant.values()].flatMap((m) => [...m.values()]).filter((r) => r.processedMs === undefined).sort((a, b) => a.createdMs - b.createdMs),
    active(tenant) {
      let a = actives.get(tenant);
      if (!a) {
        const ns = 1_000_000n;
        // one object per request for its life: queries remember which requests they matched a stream against
        a = list(tenant)
          .filter((r) => r.processedMs === undefined)
          .map((r) => activeOf.get(r) ?? activeOf.set(r, { query: r.query, from: BigInt(r.startMs) * ns, to: BigInt(r.endMs) * ns, matchers: r.parsed.matchers, stages: r.parsed.stages, seq: seq++ }).get(r)!);
        actives.set(tenant, a);
      }
      return a;
    },
    async add(tenant, spec) {
      const own = byTenant.get(tenant);
      const pending = [...(own?.values() ?? [])].filter((r) => r.processedMs === undefined).length;
      if (pending >= MAX_PENDING_PER_TENANT) {
        throw new ApiError(429, `too many delete requests waiting to be processed for this tenant (limit: ${MAX_PENDING_PER_TENANT}); cancel some or wait for them to be processed`);
      }
      const createdMs = now();
      let id: string;
      do id = requestId(tenant, BigInt(createdMs) * 1_000_000n + salt++, spec.query);
      while (own?.has(id));
      await pg.query(
        "insert into log_delete_requests (tenant, request_id, query, start_ms, end_ms, created_ms) values ($1, $2, $3, $4, $5, $6)",
        [tenant, id, spec.query, spec.startMs, spec.endMs, createdMs],
      );
      const r: DeleteRequest = { tenant, id, query: spec.query, parsed: spec.parsed, startMs: spec.startMs, endMs: spec.endMs, createdMs, processedMs: undefined, deletedLines: 0 };
      remember(r);
      return r;
    },
    async cancel(tenant, id, force, cancelPeriodMs) {
      const r = byTenant.get(tenant)?.get(id);
      if (!r) throw new ApiError(404, "could not find delete request with given id");
      if (r.processedMs !== undefined) throw new ApiError(400, "deletion of request which is in process or already processed is not allowed");
      if (r.createdMs + cancelPeriodMs < now() && !force) {
        throw new ApiError(
          400,
          `Cancellation of partially completed delete request or delete request past the deadline of ${goDurationText(cancelPeriodMs)} since its creation is not allowed. To force, use the ?force query parameter`,
        );
      }
      await pg.query("delete from log_delete_requests where tenant = $1 and request_id = $2", [tenant, id]);
      r.cancelled = true;
      retire(r);
      byTenant.get(tenant)!.delete(id);
      actives.delete(tenant);
      return r;
    },
    async complete(r, deletedLines) {
      const at = now();
      await pg.query("update log_delete_requests set processed_ms = $3, deleted_lines = $4 where tenant = $1 and request_id = $2", [r.tenant, r.id, at, deletedLines]);
      r.processedMs = at;
      r.deletedLines = deletedLines;
      retire(r);
      actives.delete(r.tenant);
    },
  };
}
