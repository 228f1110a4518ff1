// A small HTTP client for the dashboard API, as scripts use it.
export const basic = (login: string, password: string) => `Basic ${btoa(`${login}:${password}`)}`;
export const bearer = (token: string) => `Bearer ${token}`;
export const ADMIN = basic("admin", "admin");

export interface Reply {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface CallOptions {
  auth?: string | undefined;
  body?: unknown;
  headers?: Record<string, string>;
}

export function client(baseUrl: string) {
  const call = async (method: string, path: string, options: CallOptions = {}): Promise<Reply> => {
    const headers: Record<string, string> = { Accept: "application/json", ...options.headers };
    if (options.auth) headers.Authorization = options.auth;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    }
    const res = await fetch(baseUrl + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try { parsed = text ? JSON.parse(text) : undefined; } catch { /* keep text */ }
    return { status: res.status, headers: res.headers, body: parsed };
  };
  return {
    get: (path: string, o?: CallOptions) => call("GET", path, o),
    post: (path: string, o?: CallOptions) => call("POST", path, o),
    put: (path: string, o?: CallOptions) => call("PUT", path, o),
    patch: (path: string, o?: CallOptions) => call("PATCH", path, o),
    delete: (path: string, o?: CallOptions) => call("DELETE", path, o),
    /** creates a user in org 1 (or orgId) with a role; returns its basic auth header */
    async user(login: string, role: "None" | "Viewer" | "Editor" | "Admin", orgId = 1) {
      const password = `pw-${login}-secret`;
      const created = await call("POST", "/api/admin/users", { auth: ADMIN, body: { login, email: `${login}@example.test`, name: login, password, OrgId: orgId } });
      if (created.status !== 200) throw new Error(`creating ${login}: ${created.status} ${JSON.stringify(created.body)}`);
      if (role !== "Viewer") await setRole(call, orgId, created.body.id, role);
      return { id: created.body.id as number, login, password, auth: basic(login, password) };
    },
  };
}

async function setRole(call: (m: string, p: string, o?: CallOptions) => Promise<Reply>, orgId: number, userId: number, role: string) {
  const r = await call("PATCH", `/api/orgs/${orgId}/users/${userId}`, { auth: ADMIN, body: { role } });
  if (r.status !== 200) throw new Error(`setting role of ${userId}: ${r.status} ${JSON.stringify(r.body)}`);
}
