// An in-memory SampleQuerier for the PromQL tests: series with [time ms, value]
// samples; "stale" writes Prometheus's stale marker bits into the value array.
import { matchesAll } from "../../../src/apps/metrics/core/promql/index.ts";
import type { Labels, Matcher, SampleQuerier, SeriesSamples } from "../../../src/apps/metrics/core/types.ts";

export type FixtureSample = [number, number | "stale"];

export interface FixtureSeries {
  labels: Labels;
  samples: FixtureSample[];
}

export interface SelectCall {
  matchers: Matcher[];
  mint: number;
  maxt: number;
}

export class MemoryQuerier implements SampleQuerier {
  readonly calls: SelectCall[] = [];
  private readonly series: Array<{ labels: Labels; t: Float64Array; v: Float64Array }>;

  constructor(series: FixtureSeries[]) {
    this.series = series.map((s) => {
      const sorted = [...s.samples].sort((a, b) => a[0] - b[0]);
      const t = Float64Array.from(sorted, (x) => x[0]);
      const v = new Float64Array(sorted.length);
      const bits = new Uint32Array(v.buffer);
      sorted.forEach(([, value], i) => {
        if (value === "stale") {
          bits[2 * i] = 2;
          bits[2 * i + 1] = 0x7ff00000;
        } else v[i] = value;
      });
      return { labels: s.labels, t, v };
    });
  }

  async select(matchers: Matcher[], mint: number, maxt: number): Promise<SeriesSamples[]> {
    this.calls.push({ matchers, mint, maxt });
    const out: SeriesSamples[] = [];
    for (const s of this.series) {
      if (!matchesAll(matchers, s.labels)) continue;
      let lo = 0;
      while (lo < s.t.length && s.t[lo]! < mint) lo++;
      let hi = lo;
      while (hi < s.t.length && s.t[hi]! <= maxt) hi++;
      if (hi > lo) out.push({ labels: s.labels, t: s.t.subarray(lo, hi), v: s.v.subarray(lo, hi) });
    }
    return out;
  }
}

/** samples every `stepMs` from `startMs`, values from a function of the index */
export function samplesEvery(startMs: number, stepMs: number, count: number, value: (i: number) => number): FixtureSample[] {
  return Array.from({ length: count }, (_, i): FixtureSample => [startMs + i * stepMs, value(i)]);
}

/** seconds to ms, for readable fixtures */
export const sec = (s: number) => s * 1000;

/** the error a call throws (sync or async), or fails the test */
export async function errorOf(fn: () => unknown): Promise<Error & { status?: number }> {
  try {
    await fn();
  } catch (err) {
    return err as Error & { status?: number };
  }
  throw new Error("expected an error");
}
