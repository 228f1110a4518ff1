// Database errors a service turns into answers. Matching the error's text
// is not enough: "index row requires 12032 bytes ... index teams_org_name_key"
// names the index too, and is no duplicate.

/** a unique index refused the row (SQLSTATE 23505), on one of the named constraints if any are given */
export function isUniqueViolation(err: unknown, ...constraints: string[]): boolean {
  if (typeof err !== "object" || err === null) return false;
  const { code, constraint } = err as { code?: unknown; constraint?: unknown };
  return code === "23505" && (constraints.length === 0 || constraints.includes(String(constraint)));
}
