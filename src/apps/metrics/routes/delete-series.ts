// Prometheus's TSDB admin API for deleting series (web/api/v1 deleteSeries,
// cleanTombstones), for the caller's tenant: POST or PUT
// /api/v1/admin/tsdb/delete_series with match[] (one or more series
// selectors, required), start and end (default: all time) answers 204 No
// Content once the samples are gone from memory, the database and (for a
// restart) the write-ahead log. The deletion is applied at once, so
// clean_tombstones has nothing left to do and answers 204 as well. Errors are
// the Prometheus API's JSON (render-error.ts). In tokens mode both need the
// metrics:delete scope. Every deletion is logged at info with what it took.
import type { Context, Hono } from "hono";
import { Counter, type Registry } from "prom-client";
import { ApiError } from "../../../lib/errors.ts";
import type { Logger } from "../../../lib/logger.ts";
import { createSemaphore } from "../../../lib/semaphore.ts";
import { StoppingError } from "../core/deletion.ts";
import type { MetricsStore } from "../core/store.ts";
import { MAX_TIME, MIN_TIME, paramsOf, parseTimeParam } from "./params.ts";
import { parseSelector } from "./match-selectors.ts";
import { tenantOf, type TenantGate } from "./tenant.ts";

export interface DeleteSeriesDeps {
  store: MetricsStore;
  gate: TenantGate;
  logger: Logger;
  registry: Registry;
}

export function registerDeleteSeries(app: Hono, deps: DeleteSeriesDeps): void {
  const counter = (name: string, help: string) => new Counter({ name, help, labelNames: ["user"], registers: [deps.registry] });
  // Cortex's purger named its requests so
  const received = counter("cortex_purger_delete_requests_received_total", "delete_series requests received, by tenant.");
  const processed = counter("cortex_purger_delete_requests_processed_total", "delete_series requests carried out, by tenant.");
  const samples = counter("cortex_purger_deleted_samples_total", "Samples delete_series took out, by tenant.");
  const removed = counter("cortex_purger_removed_series_total", "Series delete_series left with no sample and removed, by tenant.");
  // one deletion at a time in the store (as Prometheus's DB.Delete holds its lock): many at once would each hold a walk's state
  const oneAtATime = createSemaphore(1);

  const deleteSeries = async (c: Context) => {
    const tenant = tenantOf(c, deps.gate, "metrics:delete");
    const p = await paramsOf(c);
    const matches = p.all("match[]");
    if (matches.length === 0) throw new ApiError(400, "no match[] parameter provided");
    const start = parseTimeParam(p.get("start"), "start") ?? MIN_TIME;
    const end = parseTimeParam(p.get("end"), "end") ?? MAX_TIME;
    // every selector checked before anything is deleted (Prometheus stops at the first bad one, having deleted the ones before)
    const unique = [...new Set(matches)];
    const selectors = unique.map(parseSelector);
    received.inc({ user: tenant });
    const t0 = performance.now();
    let r;
    try {
      r = await oneAtATime.run(() => deps.store.deleteSeries(tenant, selectors, start, end));
      // its record in the write-ahead log (a replay repeats it) is durable before the answer
      await deps.store.durable();
    } catch (err) {
      if (err instanceof StoppingError) throw new ApiError(503, err.message);
      throw err;
    }
    processed.inc({ user: tenant });
    samples.inc({ user: tenant }, r.samples);
    removed.inc({ user: tenant }, r.removedSeries);
    deps.logger.info("metrics series deleted", {
      tenant,
      match: unique,
      start: start === MIN_TIME ? "" : new Date(start).toISOString(),
      end: end === MAX_TIME ? "" : new Date(end).toISOString(),
      series: r.series,
      samples: r.samples,
      chunks: r.chunks,
      removedSeries: r.removedSeries,
      ms: Math.round(performance.now() - t0),
    });
    return c.body(null, 204);
  };
  // deletions take effect at once: no tombstone is left to clean
  const cleanTombstones = (c: Context) => {
    tenantOf(c, deps.gate, "metrics:delete");
    return c.body(null, 204);
  };

  for (const prefix of ["/prometheus/api/v1", "/api/v1"]) {
    app.on(["POST", "PUT"], `${prefix}/admin/tsdb/delete_series`, deleteSeries);
    app.on(["POST", "PUT"], `${prefix}/admin/tsdb/clean_tombstones`, cleanTombstones);
  }
}
