// The config file's datasources block, applied at startup as the real
// product's provisioning files are: each entry creates or updates the data
// source of its organization with the same uid (or name). The file is the
// source of truth: a provisioned data source is read-only through the API
// unless its entry says editable: true, and secrets left out of the entry are
// cleared. A data source provisioned earlier and no longer in the file is
// handed over to the API (no longer read-only). An entry that cannot be
// applied stops startup with a message naming it.
import { ConfigError } from "../../../config/load.ts";
import type { ProvisionedDataSource } from "../../../config/schema.ts";
import { ApiError } from "../../../lib/errors.ts";
import { canonicalJson } from "../../../lib/json.ts";
import type { Logger } from "../../../lib/logger.ts";
import type { DataSourceRecord } from "./datasource-registry.ts";
import {
  createDataSource, openDataSourceSecrets, updateDataSource, type DataSourceDeps, type DataSourceInput, type SecureInput,
} from "./datasources.ts";

function inputOf(e: ProvisionedDataSource, existing: DataSourceRecord | undefined): DataSourceInput {
  const secure: Record<string, SecureInput> = { ...e.secureJsonData };
  for (const field of [...(existing?.secureFields ?? []), ...Object.keys(existing?.secureRefs ?? {})]) {
    if (!(field in secure)) secure[field] = "";
  }
  return {
    name: e.name,
    type: e.type,
    uid: e.uid,
    access: e.access,
    url: e.url,
    user: e.user,
    database: e.database,
    basicAuth: e.basicAuth,
    basicAuthUser: e.basicAuthUser,
    withCredentials: e.withCredentials,
    isDefault: e.isDefault,
    jsonData: e.jsonData ?? null,
    secureJsonData: secure,
  };
}

/** whether applying the entry would change nothing (so restarts do not bump versions) */
async function unchanged(deps: DataSourceDeps, d: DataSourceRecord, e: ProvisionedDataSource): Promise<boolean> {
  const plain = (x: Record<string, unknown>) => canonicalJson(x);
  const want = {
    name: e.name, type: e.type, access: e.access ?? "proxy", url: e.url ?? "", user: e.user ?? "", database: e.database ?? "",
    basicAuth: e.basicAuth ?? false, basicAuthUser: e.basicAuthUser ?? "", withCredentials: e.withCredentials ?? false,
    isDefault: e.isDefault ?? false, jsonData: e.jsonData ?? null, readOnly: !(e.editable ?? false),
  };
  const have = {
    name: d.name, type: d.type, access: d.access, url: d.url, user: d.user, database: d.database, basicAuth: d.basicAuth,
    basicAuthUser: d.basicAuthUser, withCredentials: d.withCredentials, isDefault: d.isDefault, jsonData: d.jsonData, readOnly: d.readOnly,
  };
  if (plain(want) !== plain(have) || !d.provisioned) return false;
  const wantSealed: Record<string, string> = {};
  const wantRefs: Record<string, string> = {};
  for (const [k, v] of Object.entries(e.secureJsonData ?? {})) {
    if (typeof v === "string") wantSealed[k] = v;
    else wantRefs[k] = v.name;
  }
  if (plain(wantRefs) !== plain(d.secureRefs)) return false;
  const opened = await openDataSourceSecrets(deps, { ...d, secureRefs: {} });
  return plain(opened) === plain(wantSealed);
}

export async function provisionDataSources(deps: DataSourceDeps, entries: readonly ProvisionedDataSource[], logger: Logger): Promise<void> {
  const kept = new Set<number>();
  const orgs = new Set((await deps.pg.query<{ id: number }>("select id from orgs")).rows.map((r) => r.id));
  for (const [i, e] of entries.entries()) {
    const where = `datasources[${i}] (name ${JSON.stringify(e.name)})`;
    const orgId = e.orgId ?? 1;
    if (!orgs.has(orgId)) throw new ConfigError([`${where}: organization ${orgId} does not exist`]);
    const existing = (e.uid ? deps.registry.byUid(orgId, e.uid) : undefined) ?? deps.registry.byName(orgId, e.name);
    const caller = { orgId, userId: 0, permissions: new Map() };
    const options = { provisioning: { editable: e.editable ?? false } };
    try {
      if (existing && (await unchanged(deps, existing, e))) {
        kept.add(existing.id);
        continue;
      }
      const d = existing
        ? await updateDataSource(deps, caller, existing, { ...inputOf(e, existing), uid: existing.uid }, options)
        : await createDataSource(deps, caller, inputOf(e, undefined), options);
      kept.add(d.id);
      logger.info(existing ? "provisioned data source updated" : "provisioned data source created", { name: d.name, uid: d.uid, org: orgId });
    } catch (err) {
      if (err instanceof ApiError) throw new ConfigError([`${where}: ${err.message}`]);
      throw err;
    }
  }
  for (const d of deps.registry.all()) {
    if (!d.provisioned || kept.has(d.id)) continue;
    await deps.pg.query("update data_sources set provisioned = false, read_only = false where id = $1", [d.id]);
    deps.registry.put({ ...d, provisioned: false, readOnly: false });
    logger.info("data source no longer in the config file: now managed through the API", { name: d.name, uid: d.uid, org: d.orgId });
  }
}
