// Live tails' view of ingest, as Loki's ingesters feed their tailers: every
// accepted push is offered to the tails of its tenant whose selector matches
// the stream (one map lookup per push while a tenant has none). The hub also
// counts tails: at most `max_concurrent_tail_requests` per tenant (Loki's
// limit and message) and MAX_TAILS in the store.
import { ApiError } from "../../../lib/errors.ts";
import type { Entry } from "./chunks.ts";
import type { Matcher } from "./logql/parse.ts";
import { matchesAll } from "./logql/pipeline.ts";
import type { Stream } from "./store.ts";

/** the most tails the store serves at once, all tenants together */
export const MAX_TAILS = 100;

export type TailFeed = (stream: Stream, entries: readonly Entry[]) => void;

export interface TailHub {
  /** a place for a tail of the tenant: refused past its limit or the store's; the returned function gives it back */
  admit(tenant: string, perTenant: number): () => void;
  /** the tenant's pushes to streams the matchers select go to `feed` from now on, until the returned function is called */
  subscribe(tenant: string, matchers: readonly Matcher[], feed: TailFeed): () => void;
  /** entries just accepted (ingest.ts) */
  publish(tenant: string, batch: ReadonlyArray<{ stream: Stream; entries: readonly Entry[] }>): void;
  /** tails open now */
  readonly open: number;
}

interface Subscription {
  matchers: readonly Matcher[];
  feed: TailFeed;
  /** whether a stream matches, decided once per stream (its labels never change) */
  selects: WeakMap<Stream, boolean>;
}

export function createTailHub(): TailHub {
  const placesByTenant = new Map<string, number>();
  let places = 0;
  const byTenant = new Map<string, Set<Subscription>>();
  return {
    admit(tenant, perTenant) {
      const held = placesByTenant.get(tenant) ?? 0;
      if (held >= perTenant) throw new ApiError(400, `max concurrent tail requests limit exceeded, count > limit (${held + 1} > ${perTenant})`);
      if (places >= MAX_TAILS) throw new ApiError(429, `too many tail requests: the log store serves at most ${MAX_TAILS} at once`);
      placesByTenant.set(tenant, held + 1);
      places++;
      let given = false;
      return () => {
        if (given) return;
        given = true;
        places--;
        const n = (placesByTenant.get(tenant) ?? 1) - 1;
        if (n > 0) placesByTenant.set(tenant, n);
        else placesByTenant.delete(tenant);
      };
    },
    subscribe(tenant, matchers, feed) {
      const sub: Subscription = { matchers, feed, selects: new WeakMap() };
      let subs = byTenant.get(tenant);
      if (!subs) byTenant.set(tenant, (subs = new Set()));
      subs.add(sub);
      return () => {
        subs.delete(sub);
        if (!subs.size && byTenant.get(tenant) === subs) byTenant.delete(tenant);
      };
    },
    publish(tenant, batch) {
      const subs = byTenant.get(tenant);
      if (!subs) return;
      for (const sub of subs) {
        for (const { stream, entries } of batch) {
          let selected = sub.selects.get(stream);
          if (selected === undefined) sub.selects.set(stream, (selected = matchesAll(sub.matchers, stream.labels)));
          if (selected) sub.feed(stream, entries);
        }
      }
    },
    get open() {
      return places;
    },
  };
}
