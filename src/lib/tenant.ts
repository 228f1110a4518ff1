// Tenant ids as the log and metrics stores' real counterparts (dskit
// tenant package) check them: allowed bytes, at most 150, not "." or "..";
// several tenants joined by "|" are sorted and de-duplicated.
import { ApiError } from "./errors.ts";

export const MAX_TENANT_ID_LENGTH = 150;
const ALLOWED = /^[a-zA-Z0-9!\-_.*'()]$/;

/** why a tenant id is refused, or undefined when it is valid (checks in dskit's order) */
export function tenantIdProblem(id: string): string | undefined {
  for (const ch of id) {
    if (!ALLOWED.test(ch)) return `tenant ID '${id}' contains unsupported character '${ch}'`;
  }
  if (id.length > MAX_TENANT_ID_LENGTH) return `tenant ID is too long: max ${MAX_TENANT_ID_LENGTH} characters`;
  if (id === "." || id === "..") return "tenant ID is '.' or '..'";
  return undefined;
}

/** the tenants named by an X-Scope-OrgID value, sorted and unique; a bad one is a 400 naming it */
export function parseTenantIds(header: string): string[] {
  const ids = [...new Set(header.split("|"))].sort();
  for (const id of ids) {
    const problem = tenantIdProblem(id);
    if (problem) throw new ApiError(400, problem);
  }
  return ids;
}
