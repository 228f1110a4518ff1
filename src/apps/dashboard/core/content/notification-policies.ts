// An organization's notification policy tree (the real product's routing
// tree of /api/v1/provisioning/policies), kept as written, and the defaults a
// new organization starts with: the default email contact point and a root
// policy sending to it. The tree is checked as the real product checks it:
// the root's rules, every receiver and mute timing it names must exist.
import type { Sql, SqlTx } from "../../../../db/sql.ts";
import { badRequest } from "../../../../lib/errors.ts";
import { isPlainObject } from "../../../../lib/json.ts";
import { newUid } from "../../../../lib/ids.ts";
import { invalidSpec, parsePromDuration, requireRelaxedProvenance, type Provenance } from "./alerting-common.ts";

export type Db = Sql | SqlTx;
export type Route = Record<string, unknown>;

/** the contact point and root policy of a new organization (the real product's default configuration) */
export const DEFAULT_RECEIVER = "grafana-default-email";
export const defaultPolicy = (): Route => ({ receiver: DEFAULT_RECEIVER, group_by: ["grafana_folder", "alertname"] });

/** inserts the default contact point (email to a placeholder address) */
export async function insertDefaultContactPoint(db: Db, orgId: number): Promise<void> {
  await db.query(
    `insert into alerting_contact_points (org_id, uid, name, type, settings) values ($1, $2, $3, 'email', $4)`,
    [orgId, newUid(), DEFAULT_RECEIVER, { addresses: "<example@email.com>" }],
  );
}

/** the organization's tree and its provenance, made with the defaults on first use */
export async function policyOf(db: Db, orgId: number): Promise<{ tree: Route; provenance: Provenance }> {
  const found = await db.query<{ policy: Route; policy_provenance: Provenance }>(
    "select policy, policy_provenance from alerting_configs where org_id = $1", [orgId],
  );
  if (found.rows[0]) return { tree: found.rows[0].policy, provenance: found.rows[0].policy_provenance };
  const made = await db.query("insert into alerting_configs (org_id, policy) values ($1, $2) on conflict do nothing returning org_id", [orgId, defaultPolicy()]);
  if (made.rows.length) await insertDefaultContactPoint(db, orgId);
  return policyOf(db, orgId);
}

/** makes the organization's defaults if this is its first alerting request */
export const ensureAlertingDefaults = (db: Db, orgId: number) => policyOf(db, orgId).then(() => undefined);

export async function storePolicy(db: Db, orgId: number, tree: Route, provenance: Provenance): Promise<void> {
  await db.query("update alerting_configs set policy = $2, policy_provenance = $3, updated_at = now() where org_id = $1", [orgId, tree, provenance]);
}

const MATCH_TYPES = new Set(["=", "!=", "=~", "!~"]);
const STRING_LISTS = ["group_by", "matchers", "mute_time_intervals", "active_time_intervals"] as const;
const DURATIONS = ["group_wait", "group_interval", "repeat_interval"] as const;
const STRING_MAPS = ["match", "match_re"] as const;

const bad = (path: string, problem: string) => badRequest(`bad request data: ${path} ${problem}`, { messageId: "bad-request.invalid-field" });
const isStringList = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === "string");

/** a route as the real product reads it: its known fields, type-checked, everything else (provenance among them) left out */
export function readRoute(value: unknown, path = ""): Route {
  const at = (field: string) => (path ? `${path}.${field}` : field);
  if (!isPlainObject(value)) throw bad(path || "body", "must be an object");
  const out: Route = {};
  const v = value;
  if (v.receiver != null) {
    if (typeof v.receiver !== "string") throw bad(at("receiver"), "must be a string");
    out.receiver = v.receiver;
  }
  for (const f of STRING_LISTS) {
    if (v[f] == null) continue;
    if (!isStringList(v[f])) throw bad(at(f), "must be an array of strings");
    out[f] = v[f];
  }
  for (const f of STRING_MAPS) {
    if (v[f] == null) continue;
    if (!isPlainObject(v[f]) || !Object.values(v[f]).every((s) => typeof s === "string")) throw bad(at(f), "must be an object of strings");
    out[f] = v[f];
  }
  if (v.object_matchers != null) {
    if (!Array.isArray(v.object_matchers)) throw bad(at("object_matchers"), "must be an array of [name, operator, value]");
    v.object_matchers.forEach((m, i) => {
      if (!isStringList(m) || m.length !== 3) throw bad(`${at("object_matchers")}[${i}]`, "must be [name, operator, value]");
      if (!MATCH_TYPES.has(m[1]!)) throw bad(`${at("object_matchers")}[${i}]`, `has an unknown operator "${m[1]!.slice(0, 20)}" (=, !=, =~ or !~)`);
    });
    out.object_matchers = v.object_matchers;
  }
  if (v.continue != null) {
    if (typeof v.continue !== "boolean") throw bad(at("continue"), "must be a boolean");
    out.continue = v.continue;
  }
  for (const f of DURATIONS) {
    if (v[f] == null) continue;
    if (typeof v[f] !== "string" || parsePromDuration(v[f]) === undefined) {
      throw bad(at(f), `is not a valid duration string: ${JSON.stringify(String(v[f]).slice(0, 40))}`);
    }
    out[f] = v[f];
  }
  if (v.routes != null) {
    if (!Array.isArray(v.routes)) throw bad(at("routes"), "must be an array of routes");
    out.routes = v.routes.map((child, i) => readRoute(child, `${at("routes")}[${i}]`));
  }
  return out;
}

const listOf = (r: Route, f: string) => (r[f] as string[] | undefined) ?? [];
const children = (r: Route) => (r.routes as Route[] | undefined) ?? [];
const hasEntries = (v: unknown) => (Array.isArray(v) ? v.length > 0 : isPlainObject(v) && Object.keys(v).length > 0);

/** the real product's Route.ValidateChild */
function validateChild(r: Route): void {
  const groupBy = listOf(r, "group_by");
  const labels = groupBy.filter((l) => l !== "...");
  if (labels.length > 0 && labels.length !== groupBy.length) throw invalidSpec("cannot have wildcard group_by (`...`) and other other labels at the same time");
  const seen = new Set<string>();
  for (const l of labels) {
    if (seen.has(l)) throw invalidSpec(`duplicated label ${JSON.stringify(l)} in group_by, ${String(r.receiver ?? "")} [${labels.join(" ")}]`);
    seen.add(l);
  }
  if (r.group_interval !== undefined && parsePromDuration(r.group_interval as string) === 0) throw invalidSpec("group_interval cannot be zero");
  if (r.repeat_interval !== undefined && parsePromDuration(r.repeat_interval as string) === 0) throw invalidSpec("repeat_interval cannot be zero");
  for (const child of children(r)) validateChild(child);
}

/** the real product's Route.Validate, ValidateReceivers and ValidateTimeIntervals, in that order */
export function validatePolicyTree(tree: Route, receivers: ReadonlySet<string>, timings: ReadonlySet<string>): void {
  if (!tree.receiver) throw invalidSpec("root route must specify a default receiver");
  if (hasEntries(tree.match) || hasEntries(tree.match_re) || hasEntries(tree.matchers) || hasEntries(tree.object_matchers)) {
    throw invalidSpec("root route must not have any matchers");
  }
  if (hasEntries(tree.mute_time_intervals)) throw invalidSpec("root route must not have any mute time intervals");
  if (hasEntries(tree.active_time_intervals)) throw invalidSpec("root route must not have any active time intervals");
  validateChild(tree);
  const checkReceivers = (r: Route) => {
    const name = (r.receiver as string | undefined) ?? "";
    // a child without a receiver inherits its parent's
    if (name !== "" && !receivers.has(name)) throw invalidSpec(`receiver '${name}' does not exist`);
    children(r).forEach(checkReceivers);
  };
  checkReceivers(tree);
  const checkTimings = (r: Route) => {
    for (const name of listOf(r, "mute_time_intervals")) if (!timings.has(name)) throw invalidSpec(`mute time interval '${name}' does not exist`);
    for (const name of listOf(r, "active_time_intervals")) if (!timings.has(name)) throw invalidSpec(`active time interval '${name}' does not exist`);
    children(r).forEach(checkTimings);
  };
  checkTimings(tree);
}

/** whether any policy of the tree sends to the receiver */
export function treeUsesReceiver(tree: Route, name: string): boolean {
  return tree.receiver === name || children(tree).some((c) => treeUsesReceiver(c, name));
}

/** whether any policy of the tree names the mute timing (muting or active) */
export function treeUsesTiming(tree: Route, name: string): boolean {
  return listOf(tree, "mute_time_intervals").includes(name) || listOf(tree, "active_time_intervals").includes(name)
    || children(tree).some((c) => treeUsesTiming(c, name));
}

/** the tree with a receiver renamed everywhere */
export function renameReceiver(tree: Route, from: string, to: string): Route {
  const out: Route = { ...tree, ...(tree.receiver === from ? { receiver: to } : {}) };
  if (tree.routes) out.routes = children(tree).map((c) => renameReceiver(c, from, to));
  return out;
}

/** the tree with a mute timing renamed everywhere */
export function renameTiming(tree: Route, from: string, to: string): Route {
  const out: Route = { ...tree };
  for (const f of ["mute_time_intervals", "active_time_intervals"]) if (tree[f]) out[f] = listOf(tree, f).map((n) => (n === from ? to : n));
  if (tree.routes) out.routes = children(tree).map((c) => renameTiming(c, from, to));
  return out;
}

async function names(db: Db, sql: string, orgId: number): Promise<Set<string>> {
  return new Set((await db.query<{ name: string }>(sql, [orgId])).rows.map((r) => r.name));
}
export const receiverNames = (db: Db, orgId: number) => names(db, "select distinct name from alerting_contact_points where org_id = $1", orgId);
export const timingNames = (db: Db, orgId: number) => names(db, "select name from alerting_mute_timings where org_id = $1", orgId);

export interface PolicyStore {
  get(orgId: number): Promise<Route>;
  /** PUT: the tree replaces the current one (validated; provenance as the relaxed rule allows) */
  put(orgId: number, body: unknown, provenance: Provenance): Promise<void>;
  /** DELETE: back to the default tree, the default contact point made again if it is gone */
  reset(orgId: number): Promise<Route>;
}

export function createPolicyStore(pg: Sql): PolicyStore {
  return {
    async get(orgId) {
      const { tree, provenance } = await policyOf(pg, orgId);
      return { ...tree, provenance };
    },
    async put(orgId, body, provenance) {
      const tree = readRoute(body);
      await pg.transaction(async (tx) => {
        const current = await policyOf(tx, orgId);
        validatePolicyTree(tree, await receiverNames(tx, orgId), await timingNames(tx, orgId));
        requireRelaxedProvenance(current.provenance, provenance);
        await storePolicy(tx, orgId, tree, provenance);
      });
    },
    async reset(orgId) {
      return pg.transaction(async (tx) => {
        await policyOf(tx, orgId);
        const tree = defaultPolicy();
        if (!(await receiverNames(tx, orgId)).has(DEFAULT_RECEIVER)) await insertDefaultContactPoint(tx, orgId);
        await storePolicy(tx, orgId, tree, "");
        return tree;
      });
    },
  };
}
