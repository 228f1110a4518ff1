// The metrics store's part in keeping the disk from filling (lib/disk-guard.ts):
// the oldest stored chunks, by the time of their newest sample, are dropped
// first, every tenant's alike; each drop is logged and counted per tenant.
// The chunks are database rows: once vacuumed their space is reused by the
// rows written next (the guard counts it as credit), not returned to the
// filesystem.
import type { Sql } from "../../../db/sql.ts";
import { Counter, type Registry } from "prom-client";
import type { Reclaimer } from "../../../lib/disk-guard.ts";
import type { Logger } from "../../../lib/logger.ts";
import type { MetricsStore } from "./store.ts";

export function metricsReclaimer(pg: Sql, store: MetricsStore, logger: Logger, registry: Registry): Reclaimer {
  const chunks = new Counter({ name: "cortex_disk_cap_dropped_chunks_total", help: "Chunks dropped, oldest first, to keep the data dir under storage.max_disk_usage, by tenant.", labelNames: ["user"], registers: [registry] });
  const bytes = new Counter({ name: "cortex_disk_cap_dropped_bytes_total", help: "Bytes of chunks dropped to keep the data dir under storage.max_disk_usage, by tenant.", labelNames: ["user"], registers: [registry] });
  return {
    name: "metrics chunks",
    kind: "rows",
    // the deleted rows' space is reused only after a vacuum
    settle: () => store.reclaimSpace(),
    async oldest() {
      let oldest: number | undefined;
      // one index probe per tenant (metrics_chunks_age: tenant, max_t)
      for (const tenant of store.tenants()) {
        const r = await pg.query<{ t: string | null }>("select min(max_t)::text as t from metrics_chunks where tenant = $1", [tenant]);
        const t = r.rows[0]?.t;
        if (t != null && (oldest === undefined || Number(t) < oldest)) oldest = Number(t);
      }
      return oldest;
    },
    async dropBefore(cutoff) {
      const found = new Map<string, { n: number; b: number }>();
      for (const tenant of store.tenants()) {
        const r = await pg.query<{ n: number; b: string }>(
          "select count(*)::int as n, coalesce(sum(octet_length(data)), 0)::text as b from metrics_chunks where tenant = $1 and max_t < $2",
          [tenant, cutoff],
        );
        const row = r.rows[0];
        if (row && row.n > 0) found.set(tenant, { n: row.n, b: Number(row.b) });
      }
      if (!found.size) return 0;
      await store.deleteBefore(cutoff);
      let freed = 0;
      for (const [tenant, { n, b }] of found) {
        chunks.inc({ user: tenant }, n);
        bytes.inc({ user: tenant }, b);
        freed += b;
        logger.warn("dropped the oldest metrics chunks to keep the disk from filling", { tenant, chunks: n, bytes: b, before: new Date(cutoff).toISOString() });
      }
      return freed;
    },
  };
}
