// The config file's datasources block, applied at startup as the real
// product's provisioning files are: each entry creates or updates the data
// source of its organization with the same uid (or name). The file is the
// source of truth: a provisioned data source is read-only through the API
// unless its entry says editable: true, secrets left out of the entry are
// cleared, and an entry found by name takes the uid it names. A data source
// provisioned earlier and no longer in the file is handed over to the API (no
// longer read-only). An entry that cannot be applied stops startup with a
// message naming it (never its secrets); so do two entries for one name or
// uid, or two defaults, of one organization.
import { ConfigError } from "../../../../config/load.ts";
import type { ProvisionedDataSource } from "../../../../config/schema.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { canonicalJson } from "../../../../lib/json.ts";
import type { Logger } from "../../../../lib/logger.ts";
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
    isDefault: e.isDefault ?? false, jsonData: e.jsonData ?? null, readOnly: !(e.editable ?? false), uid: e.uid || d.uid,
  };
  const have = {
    name: d.name, type: d.type, access: d.access, url: d.url, user: d.user, database: d.database, basicAuth: d.basicAuth,
    basicAuthUser: d.basicAuthUser, withCredentials: d.withCredentials, isDefault: d.isDefault, jsonData: d.jsonData, readOnly: d.readOnly,
    uid: d.uid,
  };
  if (plain(want) !== plain(have) || !d.provisioned) return false;
  const wantSealed: Record<string, string> = {};
  const wantRefs: Record<string, string> = {};
  for (const [k, v] of Object.entries(e.secureJsonData ?? {})) {
    // "" holds nothing (it clears)
    if (typeof v === "string") {
      if (v !== "") wantSealed[k] = v;
    } else wantRefs[k] = v.name;
  }
  if (plain(wantRefs) !== plain(d.secureRefs)) return false;
  const opened = await openDataSourceSecrets(deps, { ...d, secureRefs: {} });
  return plain(opened) === plain(wantSealed);
}

const whereOf = (i: number, e: ProvisionedDataSource) => `datasources[${i}] (name ${JSON.stringify(e.name)})`;

/** entries that would overwrite each other: one name or uid twice, or two defaults, in one organization */
function clashes(entries: readonly ProvisionedDataSource[]): string[] {
  const problems: string[] = [];
  const names = new Map<string, number>();
  const uids = new Map<string, number>();
  const defaults = new Map<number, number>();
  for (const [i, e] of entries.entries()) {
    const orgId = e.orgId ?? 1;
    const name = names.get(`${orgId}\n${e.name}`);
    if (name !== undefined) problems.push(`${whereOf(i, e)}: the name is also given to datasources[${name}] (organization ${orgId})`);
    else names.set(`${orgId}\n${e.name}`, i);
    if (e.uid) {
      const uid = uids.get(`${orgId}\n${e.uid}`);
      if (uid !== undefined) problems.push(`${whereOf(i, e)}: uid ${JSON.stringify(e.uid)} is also given to datasources[${uid}] (organization ${orgId})`);
      else uids.set(`${orgId}\n${e.uid}`, i);
    }
    if (e.isDefault) {
      const other = defaults.get(orgId);
      // each would take the default from the other at every start
      if (other !== undefined) problems.push(`${whereOf(i, e)}: only one data source per organization can be the default (isDefault); datasources[${other}] is too`);
      else defaults.set(orgId, i);
    }
  }
  return problems;
}

export async function provisionDataSources(deps: DataSourceDeps, entries: readonly ProvisionedDataSource[], logger: Logger): Promise<void> {
  const problems = clashes(entries);
  if (problems.length) throw new ConfigError(problems);
  const kept = new Set<number>();
  const orgs = new Set((await deps.pg.query<{ id: number }>("select id from orgs")).rows.map((r) => r.id));
  for (const [i, e] of entries.entries()) {
    const where = whereOf(i, e);
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
        ? await updateDataSource(deps, caller, existing, inputOf(e, existing), options)
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
