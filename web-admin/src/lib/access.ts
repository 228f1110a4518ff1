// The stores' access policies and tokens as the dashboard serves them
// (/api/admin/access-policies, /api/admin/access-tokens; the bodies are the
// metrics store's GEM admin API's): a policy names tenants (realms, "*" for
// all) and scopes; a token belongs to one policy and is sent to the stores as
// basic auth, the tenant as user name and the token as password.
import { api } from "./api.ts";

export const POLICIES = "/api/admin/access-policies";
export const TOKENS = "/api/admin/access-tokens";
export const ALL_TENANTS = "*";

export interface AccessPolicy {
  name: string;
  display_name: string;
  realms: { tenant: string; cluster: string }[];
  scopes: string[];
  status: "active" | "inactive";
  created_at: string;
  updated_at: string;
}

export interface TokenUsage {
  logs_lines: number;
  logs_bytes: number;
  logs_queries: number;
  metrics_samples: number;
  metrics_bytes: number;
  metrics_queries: number;
  last_used_at: string | null;
}

export interface AccessToken {
  name: string;
  display_name: string;
  access_policy: string;
  expiration: string | null;
  status: "active" | "expired";
  created_at: string;
  updated_at: string;
  /** since the server started */
  usage: TokenUsage;
}

/** the scopes a policy may hold (the server's list, store-access/model.ts), with what each allows */
export const SCOPES: [scope: string, what: string][] = [
  ["logs:write", "push log lines"],
  ["logs:read", "query logs"],
  ["logs:delete", "request deletion of log lines"],
  ["metrics:write", "remote write samples"],
  ["metrics:read", "query metrics"],
  ["metrics:delete", "delete series"],
  ["rules:read", "read recording and alerting rules"],
  ["rules:write", "change rules"],
  ["alerts:read", "read alerts"],
  ["admin", "the metrics store's admin API (with every tenant)"],
];

export const loadPolicies = () => api<{ items: AccessPolicy[] }>(POLICIES).then((r) => r.items);
export const loadTokens = () => api<{ items: AccessToken[] }>(TOKENS).then((r) => r.items);

/** the policies that reach a tenant: a realm naming it, or every tenant (the server's policiesReaching) */
export const reaching = (policies: readonly AccessPolicy[], tenant: string) =>
  policies.filter((p) => p.realms.some((r) => r.tenant === ALL_TENANTS || r.tenant === tenant));

export const reachesAll = (p: AccessPolicy) => p.realms.some((r) => r.tenant === ALL_TENANTS);
