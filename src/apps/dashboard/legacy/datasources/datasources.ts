// /api/datasources: every endpoint of the spec's "Legacy data sources" table,
// the deprecated name and id forms included, with the real product's
// messages (reference §4). Lists hold only what the caller may read.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { ApiError } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import { dataSourceJson, dataSourceListItem, dataSourceScopes } from "../../core/datasources/datasource-json.ts";
import type { DataSourceRecord } from "../../core/datasources/datasource-registry.ts";
import {
  createDataSource, deleteDataSource, updateDataSource, type DataSourceCaller, type DataSourceDeps, type DataSourceInput, type SecureInput,
} from "../../core/datasources/datasources.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import { dataSourceOfPath, scopesOfPath, type LookupBy } from "./datasource-lookup.ts";
import { jsonObject } from "../schemas.ts";

/** the fields a client sends; the rest of a DTO sent back (id, orgId, readOnly, ...) is ignored */
export const DataSourceIn = type({
  "+": "delete",
  name: "string",
  type: "string",
  "uid?": "string",
  "access?": "string",
  "url?": "string",
  "user?": "string",
  "database?": "string",
  "basicAuth?": "boolean",
  "basicAuthUser?": "string",
  "withCredentials?": "boolean",
  "isDefault?": "boolean",
  "jsonData?": jsonObject.or("null"),
  // each value is checked by the service (a string or {name}), whose message names the key
  "secureJsonData?": type.Record("string", "unknown"),
  // as GET shows it; on an update to a new URL origin or basic auth user, the secrets to keep (docs/security.md)
  "secureJsonFields?": type.Record("string", "boolean"),
  "version?": "number.integer",
  // deprecated plain fields: taken as secureJsonData, never stored in the clear
  "password?": "string",
  "basicAuthPassword?": "string",
});

export interface DataSourceRouteDeps extends DataSourceDeps {
  /** most data sources a list returns (dashboard.datasource_limit) */
  listLimit: number;
}

export function callerOf(c: Context): DataSourceCaller {
  const id = identityOf(c);
  return { orgId: id.orgId, userId: id.user.id, orgRole: id.orgRole, permissions: id.permissions };
}

async function inputOf(c: Context): Promise<DataSourceInput> {
  const { password, basicAuthPassword, secureJsonFields, ...body } = await parseBody(c, DataSourceIn);
  const secure = { ...body.secureJsonData } as Record<string, SecureInput>;
  if (password && !("password" in secure)) secure.password = password;
  if (basicAuthPassword && !("basicAuthPassword" in secure)) secure.basicAuthPassword = basicAuthPassword;
  const keepSecureFields = Object.entries(secureJsonFields ?? {}).filter(([, keep]) => keep).map(([field]) => field);
  return { ...body, secureJsonData: secure, keepSecureFields };
}

const idOf = (c: Context) => {
  const raw = c.req.param("id") ?? "";
  if (!/^\d{1,10}$/.test(raw)) throw new ApiError(400, "id is invalid");
};

export function registerDataSources(r: Router, deps: DataSourceRouteDeps): void {
  const { registry } = deps;
  const scope = (by: LookupBy) => scopesOfPath(registry, by);
  const found = (c: Context, by: LookupBy) => {
    if (by === "id") idOf(c);
    return dataSourceOfPath(registry, c, by);
  };

  r.get("/api/datasources", { action: "datasources:read" }, (c) => {
    const id = identityOf(c);
    const visible = registry.list(id.orgId).filter((d) => hasPermission(id.permissions, "datasources:read", dataSourceScopes(d)));
    return c.json(visible.slice(0, deps.listLimit).map(dataSourceListItem));
  });

  for (const by of ["uid", "name", "id"] as const) {
    r.get(`/api/datasources/${by === "id" ? "" : `${by}/`}:${by}`, { action: "datasources:read", scope: scope(by) }, (c) =>
      c.json(dataSourceJson(found(c, by))),
    );
  }

  r.get("/api/datasources/id/:name", { action: "datasources.id:read", scope: scope("name") }, (c) =>
    c.json({ id: found(c, "name").id }),
  );

  r.post("/api/datasources", { action: "datasources:create" }, async (c) => {
    const created = await createDataSource(deps, callerOf(c), await inputOf(c));
    return c.json({ datasource: dataSourceJson(created), id: created.id, message: "Datasource added", name: created.name });
  }, { body: DataSourceIn, responses: { 409: "data source with the same name (or uid) already exists" } });

  const update = (by: LookupBy) => async (c: Context) => {
    const existing = found(c, by);
    const updated = await updateDataSource(deps, callerOf(c), existing, await inputOf(c));
    return c.json({ datasource: dataSourceJson(updated), id: updated.id, message: "Datasource updated", name: updated.name });
  };
  const updateDoc = {
    body: DataSourceIn,
    responses: { 409: "a data source with the same name already exists, or the version sent is not the current one (Datasource has already been updated by someone else)" },
  };
  r.put("/api/datasources/uid/:uid", { action: "datasources:write", scope: scope("uid") }, update("uid"), updateDoc);
  r.put("/api/datasources/:id", { action: "datasources:write", scope: scope("id") }, update("id"), updateDoc);

  const remove = (by: LookupBy) => async (c: Context) => {
    const existing: DataSourceRecord = found(c, by);
    await deleteDataSource(deps, existing);
    return c.json(by === "id" ? { message: "Data source deleted" } : { message: "Data source deleted", id: existing.id });
  };
  r.delete("/api/datasources/uid/:uid", { action: "datasources:delete", scope: scope("uid") }, remove("uid"));
  r.delete("/api/datasources/name/:name", { action: "datasources:delete", scope: scope("name") }, remove("name"));
  r.delete("/api/datasources/:id", { action: "datasources:delete", scope: scope("id") }, remove("id"));
}
