// Walking every stream of the store (a million at volume) without holding the
// event loop: a turn is given back every few thousand streams.
import type { LogStore, Stream } from "./store.ts";

/** streams walked between turns of the event loop */
const WALK_SLICE = 5_000;

/** calls `visit` with every stream, yielding to the event loop every few thousand */
export async function eachStream(store: Pick<LogStore, "tenants" | "streams">, visit: (tenant: string, s: Stream) => void): Promise<void> {
  let n = 0;
  for (const tenant of store.tenants()) {
    for (const s of store.streams(tenant)) {
      visit(tenant, s);
      if (++n % WALK_SLICE === 0) await new Promise((r) => setImmediate(r));
    }
  }
}
