// Calls Outpost's public HTTP APIs exactly as a script would. Every failure
// becomes an ApiFailure carrying the status and the server's own message.

export class ApiFailure extends Error {
  constructor(readonly status: number, message: string, readonly url: string, readonly messageId = "") {
    super(message);
  }
  /** the endpoint does not exist on this server (edition, feature or version) */
  get missing(): boolean {
    return this.status === 404 || this.status === 405;
  }
}

export interface RequestOptions {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** the response body is not JSON (Prometheus text, YAML, "ready") */
  text?: boolean;
}

/** the sign-in lock-out's messageId; the API's message is the plain "Invalid username or password" */
export const LOCKED_OUT = "login-attempt.blocked";
export const LOCKED_OUT_MESSAGE = "Too many failed sign-in attempts: this account is locked for a while. Wait and try again, or ask an administrator.";

/** the lock-out told plainly, any other failure as it is */
export function explainLockOut(err: unknown): unknown {
  return err instanceof ApiFailure && err.messageId === LOCKED_OUT ? new ApiFailure(err.status, LOCKED_OUT_MESSAGE, err.url, err.messageId) : err;
}

type Listener = () => void;
const signedOutListeners = new Set<Listener>();

/** called when the dashboard answers 401: the session has ended */
export function onSignedOut(listener: Listener): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

export async function request<T>(url: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: options.text ? "text/plain, */*" : "application/json", ...options.headers };
  let body: string | undefined;
  if (options.body !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(options.body);
  }
  let res: Response;
  try {
    res = await fetch(url, { method: options.method ?? "GET", headers, body, credentials: "same-origin" });
  } catch (err) {
    throw new ApiFailure(0, `cannot reach ${new URL(url, location.href).origin}: ${(err as Error).message}`, url);
  }
  const raw = await res.text();
  if (!res.ok) throw new ApiFailure(res.status, messageOf(raw, res), url, messageIdOf(raw));
  if (options.text) return raw as T;
  if (!raw) return undefined as T;
  try {
    return JSON.parse(raw) as T;
  } catch {
    throw new ApiFailure(res.status, `the server answered something that is not JSON (${res.headers.get("Content-Type") ?? "no content type"})`, url);
  }
}

function messageIdOf(raw: string): string {
  try {
    const id = (JSON.parse(raw) as { messageId?: unknown }).messageId;
    return typeof id === "string" ? id : "";
  } catch {
    return "";
  }
}

function messageOf(raw: string, res: Response): string {
  try {
    const body = JSON.parse(raw) as { message?: unknown; error?: unknown };
    if (typeof body.message === "string" && body.message) return body.message;
    if (typeof body.error === "string" && body.error) return body.error;
  } catch {
    // plain text bodies (the stores) are their own message
  }
  const text = raw.trim();
  return text && text.length < 500 ? text : `${res.status} ${res.statusText || "error"}`;
}

/** the dashboard's own API (same origin, session cookie); a 401 means signed out */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  try {
    return await request<T>(path, options);
  } catch (err) {
    // a lock-out (a wrong current password on the password form) leaves the session valid
    if (err instanceof ApiFailure && err.status === 401 && path !== "/login" && path !== "/login/2fa" && err.messageId !== LOCKED_OUT) for (const l of signedOutListeners) l();
    throw err;
  }
}

export function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}
