// The stores' side of authorize.ts: each route that touches a tenant's data
// asks `tenants(c, scope)` (the log store) or `tenant(c, scope)` (one
// tenant); the answer is kept on the request, so usage is counted against the
// token that authenticated it.
import type { Context, MiddlewareHandler } from "hono";
import { peerCertificateOf } from "../platform/tls.ts";
import type { StoreAccess } from "./access-store.ts";
import { authorize, authorizeAllTenants, precheck, type AuthMode, type Caller, type Presented } from "./authorize.ts";
import { tenantOfCertificate, type CertTenantOptions } from "./cert-tenant.ts";
import type { Scope } from "./model.ts";
import type { StoreName } from "./usage.ts";

export interface StoreAuthOptions {
  store: StoreName;
  mode: AuthMode;
  access: StoreAccess;
  certTenant: CertTenantOptions;
  realm: string;
  /** the log store's auth_enabled: false: every request is this tenant, nothing is checked */
  noAuthTenant?: string;
  multiTenantQueries?: boolean;
  now?: () => number;
  /** paths any caller reaches in tokens mode (/ready, build info, an admin API with credentials of its own); default /ready */
  openPaths?: RegExp;
}

export interface StoreAuth {
  readonly mode: AuthMode;
  /**
   * runs before the body is read (createStoreApp's early middleware): in
   * tokens mode a request without a token that verifies is refused here
   */
  readonly early: MiddlewareHandler;
  /** the tenants of a request to tenant data; `query`: a read that may name several (when enabled) */
  tenants(c: Context, scope: Scope, query?: boolean): string[];
  /** the one tenant of a request */
  tenant(c: Context, scope: Scope): string;
  /** an endpoint that shows every tenant: open in header mode, a token reaching all in tokens mode */
  allTenants(c: Context, scope: Scope): void;
  /** the request wrote this much (a push accepted) */
  wrote(c: Context, items: number, bytes: number): void;
  /** the request ran a query */
  queried(c: Context): void;
}

const CALLER = "storeCaller";

/**
 * who a request was, for its log line: the tenants it was allowed (or the
 * header it sent, when it was refused before) and the token by name — never
 * its secret
 */
export function requestSubject(c: Context): Record<string, string | undefined> {
  const caller = c.get(CALLER as never) as Caller | undefined;
  if (!caller) return { tenant: c.req.header("X-Scope-OrgID") };
  return { tenant: caller.tenants.join("|") || undefined, ...(caller.token ? { token: `${caller.token.policy}/${caller.token.name}` } : {}) };
}

export function createStoreAuth(o: StoreAuthOptions): StoreAuth {
  const now = o.now ?? (() => Date.now());
  const options = { mode: o.mode, access: o.access, realm: o.realm, now };
  const presented = (c: Context): Presented => ({
    authorization: c.req.header("Authorization"),
    orgId: c.req.header("X-Scope-OrgID"),
    certTenant: tenantOfCertificate(o.certTenant, peerCertificateOf(c.env)),
  });
  const remember = (c: Context, caller: Caller | undefined) => {
    if (caller) c.set(CALLER as never, caller as never);
    return caller;
  };
  const callerOf = (c: Context) => c.get(CALLER as never) as Caller | undefined;
  const tenants = (c: Context, scope: Scope, query = false) => {
    if (o.noAuthTenant !== undefined) return [o.noAuthTenant];
    return remember(c, authorize(options, presented(c), scope, { query, multiTenant: o.multiTenantQueries ?? false }))!.tenants;
  };
  return {
    mode: o.mode,
    early: async (c, next) => {
      if (o.mode === "tokens" && !(o.openPaths ?? /^\/ready$/).test(c.req.path)) precheck(options, c.req.header("Authorization"));
      await next();
    },
    tenants,
    tenant: (c, scope) => tenants(c, scope, false)[0]!,
    allTenants(c, scope) {
      remember(c, authorizeAllTenants(options, presented(c), scope));
    },
    wrote(c, items, bytes) {
      const t = callerOf(c)?.token;
      if (t) o.access.usage.wrote(t.policy, t.name, o.store, items, bytes);
    },
    queried(c) {
      const t = callerOf(c)?.token;
      if (t) o.access.usage.queried(t.policy, t.name, o.store);
    },
  };
}
