// Who a request to the log or metrics store is, and which tenants it may act
// on (docs/security.md). Two modes per store:
// - header: today's behaviour, the spec's default: X-Scope-OrgID names the
//   tenant and nothing is checked (put mTLS or the htpasswd proxy in front);
// - tokens: the credentials name the tenant. HTTP basic with the tenant as
//   user name and a token as password (what Prometheus remote_write, the
//   dashboard's data sources and log shippers send), or Bearer <token> with
//   X-Scope-OrgID. The token's policy must reach every tenant named and hold
//   the route's scope.
// Either mode may also map a verified client certificate to a tenant
// (cert-tenant.ts): the certificate then names the tenant, and a header or
// user name naming another is refused.
// 401: no, bad, expired credentials, or tenants that disagree; 403: a good
// token whose policy lacks the tenant or the scope, named in the message.
import { ApiError } from "../lib/errors.ts";
import { parseTenantIds } from "../lib/tenant.ts";
import type { StoreAccess } from "./access-store.ts";
import { ALL_TENANTS, type AccessPolicy, type Scope } from "./model.ts";

export type AuthMode = "header" | "tokens";

export interface Presented {
  /** the Authorization header */
  authorization: string | undefined;
  /** the X-Scope-OrgID header */
  orgId: string | undefined;
  /** the tenant a verified client certificate maps to (cert-tenant.ts), when mapping is on */
  certTenant: string | undefined;
}

export interface Caller {
  tenants: string[];
  /** the token that authenticated the request (tokens mode) */
  token?: { policy: string; name: string };
}

export interface AuthorizeOptions {
  mode: AuthMode;
  access: StoreAccess;
  /** the realm named in the WWW-Authenticate challenge */
  realm: string;
  now: () => number;
}

const challenge = (realm: string) => ({ headers: { "WWW-Authenticate": `Basic realm="${realm}"` } });

export const CREDENTIALS_HELP =
  "authentication required: HTTP basic auth with the tenant as user name and an access policy token as password, or Authorization: Bearer <token> with X-Scope-OrgID";

interface Credentials {
  secret: string;
  /** the basic auth user name (a tenant, or tenants joined by |); undefined for a bearer token */
  user: string | undefined;
}

/**
 * Authorization headers already read: a client sends the same one with every
 * request. Bounded (forgotten at once when full) and filled only with headers
 * whose token verified, so a stream of guesses neither grows it nor churns it.
 */
const parsed = new Map<string, Credentials>();
const PARSED_LIMIT = 10_000;

/** how many headers are remembered (tests: hostile spellings must not add any) */
export const rememberedHeaders = () => parsed.size;

function credentialsOf(header: string | undefined, realm: string): Credentials | undefined {
  if (header === undefined || header.trim() === "") return undefined;
  const known = parsed.get(header);
  if (known) return known;
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return { secret: bearer[1]!, user: undefined };
  const basic = /^basic\s+(\S+)\s*$/i.exec(header);
  if (!basic) throw new ApiError(401, "unsupported authorization scheme: use Basic or Bearer", challenge(realm));
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(basic[1]!, "base64"));
  } catch {
    throw new ApiError(401, "invalid basic authentication header", challenge(realm));
  }
  const colon = text.indexOf(":");
  if (colon < 0) throw new ApiError(401, "invalid basic authentication header", challenge(realm));
  return { user: text.slice(0, colon), secret: text.slice(colon + 1) };
}

function tenantsFrom(value: string, query: boolean, multiTenant: boolean): string[] {
  const ids = parseTenantIds(value);
  if (ids.length > 1 && !(query && multiTenant)) throw new ApiError(400, "multiple org IDs present");
  return ids;
}

const same = (a: string[], b: string[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * The tenants a request names, from the certificate, the basic auth user name
 * and X-Scope-OrgID; where two of them are given they must agree. undefined
 * when none names one.
 */
function namedTenants(p: Presented, user: string | undefined, query: boolean, multiTenant: boolean): string[] | undefined {
  const header = p.orgId === undefined || p.orgId === "" ? undefined : tenantsFrom(p.orgId, query, multiTenant);
  const fromUser = user === undefined || user === "" ? undefined : tenantsFrom(user, query, multiTenant);
  if (header && fromUser && !same(header, fromUser)) {
    throw new ApiError(401, `the tenant in X-Scope-OrgID (${header.join("|")}) differs from the basic auth user name (${fromUser.join("|")})`);
  }
  const named = fromUser ?? header;
  if (p.certTenant !== undefined) {
    if (named && !same(named, [p.certTenant])) {
      throw new ApiError(401, `the client certificate is for tenant ${p.certTenant}, and the request names ${named.join("|")}`);
    }
    return [p.certTenant];
  }
  return named;
}

/** why a good token may not do this, or undefined when it may */
export function policyRefusal(policy: AccessPolicy, scope: Scope, tenants: string[] | "all"): string | undefined {
  if (!policy.scopes.includes(scope)) return `access policy "${policy.name}" does not grant the scope ${scope}`;
  const reaches = (t: string) => policy.realms.some((r) => r.tenant === ALL_TENANTS || r.tenant === t);
  if (tenants === "all") {
    if (!policy.realms.some((r) => r.tenant === ALL_TENANTS)) return `access policy "${policy.name}" does not reach every tenant (a realm with tenant *), which this endpoint shows`;
    return undefined;
  }
  const missing = tenants.filter((t) => !reaches(t));
  if (missing.length > 0) return `access policy "${policy.name}" does not reach tenant ${missing.join(", ")}`;
  return undefined;
}

function verifiedToken(o: AuthorizeOptions, credentials: Credentials): { policy: AccessPolicy; name: string } {
  const v = o.access.verify(credentials.secret);
  if (!v.ok) {
    const message = v.reason === "expired" ? "token expired" : v.reason === "inactive" ? `access policy "${v.policy}" is inactive` : "invalid token";
    throw new ApiError(401, message, challenge(o.realm));
  }
  return { policy: v.policy, name: v.token.name };
}

/** base64 that decodes and encodes back to itself: one spelling per credential */
const CANONICAL_BASIC = /^Basic ([A-Za-z0-9+/]+={0,2})$/;
const CANONICAL_BEARER = /^Bearer [\x21-\x7e]+$/;

/**
 * A request allowed: its token's use is counted, and its header remembered
 * when it is the one spelling of its credentials (a base64 decoder skips
 * characters outside its alphabet, so one secret has endless spellings:
 * only a canonical, short header may take a place in the memo).
 */
function allowed(o: AuthorizeOptions, header: string, credentials: Credentials, token: { policy: AccessPolicy; name: string }): void {
  o.access.usage.used(token.policy.name, token.name, o.now());
  if (parsed.has(header) || header.length > 512) return;
  const basic = CANONICAL_BASIC.exec(header);
  const canonical = basic ? Buffer.from(basic[1]!, "base64").toString("base64") === basic[1] : CANONICAL_BEARER.test(header);
  if (!canonical) return;
  if (parsed.size >= PARSED_LIMIT) parsed.clear();
  parsed.set(header, credentials);
}

/**
 * A request for tenant data. `query`: the endpoint reads and may name several
 * tenants (when `multiTenant`); `noAuthTenant`: with authentication off (the
 * log store's auth_enabled: false) every request is this tenant.
 */
export function authorize(
  o: AuthorizeOptions,
  p: Presented,
  scope: Scope,
  route: { query: boolean; multiTenant: boolean },
): Caller {
  if (o.mode === "header") {
    const tenants = namedTenants(p, undefined, route.query, route.multiTenant);
    if (!tenants) throw new ApiError(401, "no org id");
    return { tenants };
  }
  const credentials = credentialsOf(p.authorization, o.realm);
  if (!credentials) throw new ApiError(401, CREDENTIALS_HELP, challenge(o.realm));
  const token = verifiedToken(o, credentials);
  let tenants = namedTenants(p, credentials.user, route.query, route.multiTenant);
  if (!tenants) {
    // a bearer token without X-Scope-OrgID: its policy's one tenant, when it has exactly one
    const named = token.policy.realms.map((r) => r.tenant);
    if (named.length === 1 && named[0] !== ALL_TENANTS) tenants = [named[0]!];
    else throw new ApiError(401, "no org id");
  }
  const refusal = policyRefusal(token.policy, scope, tenants);
  if (refusal) throw new ApiError(403, refusal);
  allowed(o, p.authorization!, credentials, token);
  return { tenants, token: { policy: token.policy.name, name: token.name } };
}

/**
 * An endpoint that shows every tenant (/metrics, /config, all_user_stats,
 * the runtime configuration): open in header mode, as before; in tokens mode
 * a token whose policy reaches every tenant and holds `scope` (or admin).
 */
export function authorizeAllTenants(o: AuthorizeOptions, p: Presented, scope: Scope): Caller | undefined {
  if (o.mode === "header") {
    // a certificate mapped to a tenant is one tenant's client, even where headers are trusted
    if (p.certTenant !== undefined) throw new ApiError(403, `the client certificate is for tenant ${p.certTenant}, and this endpoint shows every tenant`);
    return undefined;
  }
  const credentials = credentialsOf(p.authorization, o.realm);
  if (!credentials) throw new ApiError(401, CREDENTIALS_HELP, challenge(o.realm));
  const token = verifiedToken(o, credentials);
  const refusal = token.policy.scopes.includes("admin") ? policyRefusal(token.policy, "admin", "all") : policyRefusal(token.policy, scope, "all");
  if (refusal) throw new ApiError(403, refusal);
  allowed(o, p.authorization!, credentials, token);
  return { tenants: [], token: { policy: token.policy.name, name: token.name } };
}

/**
 * Tokens mode, before the body is read: a request that carries no token that
 * verifies is refused at once (401), so an anonymous caller never costs a body
 * parse or a push slot. Scope and tenant are checked by the route afterwards.
 * `open`: the paths every caller may reach (/ready, build info, the admin
 * API with its own credentials).
 */
export function precheck(o: AuthorizeOptions, authorization: string | undefined): void {
  if (o.mode !== "tokens") return;
  const credentials = credentialsOf(authorization, o.realm);
  if (!credentials) throw new ApiError(401, CREDENTIALS_HELP, challenge(o.realm));
  verifiedToken(o, credentials);
}
