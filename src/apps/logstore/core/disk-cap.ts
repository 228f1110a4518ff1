// The log store's part in keeping the disk from filling (lib/disk-guard.ts):
// the oldest chunks, by the time of their newest line, are dropped first,
// every tenant's alike; each drop is logged and counted per tenant. Emptied
// segment files leave the disk after the chunk store's grace period
// (chunk-store.ts), counted meanwhile as pending.
import type { Reclaimer } from "../../../lib/disk-guard.ts";
import type { Logger } from "../../../lib/logger.ts";
import type { LogStore } from "./store.ts";
import { eachStream } from "./stream-walk.ts";

export function logReclaimer(store: LogStore, logger: Logger, counted: (tenant: string, chunks: number, bytes: number) => void): Reclaimer {
  const diskBytes = (c: { at?: { length: number } | undefined; bytes: number }) => c.at?.length ?? c.bytes;
  return {
    name: "log chunks",
    kind: "files",
    pendingBytes: () => store.pendingUnlinkBytes(),
    settle: () => store.reclaimSpace(),
    async oldest() {
      let oldest: bigint | undefined;
      await eachStream(store, (_, s) => {
        for (const c of s.chunks) if (oldest === undefined || c.to < oldest) oldest = c.to;
      });
      return oldest === undefined ? undefined : Number(oldest / 1_000_000n);
    },
    async dropBefore(cutoff) {
      const before = BigInt(cutoff) * 1_000_000n;
      const found = new Map<string, number>();
      await eachStream(store, (tenant, s) => {
        for (const c of s.chunks) if (c.to < before) found.set(tenant, (found.get(tenant) ?? 0) + diskBytes(c));
      });
      let freed = 0;
      for (const [tenant, bytes] of found) {
        const deleted = await store.deleteChunksBefore(tenant, before, false);
        if (!deleted) continue;
        counted(tenant, deleted, bytes);
        freed += bytes;
        logger.warn("dropped the oldest log chunks to keep the disk from filling", { tenant, chunks: deleted, bytes, before: new Date(cutoff).toISOString() });
      }
      return freed;
    },
  };
}
