export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** JSON with object keys sorted: equal values give equal text */
export function canonicalJson(v: unknown): string {
  return JSON.stringify(v, (_k, value: unknown) =>
    isPlainObject(value) ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, value[k]])) : value,
  );
}
