// How the data source routes find their data source and name its scopes: a
// grant on the uid also reaches the data source by name or id (the real
// product resolves name and id scopes to the uid), so a route guard asks for
// every scope the data source is known by.
import type { Context } from "hono";
import { identityOf } from "../../access/guard.ts";
import { dataSourceScopes } from "../../core/datasources/datasource-json.ts";
import type { DataSourceRecord, DataSourceRegistry } from "../../core/datasources/datasource-registry.ts";
import { dataSourceNotFound } from "../../core/datasources/datasources.ts";

export type LookupBy = "uid" | "name" | "id";

function find(registry: DataSourceRegistry, c: Context, by: LookupBy, param: string): DataSourceRecord | undefined {
  const orgId = identityOf(c).orgId;
  const value = c.req.param(param) ?? "";
  if (by === "uid") return registry.byUid(orgId, value);
  if (by === "name") return registry.byName(orgId, value);
  return /^\d{1,10}$/.test(value) ? registry.byId(orgId, Number(value)) : undefined;
}

/** the scopes of the data source a path names (those of the path alone when there is none) */
export function scopesOfPath(registry: DataSourceRegistry, by: LookupBy, param = by) {
  return (c: Context): string[] => {
    const d = find(registry, c, by, param);
    return d ? dataSourceScopes(d) : [`datasources:${by}:${c.req.param(param) ?? ""}`];
  };
}

/** the data source a path names, or 404 "Data source not found" */
export function dataSourceOfPath(registry: DataSourceRegistry, c: Context, by: LookupBy, param: string = by): DataSourceRecord {
  const d = find(registry, c, by, param);
  if (!d) throw dataSourceNotFound();
  return d;
}
