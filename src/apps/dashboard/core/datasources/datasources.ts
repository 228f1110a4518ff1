// Data sources: create, update and delete with the real product's rules and
// messages (reference §4), secrets sealed at rest (core/secrets/secrets.ts), the
// in-memory registry kept current. secureJsonData is write-only: a key with
// text seals it, "" clears it, {name} points it at a secure value, and a key
// left out keeps what is stored.
import type { Sql, SqlTx } from "../../../../db/sql.ts";
import { ApiError, badRequest, conflict, forbidden, notFound } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import { isPlainObject } from "../../../../lib/json.ts";
import { SELECT_DATA_SOURCES, secretOwner, toRecord, type DataSourceRecord, type DataSourceRegistry } from "./datasource-registry.ts";
import { dataSourceScopes } from "./datasource-json.ts";
import { hasPermission, type PermissionSet } from "../identity/index.ts";
import type { OutboundPolicy } from "./outbound-policy.ts";
import type { SealedField, Secrets } from "../secrets/index.ts";

export type SecureInput = string | { name: string };

export interface DataSourceInput {
  name: string;
  type: string;
  uid?: string | undefined;
  access?: string | undefined;
  url?: string | undefined;
  user?: string | undefined;
  database?: string | undefined;
  basicAuth?: boolean | undefined;
  basicAuthUser?: string | undefined;
  withCredentials?: boolean | undefined;
  isDefault?: boolean | undefined;
  jsonData?: Record<string, unknown> | null | undefined;
  secureJsonData?: Record<string, SecureInput> | undefined;
  /**
   * secureJsonFields as the API shows them ({key: true}): on an update that
   * points the data source somewhere new, the stored secrets to keep (issue 16 #7)
   */
  keepSecureFields?: string[] | undefined;
  version?: number | undefined;
}

export interface DataSourceCaller {
  orgId: number;
  /** the user or service account acting; 0 for provisioning */
  userId: number;
  orgRole?: string | null;
  permissions: PermissionSet;
}

/** the decrypter a provisioned data source reads secure values as */
export const PROVISIONING_DECRYPTER = "provisioning.svc.app";

/** what data sources need of secure values (apis/kinds/secure-values.ts provides it) */
export interface SecureValueAccess {
  /** the secure value's spec.decrypters ([] when it lists none), or undefined when there is no such secure value */
  decrypters(orgId: number, name: string): Promise<string[] | undefined>;
  /** the value; `decrypter` names the service asking, which the secure value must allow */
  decrypt(orgId: number, name: string, decrypter?: string): Promise<string>;
}

export interface DataSourceDeps {
  pg: Sql;
  registry: DataSourceRegistry;
  secrets: Secrets;
  secureValues: SecureValueAccess;
  /** where requests on a data source's behalf may go (core/datasources/outbound-policy.ts); anywhere when absent */
  outbound?: OutboundPolicy;
  /** runs inside the creating transaction: the default permission entries (enterprise) */
  onCreated?(tx: SqlTx, ds: DataSourceRecord, caller: DataSourceCaller): Promise<void>;
  /** after a data source was created, deleted (its permissions came or went with it) or given another uid (provisioning) */
  onChanged?(): void;
}

export interface WriteOptions {
  /** provisioning from the config file: may change read-only data sources */
  provisioning?: { editable: boolean };
}

export const dataSourceNotFound = () => notFound("Data source not found");
const MAX_NAME = 190;
const MAX_URL = 255;
const MAX_TEXT = 255;
const UID = /^[a-zA-Z0-9_-]{1,40}$/;

/** the real product's ValidateURL: a URL without a scheme is read as http:// */
export function validateUrl(raw: string): void {
  if (raw === "") return;
  const withScheme = /^[^:]*:\/\//.test(raw) ? raw : `http://${raw}`;
  try {
    new URL(withScheme);
  } catch {
    throw badRequest("Validation error, invalid URL", { messageId: "datasource.urlInvalid" });
  }
}

type Normalized = Pick<
  DataSourceRecord,
  "name" | "type" | "access" | "url" | "user" | "database" | "basicAuth" | "basicAuthUser" | "withCredentials" | "isDefault" | "jsonData"
>;

function normalize(input: DataSourceInput): Normalized {
  if (input.name === "" || input.name.length > MAX_NAME) throw new ApiError(400, "Invalid datasource name.", { messageId: "datasource.nameInvalid" });
  if (input.type === "") throw badRequest("bad request data: type must not be empty", { messageId: "bad-request.invalid-field" });
  // the real product's columns hold 255 characters; longer text is a mistake, not a data source
  for (const field of ["type", "user", "database", "basicAuthUser"] as const) {
    if ((input[field]?.length ?? 0) > MAX_TEXT) {
      throw badRequest(`bad request data: ${field} must have at most ${MAX_TEXT} characters`, { messageId: "bad-request.invalid-field" });
    }
  }
  const url = input.url ?? "";
  if (url.length > MAX_URL) throw new ApiError(400, "Invalid datasource url.", { messageId: "datasource.urlInvalid" });
  validateUrl(url);
  const access = input.access || "proxy";
  if (access !== "proxy" && access !== "direct") throw badRequest("bad request data: access must be proxy or direct", { messageId: "bad-request.invalid-field" });
  const jsonData = input.jsonData ?? null;
  if (jsonData && "teamHttpHeaders" in jsonData) {
    // label rules have their own API and permission (spec "Data source LBAC rules")
    throw forbidden("team HTTP headers cannot be set in jsonData: use the LBAC rules API (/api/datasources/uid/:uid/lbac/teams)");
  }
  return {
    name: input.name,
    type: input.type,
    access,
    url,
    user: input.user ?? "",
    database: input.database ?? "",
    basicAuth: input.basicAuth ?? false,
    basicAuthUser: input.basicAuthUser ?? "",
    withCredentials: input.withCredentials ?? false,
    isDefault: input.isDefault ?? false,
    jsonData,
  };
}

interface SecretChanges {
  seal: Array<{ field: string; value: string }>;
  clear: string[];
  refs: Record<string, string>;
}

/** splits secureJsonData into values to seal, keys to clear and secure value references */
async function secretChanges(
  deps: DataSourceDeps, caller: DataSourceCaller, secure: Record<string, SecureInput> | undefined, options: WriteOptions,
): Promise<SecretChanges> {
  const out: SecretChanges = { seal: [], clear: [], refs: {} };
  for (const [field, value] of Object.entries(secure ?? {})) {
    if (field === "" || field.length > 190) throw badRequest("bad request data: secureJsonData keys must have 1 to 190 characters", { messageId: "bad-request.invalid-field" });
    if (typeof value === "string") {
      if (value === "") out.clear.push(field);
      else out.seal.push({ field, value });
      continue;
    }
    if (!isPlainObject(value) || typeof value.name !== "string" || value.name === "") {
      throw badRequest(`bad request data: secureJsonData.${field} must be a string or {"name": "<secure value name>"}`, { messageId: "bad-request.invalid-field" });
    }
    if (!options.provisioning && !hasPermission(caller.permissions, "secret.securevalues:read", [`secret.securevalues:uid:${value.name}`])) {
      throw forbidden(`secureJsonData.${field}: reading secure value "${value.name}" needs secret.securevalues:read`);
    }
    const decrypters = await deps.secureValues.decrypters(caller.orgId, value.name);
    if (decrypters === undefined) {
      throw badRequest(`secureJsonData.${field}: secure value "${value.name}" not found`, { messageId: "datasource.secureValueNotFound" });
    }
    // said now rather than on the data source's first request
    if (options.provisioning && !decrypters.includes(PROVISIONING_DECRYPTER)) {
      throw badRequest(`secureJsonData.${field}: secure value "${value.name}" does not list ${PROVISIONING_DECRYPTER} in spec.decrypters`, {
        messageId: "datasource.secureValueNotDecryptable",
      });
    }
    out.refs[field] = value.name;
  }
  return out;
}

async function sealAll(deps: DataSourceDeps, id: number, values: SecretChanges["seal"]): Promise<SealedField[]> {
  return Promise.all(values.map((v) => deps.secrets.seal(secretOwner(id), v.field, v.value)));
}

const isUniqueViolation = (err: unknown, index: string) => String(err).includes(index);

/** the data source as stored, secret fields included (undefined when it is gone) */
/** the stored row; `lock` holds it until the transaction ends (another node's or connection's write waits, then sees this one's) */
async function reload(tx: SqlTx, id: number, lock = false): Promise<DataSourceRecord | undefined> {
  const r = await tx.query<Record<string, unknown>>(`${SELECT_DATA_SOURCES} where id = $1${lock ? " for update" : ""}`, [id]);
  if (!r.rows[0]) return undefined;
  const fields = await tx.query<{ field: string }>("select field from secrets where owner = $1", [secretOwner(id)]);
  return toRecord(r.rows[0], fields.rows.map((f) => f.field));
}

/** the other default of the organization stops being it */
async function clearDefault(deps: DataSourceDeps, tx: SqlTx, orgId: number, except: number): Promise<DataSourceRecord[]> {
  const r = await tx.query<{ id: number }>("update data_sources set is_default = false where org_id = $1 and is_default and id <> $2 returning id", [orgId, except]);
  return r.rows.map((row) => ({ ...deps.registry.byId(orgId, row.id)!, isDefault: false }));
}

export async function createDataSource(deps: DataSourceDeps, caller: DataSourceCaller, input: DataSourceInput, options: WriteOptions = {}): Promise<DataSourceRecord> {
  const n = normalize(input);
  const uid = input.uid || newUid();
  if (!UID.test(uid)) throw badRequest("UID is invalid", { messageId: "datasource.uidInvalid" });
  if (deps.registry.byName(caller.orgId, n.name)) throw conflict("data source with the same name already exists");
  if (deps.registry.byUid(caller.orgId, uid)) throw conflict("data source with the same uid already exists");
  const secrets = await secretChanges(deps, caller, input.secureJsonData, options);
  const id = (await deps.pg.query<{ id: number }>("select nextval(pg_get_serial_sequence('data_sources', 'id'))::int as id")).rows[0]!.id;
  const sealed = await sealAll(deps, id, secrets.seal);
  const provisioned = options.provisioning !== undefined;
  let others: DataSourceRecord[] = [];
  let record: DataSourceRecord;
  try {
    record = await deps.pg.transaction(async (tx) => {
      if (n.isDefault) others = await clearDefault(deps, tx, caller.orgId, id);
      await tx.query(
        `insert into data_sources (id, org_id, uid, name, type, access, url, user_name, database_name, basic_auth,
           basic_auth_user, with_credentials, is_default, json_data, secure_refs, provisioned, read_only)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)`,
        [id, caller.orgId, uid, n.name, n.type, n.access, n.url, n.user, n.database, n.basicAuth, n.basicAuthUser,
          n.withCredentials, n.isDefault, n.jsonData, secrets.refs, provisioned, provisioned && !options.provisioning!.editable],
      );
      await deps.secrets.write(tx, secretOwner(id), sealed);
      await deps.onCreated?.(tx, (await reload(tx, id))!, caller);
      return (await reload(tx, id))!;
    });
  } catch (err) {
    if (isUniqueViolation(err, "data_sources_name_key")) throw conflict("data source with the same name already exists");
    if (isUniqueViolation(err, "data_sources_uid_key")) throw conflict("data source with the same uid already exists");
    throw err;
  }
  for (const o of others) deps.registry.put(o);
  deps.registry.put(record);
  deps.onChanged?.();
  return record;
}

export async function updateDataSource(
  deps: DataSourceDeps, caller: DataSourceCaller, existing: DataSourceRecord, input: DataSourceInput, options: WriteOptions = {},
): Promise<DataSourceRecord> {
  if (existing.readOnly && !options.provisioning) throw forbidden("Cannot update read-only data source");
  const uid = input.uid || existing.uid;
  if (uid !== existing.uid) {
    // the config file is the source of truth: an entry found by name may give its data source a uid (as the real product's provisioning does)
    if (!options.provisioning) throw badRequest("bad request data: uid cannot be changed", { messageId: "bad-request.invalid-field" });
    if (!UID.test(uid)) throw badRequest("UID is invalid", { messageId: "datasource.uidInvalid" });
    if (deps.registry.byUid(existing.orgId, uid)) throw conflict("data source with the same uid already exists");
  }
  // a version of 0 or none skips the check; a newer one wins (the real product lets provisioning force)
  if (input.version && input.version < existing.version) {
    throw conflict("Datasource has already been updated by someone else. Please reload and try again");
  }
  const n = normalize(input);
  const clash = deps.registry.byName(existing.orgId, n.name);
  if (clash && clash.id !== existing.id) throw conflict("Failed to update datasource: data source with the same name already exists");
  const changes = await secretChanges(deps, caller, input.secureJsonData, options);
  const sealed = await sealAll(deps, existing.id, changes.seal);
  const removed = [...changes.clear, ...Object.keys(changes.refs)];
  let others: DataSourceRecord[] = [];
  let record: DataSourceRecord;
  try {
    record = await deps.pg.transaction(async (tx) => {
      // checked again against the stored row: another write may have come in while the secrets were sealed
      const current = await reload(tx, existing.id, true);
      if (!current) throw dataSourceNotFound();
      if (current.readOnly && !options.provisioning) throw forbidden("Cannot update read-only data source");
      if (input.version && input.version < current.version) {
        throw conflict("Datasource has already been updated by someone else. Please reload and try again");
      }
      if (n.type !== current.type) await refuseTypeChangeUnderLabelRules(tx, current, n.type);
      const dropped = options.provisioning ? [] : secretsLeftBehind(caller, current, n, input);
      const refs = { ...current.secureRefs };
      for (const f of [...changes.clear, ...changes.seal.map((s) => s.field), ...dropped]) delete refs[f];
      Object.assign(refs, changes.refs);
      const readOnly = options.provisioning ? !options.provisioning.editable : current.readOnly;
      if (n.isDefault) others = await clearDefault(deps, tx, existing.orgId, existing.id);
      await tx.query(
        `update data_sources set name = $2, type = $3, access = $4, url = $5, user_name = $6, database_name = $7,
           basic_auth = $8, basic_auth_user = $9, with_credentials = $10, is_default = $11, json_data = $12,
           secure_refs = $13, version = version + 1, read_only = $14, provisioned = provisioned or $15, uid = $16, updated_at = now()
         where id = $1`,
        [existing.id, n.name, n.type, n.access, n.url, n.user, n.database, n.basicAuth, n.basicAuthUser, n.withCredentials,
          n.isDefault, n.jsonData, refs, readOnly, options.provisioning !== undefined, uid],
      );
      await deps.secrets.remove(tx, secretOwner(existing.id), [...removed, ...dropped]);
      await deps.secrets.write(tx, secretOwner(existing.id), sealed);
      return (await reload(tx, existing.id))!;
    });
  } catch (err) {
    if (isUniqueViolation(err, "data_sources_name_key")) throw conflict("Failed to update datasource: data source with the same name already exists");
    if (isUniqueViolation(err, "data_sources_uid_key")) throw conflict("data source with the same uid already exists");
    throw err;
  }
  for (const o of others) deps.registry.put(o);
  deps.registry.put(record);
  // permissions are granted on the uid
  if (uid !== existing.uid) deps.onChanged?.();
  return record;
}

/** scheme, host and port of a data source URL (read as http:// without a scheme); the text itself when it does not parse */
function originOf(raw: string): string {
  const text = raw.trim();
  try {
    return new URL(/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(text) ? text : `http://${text}`).origin;
  } catch {
    return text;
  }
}

/**
 * The stored secrets an update leaves behind (issue 16 #7). When the URL's
 * origin (scheme, host, port) or the basic auth user changes, the secrets
 * were given for another destination: those the request neither re-sends
 * nor keeps explicitly (listed in secureJsonFields as true) are removed.
 * Keeping one is a decision about who may receive it: it needs
 * datasources.permissions:write on the data source (its Admin level; org
 * Admins hold it), and for a secure value reference secret.securevalues:read
 * on that value, as referencing it anew does. Anything else is 403.
 */
function secretsLeftBehind(caller: DataSourceCaller, current: DataSourceRecord, next: Normalized, input: DataSourceInput): string[] {
  // a user change matters when the password is sent with it (basic auth on)
  const moved = originOf(current.url) !== originOf(next.url) || (next.basicAuth && current.basicAuthUser !== next.basicAuthUser);
  if (!moved) return [];
  const resent = new Set(Object.keys(input.secureJsonData ?? {}));
  const stored = [...current.secureFields, ...Object.keys(current.secureRefs)].filter((f) => !resent.has(f));
  const keep = new Set(input.keepSecureFields ?? []);
  const kept = stored.filter((f) => keep.has(f));
  if (kept.length && !hasPermission(caller.permissions, "datasources.permissions:write", dataSourceScopes(current))) {
    throw forbidden(
      `secureJsonFields: keeping ${kept.join(", ")} for a new URL origin or basic auth user needs datasources.permissions:write on the data source (Admin permission): send the secrets again in secureJsonData, or leave them out of secureJsonFields to drop them`,
    );
  }
  for (const f of kept) {
    const name = current.secureRefs[f];
    if (name !== undefined && !hasPermission(caller.permissions, "secret.securevalues:read", [`secret.securevalues:uid:${name}`])) {
      throw forbidden(`secureJsonFields.${f}: keeping secure value "${name}" for a new URL origin or basic auth user needs secret.securevalues:read`);
    }
  }
  return stored.filter((f) => !keep.has(f));
}

/**
 * Label rules (LBAC) are written for one type's query language and apply to
 * that type only: a data source that changed type would serve restricted
 * users unrestricted (issue 16 #9). The rules must go first.
 */
async function refuseTypeChangeUnderLabelRules(tx: SqlTx, current: DataSourceRecord, type: string): Promise<void> {
  const r = await tx.query<{ n: number }>("select count(*)::int as n from datasource_lbac_rules where datasource_id = $1", [current.id]);
  if ((r.rows[0]?.n ?? 0) > 0) {
    throw badRequest(
      `bad request data: type cannot be changed from "${current.type}" to "${type}" while the data source has label rules (LBAC): remove them first (PUT /api/datasources/uid/${current.uid}/lbac/teams with {"rules": []})`,
      { messageId: "datasource.typeChangeWithLabelRules" },
    );
  }
}

export async function deleteDataSource(deps: DataSourceDeps, existing: DataSourceRecord, options: WriteOptions = {}): Promise<void> {
  if (existing.readOnly && !options.provisioning) throw forbidden("Cannot delete read-only data source");
  const deleted = await deps.pg.transaction(async (tx) => {
    // permissions and label rules go with it (foreign keys)
    const r = await tx.query("delete from data_sources where id = $1", [existing.id]);
    await deps.secrets.remove(tx, secretOwner(existing.id));
    return (r.affectedRows ?? 0) > 0;
  });
  deps.registry.remove(existing);
  // deleted meanwhile by another request
  if (!deleted) throw dataSourceNotFound();
  deps.onChanged?.();
}

/**
 * The data source's secrets in plain text, for the requests made on its
 * behalf only (proxy, health, queries): sealed values and referenced secure values.
 */
export async function openDataSourceSecrets(deps: DataSourceDeps, d: DataSourceRecord): Promise<Record<string, string>> {
  const out = d.secureFields.length ? { ...(await sealedValuesOf(deps.secrets, d)) } : {};
  for (const [field, name] of Object.entries(d.secureRefs)) {
    out[field] = await deps.secureValues.decrypt(d.orgId, name, d.provisioned ? PROVISIONING_DECRYPTER : undefined);
  }
  return out;
}

/**
 * Opened sealed values, per data source version (every update bumps it), so
 * the proxy does not read and decrypt on every request; kept for a few minutes
 * at most, as the real product caches decrypted secrets.
 */
const OPENED_TTL_MS = 5 * 60_000;
const opened = new WeakMap<Secrets, Map<number, { version: number; until: number; values: Promise<Record<string, string>> }>>();

function sealedValuesOf(secrets: Secrets, d: DataSourceRecord): Promise<Record<string, string>> {
  let cache = opened.get(secrets);
  if (!cache) opened.set(secrets, (cache = new Map()));
  const now = Date.now();
  const hit = cache.get(d.id);
  if (hit && hit.version === d.version && hit.until > now) return hit.values;
  for (const [id, entry] of cache) if (entry.until <= now) cache.delete(id);
  const values = secrets.open(secretOwner(d.id));
  cache.set(d.id, { version: d.version, until: now + OPENED_TTL_MS, values });
  values.catch(() => cache.delete(d.id));
  return values;
}
