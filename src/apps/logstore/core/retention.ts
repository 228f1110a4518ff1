// Retention: whole chunks whose newest entry is older than the tenant's
// retention_period are deleted, every minute (0 keeps everything).
import type { Logger } from "../../../lib/logger.ts";
import type { Limits } from "./limits.ts";
import type { LogStore } from "./store.ts";

export interface RetentionDeps {
  store: Pick<LogStore, "deleteChunksBefore">;
  limits: (tenant: string) => Limits;
  /** tenants holding chunks */
  tenants?: () => string[];
  logger: Logger;
  now: () => number;
}

/** one pass over the given tenants; returns the chunks deleted */
export async function applyRetention(deps: RetentionDeps, tenants: string[]): Promise<number> {
  let deleted = 0;
  for (const tenant of tenants) {
    const period = deps.limits(tenant).retention_period;
    if (period <= 0) continue;
    deleted += await deps.store.deleteChunksBefore(tenant, BigInt(deps.now() - period) * 1_000_000n);
  }
  return deleted;
}

export function startRetention(deps: RetentionDeps & { store: LogStore }): { stop(): void; run(): Promise<number> } {
  const run = () => applyRetention(deps, deps.store.tenants());
  const timer = setInterval(() => {
    run().catch((err: unknown) => deps.logger.warn("log retention pass failed", { err: String(err) }));
  }, 60_000);
  (timer as { unref?: () => void }).unref?.();
  return { stop: () => clearInterval(timer), run };
}
