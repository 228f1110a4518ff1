// Numeric helpers shared by functions and aggregations, as in Prometheus:
// Kahan-Neumaier summation (util/kahansum), quantiles and classic-histogram
// bucket quantiles (promql/quantile.go).

/** the compensation left by the last kahanAdd (kept here so hot loops allocate nothing) */
export const kahan = { c: 0 };

/** one step of Kahan-Neumaier summation: returns the new sum, leaves the new compensation in kahan.c */
export function kahanAdd(inc: number, sum: number, c: number): number {
  const t = sum + inc;
  if (t === Infinity || t === -Infinity) c = 0;
  else if (Math.abs(sum) >= Math.abs(inc)) c += sum - t + inc;
  else c += inc - t + sum;
  kahan.c = c;
  return t;
}

/** NaN sorts first, as Prometheus's vectorByValueHeap.Less */
const byValueNaNFirst = (a: number, b: number) => {
  const an = Number.isNaN(a);
  const bn = Number.isNaN(b);
  if (an || bn) return an === bn ? 0 : an ? -1 : 1;
  return a - b;
};

/** the φ-quantile of values (weighted between the two nearest ranks); sorts values */
export function quantile(q: number, values: number[]): number {
  if (values.length === 0 || Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  values.sort(byValueNaNFirst);
  const n = values.length;
  const rank = q * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  return values[lower]! * (1 - weight) + values[upper]! * weight;
}

export interface Bucket {
  upperBound: number;
  count: number;
}

/**
 * Prometheus's BucketQuantile over classic `le` buckets: sorts them, requires
 * a +Inf bucket, merges equal bounds, fixes float noise and non-monotonic
 * counts, then interpolates linearly inside the bucket holding the rank.
 */
export function bucketQuantile(q: number, input: Bucket[]): number {
  if (Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  let buckets = [...input].sort((a, b) => (a.upperBound < b.upperBound ? -1 : a.upperBound > b.upperBound ? 1 : 0));
  if (buckets[buckets.length - 1]!.upperBound !== Infinity) return NaN;
  buckets = coalesceBuckets(buckets);
  correctPrecisionErrors(buckets, 1e-12);
  ensureMonotonic(buckets);
  if (buckets.length < 2) return NaN;
  const observations = buckets[buckets.length - 1]!.count;
  if (observations === 0) return NaN;
  let rank = q * observations;
  // the first bucket (excluding +Inf) whose cumulative count reaches the rank (Go's sort.Search)
  let b = 0;
  let j = buckets.length - 1;
  while (b < j) {
    const h = (b + j) >>> 1;
    if (!(buckets[h]!.count >= rank)) b = h + 1;
    else j = h;
  }
  if (b === buckets.length - 1) return buckets[buckets.length - 2]!.upperBound;
  if (b === 0 && buckets[0]!.upperBound <= 0) return buckets[0]!.upperBound;
  let bucketStart = 0;
  const bucketEnd = buckets[b]!.upperBound;
  let count = buckets[b]!.count;
  if (b > 0) {
    bucketStart = buckets[b - 1]!.upperBound;
    count -= buckets[b - 1]!.count;
    rank -= buckets[b - 1]!.count;
  }
  return bucketStart + (bucketEnd - bucketStart) * (rank / count);
}

function coalesceBuckets(buckets: Bucket[]): Bucket[] {
  const out: Bucket[] = [];
  let last = { ...buckets[0]! };
  for (const b of buckets.slice(1)) {
    if (b.upperBound === last.upperBound) last.count += b.count;
    else {
      out.push(last);
      last = { ...b };
    }
  }
  out.push(last);
  return out;
}

function correctPrecisionErrors(buckets: Bucket[], tolerance: number): void {
  let prev = buckets[0]!.count;
  for (let i = 1; i < buckets.length; i++) {
    const curr = buckets[i]!.count;
    const delta = Math.abs(curr - prev);
    if (delta === 0) continue;
    if (delta / curr <= tolerance) buckets[i]!.count = prev;
    else prev = curr;
  }
}

function ensureMonotonic(buckets: Bucket[]): void {
  let max = buckets[0]!.count;
  for (let i = 1; i < buckets.length; i++) {
    const c = buckets[i]!.count;
    if (c > max) max = c;
    else if (c < max) buckets[i]!.count = max;
  }
}
