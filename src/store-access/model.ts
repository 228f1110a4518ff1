// Access policies and tokens of the log and metrics stores, in the model of
// the enterprise metrics product's admin API (reference §11): a policy names
// the tenants it reaches (realms; tenant "*" for all) and what it may do
// (scopes); a token belongs to one policy. This file checks request bodies
// and renders the JSON both admin APIs answer; access-store.ts keeps them.
import { badRequest } from "../lib/errors.ts";
import { tenantIdProblem } from "../lib/tenant.ts";

/** the scopes a policy may hold: the seven of issue 22, the two delete scopes of the real products (the delete APIs, issue 25), and admin (the admin API, as the real product's) */
export const SCOPES = ["logs:write", "logs:read", "logs:delete", "metrics:write", "metrics:read", "metrics:delete", "rules:read", "rules:write", "alerts:read", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

export const POLICY_STATUSES = ["active", "inactive"] as const;
export type PolicyStatus = (typeof POLICY_STATUSES)[number];

/** a tenant "*" reaches every tenant; cluster, when given, must be this metrics store's */
export interface Realm {
  tenant: string;
  cluster: string;
}

export interface AccessPolicy {
  name: string;
  display_name: string;
  realms: Realm[];
  scopes: Scope[];
  status: PolicyStatus;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export interface AccessToken {
  name: string;
  display_name: string;
  access_policy: string;
  /** null: never expires */
  expiration: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
}

export const ALL_TENANTS = "*";

/** names of policies and tokens: what the real product allows (lower case, digits, - and _), at most 64 */
const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkFields(body: Record<string, unknown>, allowed: readonly string[], readOnly: readonly string[]): void {
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key) && !readOnly.includes(key)) throw badRequest(`unknown field "${key}"`);
  }
}

function nameOf(body: Record<string, unknown>, what: string, pathName: string | undefined): string {
  if (pathName !== undefined) {
    if (body.name !== undefined && body.name !== pathName) throw badRequest(`name cannot be changed (the ${what} is "${pathName}")`);
    return pathName;
  }
  if (body.name === undefined || body.name === null || body.name === "") throw badRequest("name is required");
  if (typeof body.name !== "string") throw badRequest("name must be a string");
  if (!NAME.test(body.name)) throw badRequest("name must be 1 to 64 characters of a-z, 0-9, - and _, starting with a letter or digit");
  return body.name;
}

function displayNameOf(body: Record<string, unknown>): string {
  const v = body.display_name;
  if (v === undefined || v === null) return "";
  if (typeof v !== "string") throw badRequest("display_name must be a string");
  if (v.length > 256) throw badRequest("display_name must be at most 256 characters");
  return v;
}

export interface PolicyInput {
  name: string;
  display_name: string;
  realms: Realm[];
  scopes: Scope[];
  status: PolicyStatus;
}

const POLICY_FIELDS = ["name", "display_name", "realms", "scopes", "status"] as const;
const POLICY_READ_ONLY = ["created_at", "updated_at"] as const;

/**
 * A POST (name from the body) or PUT (name from the path) body. A PUT is a
 * full replacement of the mutable fields. `cluster`: this store's cluster
 * name; a realm naming another cluster is refused (it could never apply).
 */
export function parsePolicyBody(body: unknown, cluster: string, pathName?: string): PolicyInput {
  if (!isObject(body)) throw badRequest("the body must be a JSON object");
  checkFields(body, POLICY_FIELDS, POLICY_READ_ONLY);
  const name = nameOf(body, "access policy", pathName);
  if (!Array.isArray(body.realms) || body.realms.length === 0) throw badRequest("realms must be a non-empty list of {tenant, cluster}");
  if (body.realms.length > 1000) throw badRequest("realms: at most 1000 realms");
  const realms: Realm[] = body.realms.map((raw: unknown, i: number) => {
    if (!isObject(raw)) throw badRequest(`realms[${i}] must be an object {tenant, cluster}`);
    checkFields(raw, ["tenant", "cluster", "label_policies"], []);
    if (typeof raw.tenant !== "string" || raw.tenant === "") throw badRequest(`realms[${i}].tenant is required: a tenant id, or * for every tenant`);
    if (raw.tenant !== ALL_TENANTS) {
      const problem = tenantIdProblem(raw.tenant);
      if (problem) throw badRequest(`realms[${i}].tenant: ${problem}`);
    }
    const c = raw.cluster ?? "";
    if (typeof c !== "string") throw badRequest(`realms[${i}].cluster must be a string`);
    if (c !== "" && c !== cluster) throw badRequest(`realms[${i}].cluster "${c}" is not this cluster: this store's cluster is "${cluster}"`);
    // the real product narrows reads by selectors here; Outpost does not, and a restriction
    // silently dropped would widen access: refused instead (docs/security.md)
    if (raw.label_policies !== undefined && raw.label_policies !== null && !(Array.isArray(raw.label_policies) && raw.label_policies.length === 0)) {
      throw badRequest(`realms[${i}].label_policies are not supported: leave them out, or give the tenant a policy of its own`);
    }
    return { tenant: raw.tenant, cluster: c };
  });
  if (!Array.isArray(body.scopes) || body.scopes.length === 0) throw badRequest(`scopes must be a non-empty list of: ${SCOPES.join(", ")}`);
  const scopes = [...new Set(body.scopes as unknown[])].map((s, i) => {
    if (typeof s !== "string" || !(SCOPES as readonly string[]).includes(s)) throw badRequest(`scopes[${i}]: ${JSON.stringify(s)} is not a scope (known: ${SCOPES.join(", ")})`);
    return s as Scope;
  });
  const status = body.status ?? "active";
  if (typeof status !== "string" || !(POLICY_STATUSES as readonly string[]).includes(status)) throw badRequest(`status must be one of ${POLICY_STATUSES.join(", ")}`);
  return { name, display_name: displayNameOf(body), realms, scopes, status: status as PolicyStatus };
}

export interface TokenInput {
  name: string;
  display_name: string;
  access_policy: string;
  expiration: Date | null;
}

const TOKEN_FIELDS = ["name", "display_name", "access_policy", "expiration"] as const;
const TOKEN_READ_ONLY = ["created_at", "updated_at", "status"] as const;

/** a POST body, or a PUT (display_name and expiration change; the policy cannot) */
export function parseTokenBody(body: unknown, now: number, existing?: AccessToken): TokenInput {
  if (!isObject(body)) throw badRequest("the body must be a JSON object");
  checkFields(body, TOKEN_FIELDS, [...TOKEN_READ_ONLY, "token"]);
  if (body.token !== undefined) throw badRequest("token is made by the server: leave it out");
  const name = nameOf(body, "token", existing?.name);
  let policy: string;
  if (existing) {
    if (body.access_policy !== undefined && body.access_policy !== existing.access_policy) throw badRequest(`access_policy cannot be changed (the token belongs to "${existing.access_policy}")`);
    policy = existing.access_policy;
  } else {
    if (typeof body.access_policy !== "string" || body.access_policy === "") throw badRequest("access_policy is required: the name of an access policy");
    policy = body.access_policy;
  }
  let expiration: Date | null = null;
  if (body.expiration !== undefined && body.expiration !== null && body.expiration !== "") {
    if (typeof body.expiration !== "string") throw badRequest("expiration must be an RFC 3339 time such as 2027-01-31T00:00:00Z");
    const t = Date.parse(body.expiration);
    if (!/^\d{4}-\d\d-\d\dT/.test(body.expiration) || Number.isNaN(t)) throw badRequest("expiration must be an RFC 3339 time such as 2027-01-31T00:00:00Z");
    if (!existing && t <= now) throw badRequest("expiration must be in the future");
    expiration = new Date(t);
  }
  return { name, display_name: displayNameOf(body), access_policy: policy, expiration };
}

export function policyJson(p: AccessPolicy): Record<string, unknown> {
  return {
    name: p.name,
    display_name: p.display_name,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
    realms: p.realms.map((r) => ({ tenant: r.tenant, cluster: r.cluster, label_policies: [] })),
    scopes: p.scopes,
    status: p.status,
  };
}

/** a token as listed: never its secret (only the creation answer carries it) */
export function tokenJson(t: AccessToken, now: number): Record<string, unknown> {
  return {
    name: t.name,
    display_name: t.display_name,
    access_policy: t.access_policy,
    expiration: t.expiration ? t.expiration.toISOString() : null,
    created_at: t.created_at.toISOString(),
    updated_at: t.updated_at.toISOString(),
    status: t.expiration && t.expiration.getTime() <= now ? "expired" : "active",
  };
}

/** an ETag of one version of a policy or token (strong: the version is the whole state) */
export const etagOf = (kind: "policy" | "token", name: string, version: number) => `"${kind}-${name}-${version}"`;
