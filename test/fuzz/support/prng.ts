// A small seeded PRNG (mulberry32) so a fuzz run is repeatable: the same seed
// sends the same requests in the same order. FUZZ_SEED overrides the seed.
import { mulberry32 } from "../../helpers/rng.ts";
export interface Rng {
  readonly seed: number;
  /** a float in [0, 1) */
  next(): number;
  /** an integer in [0, n) */
  int(n: number): number;
  /** true with probability p */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
}

export function seedFromEnv(fallback: number): number {
  const raw = process.env.FUZZ_SEED;
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n)) throw new Error(`FUZZ_SEED must be an integer, got ${raw}`);
  return n >>> 0;
}

export function createRng(seed: number): Rng {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  return {
    seed,
    next,
    int,
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]) => items[int(items.length)]!,
  };
}
