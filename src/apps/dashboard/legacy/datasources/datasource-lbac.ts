// /api/datasources/uid/:uid/lbac/teams (enterprise, cloud): the team LBAC
// rules of a log store data source (spec "Data source LBAC rules"). The spec
// and the real product's examples spell the team key teamUid and teamUId:
// both are read, teamUid is written.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { hasPermission } from "../../core/identity/permissions.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { accessDenied, identityOf, type Router } from "../../access/guard.ts";
import type { DataSourceRegistry } from "../../core/datasources/datasource-registry.ts";
import type { Lbac } from "../../core/datasources/lbac.ts";
import { dataSourceScopes } from "../../core/datasources/datasource-json.ts";
import { dataSourceOfPath, scopesOfPath } from "./datasource-lookup.ts";

const RulesIn = type({
  rules: type({
    "teamUid?": "string",
    "teamUId?": "string",
    rules: "string[]",
  }).array(),
});

export function registerDataSourceLbac(r: Router, deps: { registry: DataSourceRegistry; lbac: Lbac }): void {
  const { registry, lbac } = deps;
  const path = "/api/datasources/uid/:uid/lbac/teams";
  const scope = scopesOfPath(registry, "uid");

  r.get(path, { action: "datasources:read", scope }, async (c) => {
    const ds = dataSourceOfPath(registry, c, "uid");
    return c.json({ rules: await lbac.list(ds) });
  });

  // the spec asks for both datasources:write and datasources.permissions:write; the guard checks the first
  r.put(path, { action: "datasources:write", scope }, async (c: Context) => {
    const ds = dataSourceOfPath(registry, c, "uid");
    if (!hasPermission(identityOf(c).permissions, "datasources.permissions:write", dataSourceScopes(ds))) {
      throw accessDenied("datasources.permissions:write");
    }
    const body = await parseBody(c, RulesIn);
    const rules = await lbac.replace(ds, body.rules);
    return c.json({ id: ds.id, message: "Data source LBAC rules updated", name: ds.name, rules, uid: ds.uid });
  }, { body: RulesIn });
}
