// A token bucket per key (tenant): `rate` tokens per second up to `burst`.
// A cost above the burst can never pass, as in the real products' limiters.

export interface TokenBuckets {
  /** takes `cost` tokens when available; false (and nothing taken) otherwise */
  allow(key: string, cost: number, rate: number, burst: number): boolean;
}

export function createTokenBuckets(now: () => number): TokenBuckets {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    allow(key, cost, rate, burst) {
      const t = now();
      let b = buckets.get(key);
      if (!b) {
        b = { tokens: burst, at: t };
        buckets.set(key, b);
      }
      b.tokens = Math.min(burst, b.tokens + ((t - b.at) / 1000) * rate);
      b.at = t;
      if (cost > b.tokens) return false;
      b.tokens -= cost;
      return true;
    },
  };
}
