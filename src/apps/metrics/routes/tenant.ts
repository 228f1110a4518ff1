// Which tenant a metrics store request is for: X-Scope-OrgID, always
// required (401 "no org id" without it, as Mimir with multitenancy on), one
// tenant only; a tenant set inactive through the admin API is refused.
import type { Context } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { parseTenantIds } from "../../../lib/tenant.ts";

export interface TenantGate {
  /** true when the admin API has set this tenant inactive */
  isInactive(tenant: string): boolean;
}

export function tenantOf(c: Context, gate: TenantGate): string {
  const header = c.req.header("X-Scope-OrgID");
  if (!header) throw new ApiError(401, "no org id");
  const ids = parseTenantIds(header);
  if (ids.length > 1) throw new ApiError(400, "multiple org IDs present");
  const tenant = ids[0]!;
  if (gate.isInactive(tenant)) throw new ApiError(403, `tenant ${tenant} is inactive`);
  return tenant;
}
