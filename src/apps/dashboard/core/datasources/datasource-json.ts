// The data source as the legacy API shows it (reference §4): secrets never
// appear; password and basicAuthPassword are always empty strings and
// secureJsonFields names the secret keys that hold a value.
import type { DataSourceRecord } from "./datasource-registry.ts";
import { typeInfo } from "./datasource-types.ts";

export function secureJsonFields(d: DataSourceRecord): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const f of [...d.secureFields, ...Object.keys(d.secureRefs)].sort()) out[f] = true;
  return out;
}

/** GET by uid, name or id; the datasource of POST and PUT answers */
export function dataSourceJson(d: DataSourceRecord) {
  return {
    id: d.id,
    uid: d.uid,
    orgId: d.orgId,
    name: d.name,
    type: d.type,
    typeLogoUrl: "",
    access: d.access,
    url: d.url,
    user: d.user,
    database: d.database,
    password: "",
    basicAuth: d.basicAuth,
    basicAuthUser: d.basicAuthUser,
    basicAuthPassword: "",
    withCredentials: d.withCredentials,
    isDefault: d.isDefault,
    jsonData: d.jsonData ?? {},
    secureJsonFields: secureJsonFields(d),
    version: d.version,
    readOnly: d.readOnly,
  };
}

/** an item of GET /api/datasources */
export function dataSourceListItem(d: DataSourceRecord) {
  return {
    id: d.id,
    uid: d.uid,
    orgId: d.orgId,
    name: d.name,
    type: d.type,
    typeName: typeInfo(d.type).name,
    typeLogoUrl: "",
    access: d.access,
    url: d.url,
    user: d.user,
    database: d.database,
    basicAuth: d.basicAuth,
    isDefault: d.isDefault,
    jsonData: d.jsonData ?? {},
    readOnly: d.readOnly,
  };
}

/** the scopes a data source is reached through: its uid, id and name */
export function dataSourceScopes(d: Pick<DataSourceRecord, "uid" | "id" | "name">): string[] {
  return [`datasources:uid:${d.uid}`, `datasources:id:${d.id}`, `datasources:name:${d.name}`];
}
