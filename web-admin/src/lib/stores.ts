// Where the log and metrics stores are, as this browser reaches them: the
// same host name as the page, each store's own port and scheme, read from
// GET /api/admin/settings (server administrators). The stores answer the
// page's cross-origin requests (CORS for the dashboard's origin).
import { api, ApiFailure, request, type RequestOptions } from "./api.ts";

export type Settings = Record<string, Record<string, string>>;

export interface Listener {
  name: "dashboard" | "logs" | "metrics";
  title: string;
  enabled: boolean;
  /** as this browser reaches it */
  url: string;
  /** as the server itself reaches it (what a data source stores): the bound host, or loopback for a wildcard */
  serverUrl: string;
  tls: "none" | "TLS" | "mutual TLS";
  clientAuth: string;
  /** the store wants access policy tokens (<store>.auth.type: tokens), not a trusted X-Scope-OrgID */
  tokens: boolean;
}

export interface Topology {
  settings: Settings | undefined;
  /** why the settings could not be read (not a server administrator) */
  settingsError?: Error;
  dashboard: Listener;
  logs: Listener;
  metrics: Listener;
}

function tlsOf(section: Record<string, string> | undefined): Pick<Listener, "tls" | "clientAuth"> {
  const cert = section?.["http_tls_config.cert_file"] ?? "";
  const clientAuth = section?.["http_tls_config.client_auth_type"] ?? "";
  if (!cert) return { tls: "none", clientAuth: "" };
  const mutual = clientAuth !== "" && clientAuth !== "NoClientCert";
  return { tls: mutual ? "mutual TLS" : "TLS", clientAuth };
}

function listener(name: "logs" | "metrics", title: string, s: Settings | undefined, tls: Pick<Listener, "tls" | "clientAuth">, bound: string): Listener {
  const section = s?.[name];
  const port = section?.http_port ?? (name === "logs" ? "3100" : "9009");
  const scheme = tls.tls === "none" ? "http" : "https";
  const host = ["", "0.0.0.0", "::", "[::]"].includes(bound) ? "127.0.0.1" : bound.includes(":") && !bound.startsWith("[") ? `[${bound}]` : bound;
  return {
    name, title, enabled: s ? section?.enabled !== "false" : true, url: `${scheme}://${location.hostname}:${port}`, serverUrl: `${scheme}://${host}:${port}`,
    tokens: section?.["auth.type"] === "tokens", ...tls,
  };
}

let cached: Promise<Topology> | undefined;

export function topology(): Promise<Topology> {
  cached ??= api<Settings>("/api/admin/settings").then(
    (s) => build(s),
    (err: Error) => {
      // only a refusal is the answer for this session; a network error or a 5xx is tried again next time
      if (!(err instanceof ApiFailure && (err.status === 401 || err.status === 403))) cached = undefined;
      return build(undefined, err);
    },
  );
  return cached;
}

export function forgetTopology(): void {
  cached = undefined;
}

function build(s: Settings | undefined, settingsError?: Error): Topology {
  const storesTls = tlsOf(s?.server);
  const page = location.port || (location.protocol === "https:" ? "443" : "80");
  const bound = s?.server?.host ?? "127.0.0.1";
  return {
    settings: s,
    settingsError,
    dashboard: {
      name: "dashboard",
      title: "Dashboard API",
      enabled: true,
      url: location.origin,
      serverUrl: location.origin,
      tokens: false,
      ...(s ? tlsOf(s.dashboard) : { tls: location.protocol === "https:" ? "TLS" : "none", clientAuth: "" }),
      ...(s ? {} : { url: `${location.protocol}//${location.hostname}:${page}` }),
    },
    logs: listener("logs", "Log store", s, storesTls, bound),
    metrics: listener("metrics", "Metrics store", s, storesTls, bound),
  };
}

export interface StoreRequestOptions extends RequestOptions {
  /** the tenant of a request for one tenant's data (X-Scope-OrgID); none for a request across tenants */
  tenant?: string;
}

/**
 * A request to a store; the browser adds the Origin header, the store answers
 * CORS. In tokens mode the stores want credentials: the metrics admin token
 * (which both stores accept as reaching every tenant with every scope) as
 * basic auth, the tenant as user name, or an empty one across tenants.
 */
export function storeRequest<T>(l: Listener, path: string, options: StoreRequestOptions = {}): Promise<T> {
  const { tenant, ...rest } = options;
  const headers: Record<string, string> = { ...rest.headers };
  if (tenant !== undefined) headers["X-Scope-OrgID"] = tenant;
  if (l.tokens && adminToken.get() && headers.Authorization === undefined) headers.Authorization = basicAuth(tenant ?? "", adminToken.get());
  return request<T>(`${l.url}${path}`, { ...rest, headers });
}

const TOKEN_KEY = "outpost.metricsAdminToken";

/** the metrics admin token, kept only for this browser tab's session */
export const adminToken = {
  get: (): string => sessionStorage.getItem(TOKEN_KEY) ?? "",
  set: (t: string) => sessionStorage.setItem(TOKEN_KEY, t),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** HTTP basic credentials; btoa takes Latin-1 only, so the text goes as UTF-8 bytes */
function basicAuth(user: string, password: string): string {
  const bytes = new TextEncoder().encode(`${user}:${password}`);
  return `Basic ${btoa(String.fromCharCode(...bytes))}`;
}

export function adminRequest<T>(l: Listener, path: string, options: RequestOptions = {}): Promise<T> {
  return storeRequest<T>(l, path, { ...options, headers: { ...options.headers, Authorization: basicAuth("", adminToken.get()) } });
}
