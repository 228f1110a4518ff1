// Retention of the metrics store: every so often, chunks whose newest sample
// is older than metrics.retention_period are deleted (0s keeps everything).
import type { Logger } from "../../../lib/logger.ts";
import type { MetricsStore } from "./store.ts";

export interface MetricsRetentionOptions {
  store: MetricsStore;
  /** ms; 0 turns retention off */
  retention: number;
  logger: Logger;
  now: () => number;
  /** how often to look (ms) */
  every?: number;
}

export function startMetricsRetention(o: MetricsRetentionOptions): { run(): Promise<number>; stop(): void } {
  const run = async () => {
    if (o.retention <= 0) return 0;
    const deleted = await o.store.deleteBefore(o.now() - o.retention);
    if (deleted) o.logger.info("metrics retention deleted chunks", { chunks: deleted });
    return deleted;
  };
  const timer = o.retention > 0 ? setInterval(() => void run().catch((err: unknown) => o.logger.error("metrics retention failed", { err: String(err) })), o.every ?? 10 * 60_000) : undefined;
  (timer as { unref?: () => void } | undefined)?.unref?.();
  return { run, stop: () => clearInterval(timer) };
}
