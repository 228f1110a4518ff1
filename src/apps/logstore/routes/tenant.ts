// Which tenants a request is for (reference §1): X-Scope-OrgID, required
// while auth_enabled; "fake" for everything when it is off. Only query
// endpoints may name several tenants, and only when that is enabled.
import type { Context } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { parseTenantIds } from "../../../lib/tenant.ts";

export const NO_AUTH_TENANT = "fake";

export interface TenantOptions {
  authEnabled: boolean;
  multiTenantQueries: boolean;
}

export function tenantsOf(c: Context, o: TenantOptions, query: boolean): string[] {
  if (!o.authEnabled) return [NO_AUTH_TENANT];
  const header = c.req.header("X-Scope-OrgID");
  if (!header) throw new ApiError(401, "no org id");
  const ids = parseTenantIds(header);
  if (ids.length > 1 && !(query && o.multiTenantQueries)) throw new ApiError(400, "multiple org IDs present");
  return ids;
}

export const tenantOf = (c: Context, o: TenantOptions) => tenantsOf(c, o, false)[0]!;
