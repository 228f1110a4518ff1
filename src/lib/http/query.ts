/** a page number or page size from a query string: missing, not a whole number or below 1 gives the default */
export function positiveInt(raw: string | undefined, fallback: number): number {
  const n = Number(raw);
  return raw !== undefined && raw !== "" && Number.isInteger(n) && n >= 1 ? n : fallback;
}
