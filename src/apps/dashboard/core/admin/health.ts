// Database health as GET /api/health reports it. Like the real product, a
// healthy answer is cached for a few seconds so health probes and load
// balancers do not each cost a database round trip; a closed database is
// reported at once.
import type { Database } from "../../../../db/open.ts";

export function createHealthProbe(db: Database, ttlMs = 5_000, now = () => Date.now()): () => Promise<boolean> {
  let healthyUntil = 0;
  return async () => {
    if (db.pg.closed) return false;
    if (now() < healthyUntil) return true;
    const ok = await db.ping();
    healthyUntil = ok ? now() + ttlMs : 0;
    return ok;
  };
}
