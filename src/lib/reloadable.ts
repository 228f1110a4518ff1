// A value loaded on first use and kept until invalidated (read models built
// from the database, DESIGN rule 7). A failed load is forgotten, so the next
// caller tries again; a load that an invalidation overtook is not kept.

/**
 * What a read model did since the start, read at a scrape of /metrics: how
 * often it was loaded whole from the database, and how many changes were
 * applied to it in place (read models kept current by their writers).
 */
export interface ReadModelStats {
  readonly loads: number;
  readonly updates: number;
}

export interface Reloadable<T> {
  get(): Promise<T>;
  /** the next get() loads anew */
  invalidate(): void;
  /** loads started so far (a reload after each invalidation that a get() followed) */
  readonly stats: ReadModelStats;
}

export function reloadable<T>(load: () => Promise<T>): Reloadable<T> {
  let current: Promise<T> | undefined;
  let generation = 0;
  const stats = { loads: 0, updates: 0 };
  return {
    get() {
      if (!current) {
        const mine = ++generation;
        stats.loads++;
        current = load().catch((err: unknown) => {
          if (generation === mine) current = undefined;
          throw err;
        });
      }
      return current;
    },
    invalidate() {
      generation++;
      current = undefined;
    },
    stats,
  };
}
