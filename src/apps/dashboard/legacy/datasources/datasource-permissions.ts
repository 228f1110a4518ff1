// /api/access-control/datasources (enterprise; spec "Data source permissions"):
// the entries of a data source, and one entry set or removed per user, team
// or basic role. The optional ds_type query names the data source's type.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { ApiError, badRequest } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import type { Router } from "../../access/guard.ts";
import { DATASOURCE_LEVELS } from "../../core/identity/datasource-permission-levels.ts";
import {
  BUILTIN_ROLES, listDataSourcePermissions, setDataSourcePermission, type Principal,
} from "../../core/datasources/datasource-permissions.ts";
import type { DataSourceRegistry } from "../../core/datasources/datasource-registry.ts";
import { dataSourceNotFound } from "../../core/datasources/datasources.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import { dataSourceOfPath, scopesOfPath } from "./datasource-lookup.ts";

const PermissionIn = type({ permission: type.enumerated(...DATASOURCE_LEVELS, "").describe('"Query", "Edit", "Admin" or "" (removes)') });

const numericParam = (c: Context, name: string, message: string) => {
  const raw = c.req.param(name) ?? "";
  if (!/^\d{1,10}$/.test(raw) || Number(raw) > 2_147_483_647) throw new ApiError(400, message);
  return Number(raw);
};

export function registerDataSourcePermissions(r: Router, deps: IdentityDeps, registry: DataSourceRegistry): void {
  const base = "/api/access-control/datasources";
  const scope = scopesOfPath(registry, "uid");
  const dataSource = (c: Context) => {
    const ds = dataSourceOfPath(registry, c, "uid");
    const type = c.req.query("ds_type");
    if (type && type !== ds.type) throw dataSourceNotFound();
    return ds;
  };

  // before /:uid, which would otherwise take this path
  r.get(`${base}/description`, { action: "datasources.permissions:read" }, (c) =>
    c.json({ assignments: { users: true, serviceAccounts: true, teams: true, builtInRoles: true }, permissions: [...DATASOURCE_LEVELS] }),
  );

  r.get(`${base}/:uid`, { action: "datasources.permissions:read", scope }, async (c) =>
    c.json(await listDataSourcePermissions(deps, dataSource(c))),
  );

  const set = (principalOf: (c: Context) => Principal) => async (c: Context) => {
    const ds = dataSource(c);
    const principal = principalOf(c);
    const { permission } = await parseBody(c, PermissionIn);
    const done = await setDataSourcePermission(deps, ds, principal, permission);
    return c.json({ message: done === "removed" ? "Permission removed" : "Permission updated" });
  };
  const write = { action: "datasources.permissions:write", scope };
  const doc = { body: PermissionIn };
  r.post(`${base}/:uid/users/:id`, write, set((c) => ({ userId: numericParam(c, "id", "userID is invalid") })), doc);
  r.post(`${base}/:uid/teams/:id`, write, set((c) => ({ teamId: numericParam(c, "id", "teamID is invalid") })), doc);
  r.post(`${base}/:uid/builtInRoles/:role`, write, set((c) => {
    const role = c.req.param("role") ?? "";
    const known = BUILTIN_ROLES.find((b) => b === role);
    if (!known) throw badRequest(`failed to set role permission: the basic role must be one of ${BUILTIN_ROLES.join(", ")}`);
    return { builtinRole: known };
  }), doc);
}
