// Clients of the stores' access control: the metrics store's admin API
// (GEM's /admin/api/v3) and requests carrying a token as basic auth or Bearer.
export const ADMIN_TOKEN = "outpost-admin-test-token-0123456789";

export const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export async function answer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, text, body };
}

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
