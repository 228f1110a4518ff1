/**
 * Remembers the answers of a pure function of a string key, at most `limit`
 * of them (all forgotten at once when full): for decisions that see few
 * distinct keys in practice (a browser's origin and host) but must not grow
 * without bound when a client sends many.
 */
export function boundedMemo<T>(compute: (key: string) => T, limit = 1000): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    if (known.has(key)) return known.get(key) as T;
    const value = compute(key);
    if (known.size >= limit) known.clear();
    known.set(key, value);
    return value;
  };
}
