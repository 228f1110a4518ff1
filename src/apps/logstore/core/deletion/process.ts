// Delete requests end to end (the real product's compactor deletion,
// pkg/compactor/deletion): made, listed and cancelled through the routes,
// filtered out of queries while pending, and processed — their lines removed
// from chunks, heads and the write-ahead log — once their cancellation period
// has passed, for tenants whose deletion_mode is filter-and-delete.
//
// A pass (every compaction interval) takes up to DELETE_BATCH requests past
// their cancellation period, oldest first. For each: the heads of its streams
// are cut and written (chunk-rewrite.ts settle), then its streams' chunks in
// its range are checked in groups of CHUNK_BATCH by the worker pool
// (tasks.ts: decode, match, encode what is kept), each group committed in one
// transaction (replace). Once every request of the pass is done, the
// write-ahead log starts over and the segment files holding replaced chunks
// are compacted (seal); only then are the requests marked processed, so a
// crash at any point leaves them pending, to be done again (a request is
// idempotent) — and filtered out of queries meanwhile.
import { setImmediate } from "node:timers";
import { ApiError } from "../../../../lib/errors.ts";
import type { Logger } from "../../../../lib/logger.ts";
import { formatRfc3339 } from "../../../../lib/units.ts";
import { inlineRunner, type TaskRunner } from "../../../../lib/tasks.ts";
import type { ChunkChange } from "../chunk-rewrite.ts";
import type { Limits } from "../limits.ts";
import type { Source } from "../logql/evaluate.ts";
import { matchesAll } from "../logql/pipeline.ts";
import type { LogStore, Stream } from "../store.ts";
import type { DeletionMetrics } from "./metrics.ts";
import { hasFilter, prematch, readDeleteSpec } from "./query.ts";
import { viewOf, type DeleteRequest, type DeleteRequests, type DeleteRequestView } from "./requests.ts";
import { deletionTasks, type DeleteLinesInput, type DeleteLinesResult } from "./tasks.ts";

/** requests processed in one pass at most (Loki's -compactor.delete-batch-size) */
const DELETE_BATCH = 70;
/** chunks one task checks and one transaction replaces */
const CHUNK_BATCH = 8;

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export interface DeletionDeps {
  requests: DeleteRequests;
  store: LogStore;
  limits: (tenant: string) => Limits;
  /** the worker pool (chunks decoded and encoded off the event loop); this thread when absent */
  runner?: TaskRunner | undefined;
  logger: Logger;
  now: () => number;
  metrics: DeletionMetrics;
  /** logs.compactor.*: how long a request may be cancelled, the largest max_interval, how often requests are processed */
  cancelPeriodMs: number;
  maxIntervalMs: number;
  intervalMs: number;
}

export interface Deletion {
  /** POST /loki/api/v1/delete: `param` reads the request's parameters */
  create(tenant: string, param: (name: string) => string | undefined): Promise<DeleteRequestView>;
  /** GET: the tenant's requests, oldest first */
  list(tenant: string): DeleteRequestView[];
  /** DELETE: cancels a request (`force`: past its cancellation period too) */
  cancel(tenant: string, id: string, force: boolean): Promise<void>;
  /** a tenant's pending requests, as queries leave their lines out (none when its deletion_mode is disabled) */
  active: NonNullable<Source["deletes"]>;
  /** one pass now (what the timer runs); passes never overlap */
  run(): Promise<void>;
  stop(): Promise<void>;
}

/** the 403 of a tenant whose deletion_mode is disabled (tenant_request_handler.go) */
export const deletionDisabled = () => new ApiError(403, "deletion is not available for this tenant");

export function createDeletion(d: DeletionDeps): Deletion {
  const { requests, store, logger, now, metrics } = d;
  const runner = d.runner ?? inlineRunner(deletionTasks);
  const mode = (tenant: string) => d.limits(tenant).deletion_mode;
  // what the audit lines say of a request (never the lines it deletes)
  // the stream selector only: a request's line filters often hold the very secret being deleted
  const about = (r: DeleteRequest) => ({
    tenant: r.tenant,
    request_id: r.id,
    selector: `{${r.parsed.matchers.map((m) => `${m.name}${m.op}${JSON.stringify(m.value)}`).join(", ")}}`,
    filters: r.parsed.stages.length,
    start: formatRfc3339(BigInt(r.startMs) * 1_000_000n),
    end: formatRfc3339(BigInt(r.endMs) * 1_000_000n),
  });
  const eligible = (r: DeleteRequest) => mode(r.tenant) === "filter-and-delete" && r.createdMs + d.cancelPeriodMs < now();
  metrics.watchPending(() => {
    const waiting = requests.unprocessed().filter(eligible);
    // oldest first (unprocessed() is sorted by creation)
    return { count: waiting.length, oldestEligibleMs: waiting.length ? waiting[0]!.createdMs + d.cancelPeriodMs : undefined };
  }, now);

  let stopping = false;
  const ctl = new AbortController();

  /** checks a group of one stream's chunks against a request and replaces what changes; the entries deleted */
  const processChunks = async (r: DeleteRequest, stream: Stream, group: Stream["chunks"], from: bigint, to: bigint): Promise<number> => {
    const changes: ChunkChange[] = [];
    const inputs: DeleteLinesInput[] = [];
    const checked: Stream["chunks"] = [];
    const request = { query: r.query, from, to };
    for (const chunk of group) {
      // no filter and the whole chunk in range: it goes without being read (delete_request.go IsDeleted)
      if (!hasFilter(r.parsed) && chunk.from >= from && chunk.to <= to) {
        changes.push({ chunk, removed: chunk.lines, removedBytes: chunk.bytes });
        continue;
      }
      const source = await store.chunkSource(chunk);
      if (!source) continue;
      inputs.push({ source, request, labels: stream.labels });
      checked.push(chunk);
    }
    if (inputs.length) {
      const results = await runner.run<DeleteLinesResult[]>("deleteLines", inputs, { signal: ctl.signal, priority: "background" });
      results.forEach((res, k) => {
        const chunk = checked[k]!;
        if (res.corrupt !== undefined) {
          // unreadable: queries skip it too; what it holds cannot be told apart
          store.reportCorrupt(chunk, res.corrupt);
          logger.warn("a corrupt log chunk could not be checked for a delete request", { ...about(r), chunk: chunk.id });
          return;
        }
        if (res.removed) changes.push({ chunk, blob: res.blob, removed: res.removed, removedBytes: res.removedBytes, from: res.from, to: res.to });
      });
    }
    if (!changes.length) return 0;
    const removed = await store.rewriter.replace(stream, changes);
    metrics.deletedLines(r.tenant, removed);
    return removed;
  };

  /** removes a request's lines from the chunks (not yet the write-ahead log: seal); undefined when it was cancelled or the store stops */
  const processRequest = async (r: DeleteRequest): Promise<number | undefined> => {
    const from = BigInt(r.startMs) * 1_000_000n;
    const to = BigInt(r.endMs) * 1_000_000n;
    const streams = store.streams(r.tenant).filter((s) => matchesAll(r.parsed.matchers, s.labels));
    if (!streams.length) return 0;
    logger.info("log delete request processing", about(r));
    // everything of these streams in the range is in stored chunks from here on
    await store.rewriter.settle(streams, from, to);
    let removed = 0;
    for (const stream of streams) {
      const chunks = stream.chunks.filter((c) => c.to >= from && c.from <= to);
      for (let at = 0; at < chunks.length; at += CHUNK_BATCH) {
        if (r.cancelled || stopping) return undefined;
        removed += await processChunks(r, stream, chunks.slice(at, at + CHUNK_BATCH), from, to);
        await nextTurn();
      }
    }
    return removed;
  };

  /** a pass removed lines but a backup kept the write-ahead log from starting over */
  let walStillHolds = false;
  const pass = async () => {
    const todo = requests.unprocessed().filter(eligible).slice(0, DELETE_BATCH);
    const done: Array<[DeleteRequest, number]> = [];
    let removedAny = false;
    for (const r of todo) {
      if (stopping) return;
      // wholly past the tenant's retention: nothing is left to delete (delete_requests_manager.go)
      const retention = d.limits(r.tenant).retention_period;
      const removed = retention > 0 && r.endMs < now() - retention ? 0 : await processRequest(r);
      if (removed === undefined) continue;
      done.push([r, removed]);
      if (removed > 0) removedAny = true;
    }
    if (stopping) return;
    // the deleted lines leave the write-ahead log and the old segment files, then the requests are done
    const walHolds = removedAny || walStillHolds;
    if (walHolds || store.rewriter.pending()) {
      if (!(await store.rewriter.seal(walHolds))) {
        // a backup holds the old write-ahead segments, deleted lines in them: the requests stay
        // pending (filtered from queries) and the log starts over at the next pass
        walStillHolds = true;
        logger.info("log delete requests wait for a backup to end before they are processed");
        return;
      }
      walStillHolds = false;
    }
    for (const [r, removed] of done) {
      if (r.cancelled) continue;
      await requests.complete(r, removed);
      metrics.processed(r.tenant);
      logger.info("log delete request processed", { ...about(r), deleted_lines: removed });
    }
  };

  let running: Promise<void> | undefined;
  const run = () =>
    (running ??= pass()
      .catch((err: unknown) => {
        if (stopping) return;
        metrics.failed("error");
        logger.error("processing log delete requests failed; they stay pending and are tried again", { err: String(err) });
      })
      .finally(() => (running = undefined)));
  const timer = setInterval(() => void run(), d.intervalMs);
  (timer as { unref?: () => void }).unref?.();

  return {
    async create(tenant, param) {
      const spec = readDeleteSpec(param, now(), d.maxIntervalMs);
      const r = await requests.add(tenant, spec);
      metrics.received(tenant);
      logger.info("log delete request received", about(r));
      // matched against the tenant's streams in the background, before queries need it
      void prematch(() => store.streams(tenant), requests.active(tenant)).catch(() => undefined);
      return viewOf(r);
    },
    list: (tenant) => requests.list(tenant).map(viewOf),
    async cancel(tenant, id, force) {
      const r = await requests.cancel(tenant, id, force, d.cancelPeriodMs);
      logger.info("log delete request cancelled", { ...about(r), force });
    },
    active: (tenant) => (mode(tenant) === "disabled" ? [] : requests.active(tenant)),
    run,
    async stop() {
      clearInterval(timer);
      stopping = true;
      ctl.abort();
      await running;
    },
  };
}
