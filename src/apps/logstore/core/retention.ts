// Retention: whole chunks whose newest entry is older than the tenant's
// retention_period are deleted, every compaction interval (0 keeps
// everything). Each pass records what it did, so the admin page and /metrics
// show retention being applied: the last successful pass, the chunks it
// deleted by tenant, and (user-stats.ts) the oldest entry each tenant holds.
import type { Logger } from "../../../lib/logger.ts";
import type { Limits } from "./limits.ts";
import type { RetentionState } from "./metrics.ts";
import { oldestByTenant } from "./user-stats.ts";
import type { LogStore } from "./store.ts";

export interface RetentionDeps {
  store: Pick<LogStore, "deleteChunksBefore" | "reclaimSpace">;
  limits: (tenant: string) => Limits;
  logger: Logger;
  now: () => number;
  /** chunks deleted for a tenant by one pass, for /metrics */
  onDeleted?: ((tenant: string, chunks: number) => void) | undefined;
}

/** one pass over the given tenants; returns the chunks deleted */
export async function applyRetention(deps: RetentionDeps, tenants: string[]): Promise<number> {
  let deleted = 0;
  for (const tenant of tenants) {
    const period = deps.limits(tenant).retention_period;
    if (period <= 0) continue;
    const n = await deps.store.deleteChunksBefore(tenant, BigInt(deps.now() - period) * 1_000_000n, false);
    if (n > 0) {
      deps.onDeleted?.(tenant, n);
      deps.logger.info("log retention deleted chunks", { tenant, chunks: n, retention_period_ms: period });
    }
    deleted += n;
  }
  // one vacuum for the pass, not one per tenant
  if (deleted > 0) await deps.store.reclaimSpace();
  return deleted;
}

export interface Retention {
  /** one pass now (also what the timer runs); passes never overlap */
  run(): Promise<number>;
  /** when the last pass finished without an error (ms since the epoch), undefined before the first */
  lastSuccess(): number | undefined;
  /** the oldest entry each tenant held after the last pass (ms) */
  oldest(): ReadonlyMap<string, number>;
  stop(): void;
}

export function startRetention(deps: RetentionDeps & { store: LogStore; intervalMs: number }): Retention {
  let last: number | undefined;
  let oldest: ReadonlyMap<string, number> = new Map();
  let running: Promise<number> | undefined;
  const run = () =>
    (running ??= applyRetention(deps, deps.store.tenants())
      .then(async (n) => {
        // measured here, every pass, rather than at each scrape: a walk of every stream
        oldest = await oldestByTenant(deps.store);
        last = deps.now();
        return n;
      })
      .finally(() => (running = undefined)));
  const timer = setInterval(() => {
    run().catch((err: unknown) => deps.logger.warn("log retention pass failed", { err: String(err) }));
  }, deps.intervalMs);
  (timer as { unref?: () => void }).unref?.();
  return { stop: () => clearInterval(timer), run, lastSuccess: () => last, oldest: () => oldest };
}

/** retention's state for /metrics, as the last pass left it (no walk at a scrape) */
export function retentionState(
  store: Pick<LogStore, "tenants">,
  view: () => { periodMs(tenant: string): number; lastSuccess(): number | undefined; oldest(): ReadonlyMap<string, number> } | undefined,
): () => RetentionState {
  return () => {
    const v = view();
    const oldest = v?.oldest();
    return {
      lastSuccess: v?.lastSuccess(),
      tenants: store.tenants().map((tenant) => ({ tenant, oldestMs: oldest?.get(tenant), periodMs: v?.periodMs(tenant) ?? 0 })),
    };
  };
}
