// Data sources served from memory (DESIGN rule 7): loaded once at startup and
// kept current by the service's writes, so permission scopes, lists and the
// proxy never wait for the database. Lookups are synchronous for that reason:
// route guards resolve name and id scopes to the uid through them.
import type { Sql } from "../../../../db/sql.ts";
import type { ReadModelStats } from "../../../../lib/reloadable.ts";

export interface DataSourceRecord {
  id: number;
  orgId: number;
  uid: string;
  name: string;
  type: string;
  access: string;
  url: string;
  user: string;
  database: string;
  basicAuth: boolean;
  basicAuthUser: string;
  withCredentials: boolean;
  isDefault: boolean;
  jsonData: Record<string, unknown> | null;
  /** secureJsonData keys that name a secure value: key -> secure value name */
  secureRefs: Record<string, string>;
  /** secureJsonData keys with a sealed value */
  secureFields: string[];
  version: number;
  provisioned: boolean;
  readOnly: boolean;
  permissionsInitialized: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface DataSourceRegistry {
  /** another node changed data sources: every one read again, swapped in at once */
  reload(): Promise<void>;
  byUid(orgId: number, uid: string): DataSourceRecord | undefined;
  byName(orgId: number, name: string): DataSourceRecord | undefined;
  byId(orgId: number, id: number): DataSourceRecord | undefined;
  /** the organization's data sources, by name without regard to case */
  list(orgId: number): DataSourceRecord[];
  all(): DataSourceRecord[];
  put(record: DataSourceRecord): void;
  remove(record: DataSourceRecord): void;
  /** loaded once; puts and removes since (GET /metrics) */
  readonly stats: ReadModelStats;
}

export const SELECT_DATA_SOURCES = `
  select id, org_id, uid, name, type, access, url, user_name, database_name, basic_auth, basic_auth_user,
         with_credentials, is_default, json_data, secure_refs, version, provisioned, read_only,
         permissions_initialized, created_at, updated_at
    from data_sources`;

export const secretOwner = (id: number) => `datasource:${id}`;

export function toRecord(r: Record<string, unknown>, secureFields: string[]): DataSourceRecord {
  return {
    id: Number(r.id),
    orgId: Number(r.org_id),
    uid: String(r.uid),
    name: String(r.name),
    type: String(r.type),
    access: String(r.access),
    url: String(r.url),
    user: String(r.user_name),
    database: String(r.database_name),
    basicAuth: Boolean(r.basic_auth),
    basicAuthUser: String(r.basic_auth_user),
    withCredentials: Boolean(r.with_credentials),
    isDefault: Boolean(r.is_default),
    jsonData: (r.json_data as Record<string, unknown> | null) ?? null,
    secureRefs: (r.secure_refs as Record<string, string> | null) ?? {},
    secureFields: [...secureFields].sort(),
    version: Number(r.version),
    provisioned: Boolean(r.provisioned),
    readOnly: Boolean(r.read_only),
    permissionsInitialized: Boolean(r.permissions_initialized),
    createdAt: new Date(r.created_at as string).toISOString(),
    updatedAt: new Date(r.updated_at as string).toISOString(),
  };
}

export async function loadDataSources(pg: Sql): Promise<DataSourceRegistry> {
  const read = async () => {
    const [rows, secrets] = await Promise.all([
      pg.query<Record<string, unknown>>(SELECT_DATA_SOURCES),
      pg.query<{ owner: string; field: string }>("select owner, field from secrets where owner like 'datasource:%'"),
    ]);
    const fields = new Map<string, string[]>();
    for (const s of secrets.rows) fields.set(s.owner, [...(fields.get(s.owner) ?? []), s.field]);
    return rows.rows.map((r) => toRecord(r, fields.get(secretOwner(Number(r.id))) ?? []));
  };

  const byId = new Map<number, DataSourceRecord>();
  const byUid = new Map<string, DataSourceRecord>();
  const byName = new Map<string, DataSourceRecord>();
  /** per organization, rebuilt lazily after a change */
  const sorted = new Map<number, DataSourceRecord[]>();
  const index = (d: DataSourceRecord) => {
    byId.set(d.id, d);
    byUid.set(`${d.orgId}\n${d.uid}`, d);
    byName.set(`${d.orgId}\n${d.name}`, d);
    sorted.delete(d.orgId);
  };
  const unindex = (id: number) => {
    const old = byId.get(id);
    if (!old) return;
    byId.delete(id);
    byUid.delete(`${old.orgId}\n${old.uid}`);
    byName.delete(`${old.orgId}\n${old.name}`);
    sorted.delete(old.orgId);
  };
  for (const r of await read()) index(r);
  const stats = { loads: 1, updates: 0 };

  return {
    byUid: (orgId, uid) => byUid.get(`${orgId}\n${uid}`),
    byName: (orgId, name) => byName.get(`${orgId}\n${name}`),
    byId: (orgId, id) => {
      const d = byId.get(id);
      return d && d.orgId === orgId ? d : undefined;
    },
    list(orgId) {
      let list = sorted.get(orgId);
      if (!list) {
        list = [...byId.values()]
          .filter((d) => d.orgId === orgId)
          .sort((a, b) => a.name.toLowerCase().localeCompare(b.name.toLowerCase()) || a.id - b.id);
        sorted.set(orgId, list);
      }
      return list;
    },
    all: () => [...byId.values()],
    put(record) {
      stats.updates++;
      unindex(record.id);
      index(record);
    },
    remove(record) {
      stats.updates++;
      unindex(record.id);
    },
    async reload() {
      const records = await read();
      stats.loads++;
      byId.clear();
      byUid.clear();
      byName.clear();
      sorted.clear();
      for (const r of records) index(r);
    },
    stats,
  };
}
