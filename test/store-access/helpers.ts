// Clients of the stores' access control: the metrics store's admin API
// (GEM's /admin/api/v3) and requests carrying a token as basic auth or Bearer.
import { reply, type Reply } from "../metrics/helpers.ts";

export const ADMIN_TOKEN = "outpost-admin-test-token-0123456789";

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

/** a reply read as text and, when it is JSON, parsed (the metrics client's reader) */
export type Answer = Reply;
export const answer = reply;

/** the metrics store's admin API, as `curl -u :$ADMIN_TOKEN` */
export function adminApi(metricsUrl: string, token = ADMIN_TOKEN) {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    answer(
      await fetch(`${metricsUrl}${path}`, {
        method,
        headers: { Authorization: basic("", token), ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...headers },
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      }),
    );
  return {
    call,
    async policy(name: string, tenants: string[], scopes: string[], extra: Record<string, unknown> = {}) {
      const a = await call("POST", "/admin/api/v3/accesspolicies", { name, display_name: name, realms: tenants.map((tenant) => ({ tenant })), scopes, ...extra });
      if (a.status !== 200) throw new Error(`policy ${name}: ${a.status} ${a.text}`);
      return a;
    },
    /** a token of the policy; its secret */
    async token(name: string, policy: string, expiration?: string): Promise<string> {
      const a = await call("POST", "/admin/api/v3/tokens", { name, access_policy: policy, ...(expiration ? { expiration } : {}) });
      if (a.status !== 200 || typeof a.body?.token !== "string") throw new Error(`token ${name}: ${a.status} ${a.text}`);
      return a.body.token as string;
    },
  };
}
