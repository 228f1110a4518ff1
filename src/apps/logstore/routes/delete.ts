// The real log store's delete API (pkg/compactor/deletion request_handler.go,
// served at /loki/api/v1/delete and here at /svc/api/v1/delete too):
// POST/PUT makes a request (204), GET lists the tenant's requests, DELETE
// cancels one (204). One tenant, with the logs:delete scope in tokens mode; a
// tenant whose deletion_mode is disabled is answered 403 on all three.
import type { Context, Hono } from "hono";
import { queryParams } from "../../../lib/http/query.ts";
import type { StoreAuth } from "../../../store-access/http.ts";
import { deletionDisabled, type Deletion } from "../core/deletion/process.ts";
import type { Limits } from "../core/limits.ts";

export interface DeleteRouteDeps {
  deletion: Deletion;
  auth: StoreAuth;
  limits: (tenant: string) => Limits;
}

export function registerDeletes(app: Hono, deps: DeleteRouteDeps): void {
  const path = "/svc/api/v1/delete";
  /** the request's tenant, when it may delete (tenant_request_handler.go: the mode is checked before anything else) */
  const tenantOf = (c: Context) => {
    const tenant = deps.auth.tenant(c, "logs:delete");
    if (deps.limits(tenant).deletion_mode === "disabled") throw deletionDisabled();
    return tenant;
  };
  const create = async (c: Context) => {
    const tenant = tenantOf(c);
    // the query string only, as Loki reads it (r.URL.Query())
    await deps.deletion.create(tenant, queryParams(c).one);
    return c.body(null, 204);
  };
  app.post(path, create);
  app.put(path, create);
  app.get(path, (c) => c.json(deps.deletion.list(tenantOf(c))));
  app.delete(path, async (c) => {
    const tenant = tenantOf(c);
    const q = queryParams(c);
    await deps.deletion.cancel(tenant, q.one("request_id") ?? "", q.one("force") === "true");
    return c.body(null, 204);
  });
}
