// A value loaded on first use and kept until invalidated (read models built
// from the database, DESIGN rule 7). A failed load is forgotten, so the next
// caller tries again; a load that an invalidation overtook is not kept.

export interface Reloadable<T> {
  get(): Promise<T>;
  /** the next get() loads anew */
  invalidate(): void;
}

export function reloadable<T>(load: () => Promise<T>): Reloadable<T> {
  let current: Promise<T> | undefined;
  let generation = 0;
  return {
    get() {
      if (!current) {
        const mine = ++generation;
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
  };
}
