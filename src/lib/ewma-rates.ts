// Per-key event rates as exponentially weighted moving averages, the way
// Mimir's ingesters rate a tenant's samples (util/math.EwmaRate: events are
// counted, and every 15 s the count becomes an instant rate that moves the
// average by alpha = 0.2; the first tick sets it outright). Here the ticks are
// taken lazily from the injected clock, on the next add or read, so nothing
// runs in the background and tests can move time. An add is one map lookup,
// a clock read and an addition: cheap enough for every push.

export interface EwmaRatesOptions {
  now: () => number;
  /** how many figures each key counts (e.g. bytes and lines) */
  fields: number;
  /** the tick, in ms (Mimir: 15 s) */
  intervalMs?: number;
  /** the weight of each new tick (Mimir: 0.2) */
  alpha?: number;
}

export interface EwmaRates {
  /** counts `n` events of figure `field` for `key` */
  add(key: string, field: number, n: number): void;
  /** the current rates of `key`, per second, one per field (zeros for an unknown key) */
  rates(key: string): number[];
  keys(): string[];
}

interface Entry {
  pending: Float64Array;
  rate: Float64Array;
  /** start of the interval being counted */
  tickAt: number;
  init: boolean;
}

export function createEwmaRates(o: EwmaRatesOptions): EwmaRates {
  const interval = o.intervalMs ?? 15_000;
  const alpha = o.alpha ?? 0.2;
  const entries = new Map<string, Entry>();

  /** applies the ticks due by `t`: the counted interval first, then empty ones */
  const catchUp = (e: Entry, t: number) => {
    const elapsed = t - e.tickAt;
    if (elapsed < interval) return;
    const ticks = Math.floor(elapsed / interval);
    for (let f = 0; f < o.fields; f++) {
      const instant = e.pending[f]! / (interval / 1000);
      let r = e.init ? e.rate[f]! + alpha * (instant - e.rate[f]!) : instant;
      // each further tick saw no events: instant 0, so the average decays by (1 - alpha)
      if (ticks > 1) r *= (1 - alpha) ** (ticks - 1);
      e.rate[f] = r;
      e.pending[f] = 0;
    }
    e.init = true;
    e.tickAt += ticks * interval;
  };

  return {
    add(key, field, n) {
      const t = o.now();
      let e = entries.get(key);
      if (!e) {
        e = { pending: new Float64Array(o.fields), rate: new Float64Array(o.fields), tickAt: t, init: false };
        entries.set(key, e);
      } else if (t - e.tickAt >= interval) {
        catchUp(e, t);
      }
      e.pending[field] = e.pending[field]! + n;
    },
    rates(key) {
      const e = entries.get(key);
      if (!e) return new Array<number>(o.fields).fill(0);
      catchUp(e, o.now());
      return [...e.rate];
    },
    keys: () => [...entries.keys()],
  };
}
