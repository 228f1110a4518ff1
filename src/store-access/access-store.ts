// The access policies and tokens (model.ts), kept in PGlite and in memory:
// one instance for the process (server.ts), shared by the log store, the
// metrics store and the dashboard's admin API, so a token deleted through any
// of them is refused by both stores at once. A request's token is checked
// against memory only: one SHA-256 of the presented secret, no database
// round trip, no slow hash (a token is 192 random bits: a fast digest is
// enough, as for the metrics admin token).
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Sql } from "../db/sql.ts";
import { ApiError, conflict, notFound } from "../lib/errors.ts";
import {
  etagOf,
  parsePolicyBody,
  parseTokenBody,
  type AccessPolicy,
  type AccessToken,
  type PolicyStatus,
  type Realm,
  type Scope,
  SCOPES,
} from "./model.ts";
import { createAccessUsage, type AccessUsage } from "./usage.ts";

export type Verified =
  | { ok: true; token: AccessToken; policy: AccessPolicy }
  | { ok: false; reason: "invalid" | "expired" | "inactive"; policy?: string };

/**
 * How a write names the version it changes: the If-Match header's value;
 * `undefined` when the header is missing (refused with 428 where it is
 * required), or `null` where the caller does not require one (the dashboard's
 * admin API, behind a session and CSRF checks).
 */
export type IfMatch = string | undefined | null;

export interface StoreAccess {
  /** another node changed policies or tokens: both read again, swapped in at once */
  reload(): Promise<void>;
  listPolicies(): AccessPolicy[];
  /** throws 404 */
  getPolicy(name: string): AccessPolicy;
  createPolicy(body: unknown): Promise<AccessPolicy>;
  updatePolicy(name: string, body: unknown, ifMatch: IfMatch): Promise<AccessPolicy>;
  /** deletes its tokens too */
  deletePolicy(name: string, ifMatch: IfMatch): Promise<void>;
  listTokens(policy?: string): AccessToken[];
  /** throws 404 */
  getToken(name: string): AccessToken;
  /** the token and its secret: the only time the secret exists outside the caller */
  createToken(body: unknown): Promise<{ token: AccessToken; secret: string }>;
  updateToken(name: string, body: unknown, ifMatch: IfMatch): Promise<AccessToken>;
  deleteToken(name: string, ifMatch: IfMatch): Promise<void>;
  /** the token a presented secret is, from memory */
  verify(secret: string): Verified;
  /** the policies that reach a tenant (realm "*" or the tenant itself) */
  policiesReaching(tenant: string): AccessPolicy[];
  readonly usage: AccessUsage;
  readonly cluster: string;
  /** the clock tokens expire by (epoch ms) */
  readonly now: () => number;
  /**
   * the metrics store's admin token (metrics.admin_token, or the one made on
   * first boot): accepted by both stores in tokens mode as the bootstrap
   * policy __admin__, which reaches every tenant with every scope (it can make
   * any token anyway)
   */
  useAdminToken(token: { verify(secret: string): boolean }): void;
}

/** the bootstrap admin token's policy (the real product names it so) */
export const ADMIN_POLICY = "__admin__";

export interface StoreAccessOptions {
  pg: Sql;
  /** the metrics store's cluster name (metrics.cluster_name): a realm may name it */
  cluster: string;
  now?: () => number;
}

/** what the real product's tokens look like: base64 of "<policy>-<16 hex>:<secret>" */
export function makeSecret(policy: string): string {
  return Buffer.from(`${policy}-${randomBytes(8).toString("hex")}:${randomBytes(24).toString("base64url")}`).toString("base64");
}

const digest = (secret: string) => createHash("sha256").update(secret, "utf8").digest("hex");

interface PolicyRow {
  name: string;
  display_name: string;
  realms: unknown;
  scopes: unknown;
  status: string;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
}

interface TokenRow {
  name: string;
  display_name: string;
  access_policy: string;
  hash: string;
  expiration: Date | string | null;
  version: number;
  created_at: Date | string;
  updated_at: Date | string;
}

const asDate = (v: Date | string) => (v instanceof Date ? v : new Date(v));
const parsed = (v: unknown): unknown => (typeof v === "string" ? JSON.parse(v) : v);

function policyFromRow(r: PolicyRow): AccessPolicy {
  const realms = parsed(r.realms);
  const scopes = parsed(r.scopes);
  return {
    name: r.name,
    display_name: r.display_name,
    realms: Array.isArray(realms) ? (realms as Realm[]) : [],
    scopes: Array.isArray(scopes) ? (scopes as Scope[]) : [],
    // anything but active written by hand counts as inactive: a policy grants only when it says so
    status: (r.status === "active" ? "active" : "inactive") as PolicyStatus,
    version: r.version,
    created_at: asDate(r.created_at),
    updated_at: asDate(r.updated_at),
  };
}

function tokenFromRow(r: TokenRow): AccessToken {
  return {
    name: r.name,
    display_name: r.display_name,
    access_policy: r.access_policy,
    expiration: r.expiration === null ? null : asDate(r.expiration),
    version: r.version,
    created_at: asDate(r.created_at),
    updated_at: asDate(r.updated_at),
  };
}

function checkIfMatch(ifMatch: IfMatch, current: string): void {
  if (ifMatch === null) return;
  if (ifMatch === undefined || ifMatch.trim() === "") {
    throw new ApiError(428, `If-Match is required: send the ETag of the current version (${current})`);
  }
  const given = ifMatch.split(",").map((s) => s.trim().replace(/^W\//, ""));
  if (!given.includes("*") && !given.includes(current)) {
    throw new ApiError(412, `the resource has changed: If-Match ${ifMatch} is not the current ETag ${current}`, { headers: { ETag: current } });
  }
}

export async function openStoreAccess(options: StoreAccessOptions): Promise<StoreAccess> {
  const { pg, cluster } = options;
  const now = options.now ?? (() => Date.now());
  const policies = new Map<string, AccessPolicy>();
  const tokens = new Map<string, AccessToken>();
  /** digest of a secret -> token name */
  const byHash = new Map<string, string>();
  const hashOf = new Map<string, string>();

  /** both tables again, swapped in at once (another node changed them) */
  const load = async () => {
    const [p, t] = await Promise.all([
      pg.query<PolicyRow>("select * from store_access_policies"),
      pg.query<TokenRow>("select * from store_access_tokens"),
    ]);
    policies.clear();
    tokens.clear();
    byHash.clear();
    hashOf.clear();
    for (const r of p.rows) policies.set(r.name, policyFromRow(r));
    for (const r of t.rows) {
      tokens.set(r.name, tokenFromRow(r));
      byHash.set(r.hash, r.name);
      hashOf.set(r.name, r.hash);
    }
  };
  await load();
  const usage = createAccessUsage();
  /**
   * secret -> digest of the secrets that verified: a client sends the same
   * token with every push, so the digest is taken once (bounded, forgotten
   * at once when full); a guess is never remembered
   */
  const digests = new Map<string, string>();
  /** in digests: the secret is the bootstrap admin token (fixed for the process's life) */
  const ADMIN_SEEN = "admin";
  const remember = (secret: string, value: string) => {
    if (digests.size >= 10_000) digests.clear();
    digests.set(secret, value);
  };
  let adminToken: { verify(secret: string): boolean } | undefined;
  const epoch = new Date(0);
  const adminPolicy: AccessPolicy = {
    name: ADMIN_POLICY, display_name: "Bootstrap admin token", realms: [{ tenant: "*", cluster: "" }], scopes: [...SCOPES],
    status: "active", version: 1, created_at: epoch, updated_at: epoch,
  };
  const adminTokenEntry: AccessToken = { name: ADMIN_POLICY, display_name: "", access_policy: ADMIN_POLICY, expiration: null, version: 1, created_at: epoch, updated_at: epoch };

  const forgetToken = (name: string) => {
    const h = hashOf.get(name);
    if (h !== undefined) byHash.delete(h);
    hashOf.delete(name);
    tokens.delete(name);
    usage.forget(name);
  };
  const getPolicy = (name: string) => {
    const p = policies.get(name);
    if (!p) throw notFound(`access policy "${name}" not found`);
    return p;
  };
  const getToken = (name: string) => {
    const t = tokens.get(name);
    if (!t) throw notFound(`token "${name}" not found`);
    return t;
  };
  const sortedByName = <T extends { name: string }>(items: Iterable<T>) => [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  return {
    cluster,
    usage,
    now,
    async reload() {
      await load();
      // a secret that verified may belong to a token now gone
      digests.clear();
    },
    listPolicies: () => sortedByName(policies.values()),
    getPolicy,
    async createPolicy(body) {
      const input = parsePolicyBody(body, cluster);
      if (policies.has(input.name)) throw conflict(`access policy "${input.name}" already exists`);
      const row = (
        await pg.query<PolicyRow>(
          `insert into store_access_policies (name, display_name, realms, scopes, status) values ($1, $2, $3, $4, $5)
           on conflict (name) do nothing returning *`,
          [input.name, input.display_name, JSON.stringify(input.realms), JSON.stringify(input.scopes), input.status],
        )
      ).rows[0];
      if (!row) throw conflict(`access policy "${input.name}" already exists`);
      const p = policyFromRow(row);
      policies.set(p.name, p);
      return p;
    },
    async updatePolicy(name, body, ifMatch) {
      const current = getPolicy(name);
      checkIfMatch(ifMatch, etagOf("policy", name, current.version));
      const input = parsePolicyBody(body, cluster, name);
      const row = (
        await pg.query<PolicyRow>(
          `update store_access_policies set display_name = $2, realms = $3, scopes = $4, status = $5, version = version + 1, updated_at = now()
           where name = $1 and version = $6 returning *`,
          [name, input.display_name, JSON.stringify(input.realms), JSON.stringify(input.scopes), input.status, current.version],
        )
      ).rows[0];
      if (!row) throw new ApiError(412, "the resource has changed: read it again");
      const p = policyFromRow(row);
      // deleted while this update waited: it stays deleted
      if (!policies.has(name)) throw notFound(`access policy "${name}" not found`);
      policies.set(name, p);
      return p;
    },
    async deletePolicy(name, ifMatch) {
      const current = getPolicy(name);
      checkIfMatch(ifMatch, etagOf("policy", name, current.version));
      await pg.query("delete from store_access_policies where name = $1", [name]);
      policies.delete(name);
      for (const t of [...tokens.values()]) if (t.access_policy === name) forgetToken(t.name);
    },
    listTokens: (policy) => sortedByName([...tokens.values()].filter((t) => policy === undefined || t.access_policy === policy)),
    getToken,
    async createToken(body) {
      const input = parseTokenBody(body, now());
      if (!policies.has(input.access_policy)) throw notFound(`access policy "${input.access_policy}" not found`);
      if (tokens.has(input.name)) throw conflict(`token "${input.name}" already exists`);
      const secret = makeSecret(input.access_policy);
      const hash = digest(secret);
      const row = (
        await pg.query<TokenRow>(
          `insert into store_access_tokens (name, display_name, access_policy, hash, expiration) values ($1, $2, $3, $4, $5)
           on conflict (name) do nothing returning *`,
          [input.name, input.display_name, input.access_policy, hash, input.expiration],
        )
      ).rows[0];
      if (!row) throw conflict(`token "${input.name}" already exists`);
      const t = tokenFromRow(row);
      tokens.set(t.name, t);
      byHash.set(hash, t.name);
      hashOf.set(t.name, hash);
      return { token: t, secret };
    },
    async updateToken(name, body, ifMatch) {
      const current = getToken(name);
      checkIfMatch(ifMatch, etagOf("token", name, current.version));
      const input = parseTokenBody(body, now(), current);
      const row = (
        await pg.query<TokenRow>(
          `update store_access_tokens set display_name = $2, expiration = $3, version = version + 1, updated_at = now()
           where name = $1 and version = $4 returning *`,
          [name, input.display_name, input.expiration, current.version],
        )
      ).rows[0];
      if (!row) throw new ApiError(412, "the resource has changed: read it again");
      const t = tokenFromRow(row);
      // revoked while this update waited: it stays revoked
      if (!tokens.has(name)) throw notFound(`token "${name}" not found`);
      tokens.set(name, t);
      return t;
    },
    async deleteToken(name, ifMatch) {
      const current = getToken(name);
      checkIfMatch(ifMatch, etagOf("token", name, current.version));
      // forgotten before the write: a revoked token is refused from this moment on
      forgetToken(name);
      await pg.query("delete from store_access_tokens where name = $1", [name]);
    },
    useAdminToken(token) {
      adminToken = token;
    },
    verify(secret) {
      if (secret === "" || secret.length > 1024) return { ok: false, reason: "invalid" };
      const remembered = digests.get(secret);
      if (remembered === ADMIN_SEEN) return { ok: true, token: adminTokenEntry, policy: adminPolicy };
      const hash = remembered ?? digest(secret);
      const name = byHash.get(hash);
      const stored = name === undefined ? undefined : hashOf.get(name);
      // the map found it by the digest; compared again in constant time all the same
      if (name === undefined || stored === undefined || (remembered === undefined && !timingSafeEqual(Buffer.from(stored), Buffer.from(hash)))) {
        // the bootstrap admin token last: a policy token never pays its digest a second time
        if (remembered === undefined && adminToken?.verify(secret)) {
          remember(secret, ADMIN_SEEN);
          return { ok: true, token: adminTokenEntry, policy: adminPolicy };
        }
        return { ok: false, reason: "invalid" };
      }
      if (remembered === undefined) remember(secret, hash);
      const token = tokens.get(name)!;
      const policy = policies.get(token.access_policy);
      if (!policy) return { ok: false, reason: "invalid" };
      if (token.expiration && token.expiration.getTime() <= now()) return { ok: false, reason: "expired" };
      if (policy.status !== "active") return { ok: false, reason: "inactive", policy: policy.name };
      return { ok: true, token, policy };
    },
    policiesReaching: (tenant) => sortedByName([...policies.values()].filter((p) => p.realms.some((r) => r.tenant === "*" || r.tenant === tenant))),
  };
}
