// Which tenant a metrics store request is for: X-Scope-OrgID in header mode
// (401 "no org id" without it, as Mimir with multitenancy on), the
// credentials in tokens mode (store-access/authorize.ts); one tenant only; a
// tenant set inactive through the admin API is refused.
import type { Context } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import type { StoreAuth } from "../../../store-access/http.ts";
import type { Scope } from "../../../store-access/model.ts";

export interface TenantGate {
  /** true when the admin API has set this tenant inactive */
  isInactive(tenant: string): boolean;
  /** who may reach which tenant */
  auth: StoreAuth;
}

export function tenantOf(c: Context, gate: TenantGate, scope: Scope): string {
  const tenant = gate.auth.tenant(c, scope);
  if (gate.isInactive(tenant)) throw new ApiError(403, `tenant ${tenant} is inactive`);
  return tenant;
}

/** a read of the Prometheus API: counted as a query of its token */
export function readerOf(c: Context, gate: TenantGate): string {
  const tenant = tenantOf(c, gate, "metrics:read");
  gate.auth.queried(c);
  return tenant;
}
