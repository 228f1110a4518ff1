// Every request made on a data source's behalf (health, proxy, resources,
// /api/ds/query) is built here: the target from the stored URL, the
// credentials added server-side from the data source (basic auth, custom
// headers jsonData.httpHeaderName<N> with secureJsonData.httpHeaderValue<N>,
// the X-Scope-OrgID tenant), the real product's 30 s data proxy timeout, and
// an unreachable upstream turned into a 502 that names no secret.
import { ApiError, badRequest } from "../../../../lib/errors.ts";
import type { DataSourceRecord } from "./datasource-registry.ts";
import { openDataSourceSecrets, type DataSourceDeps } from "./datasources.ts";
import type { OutboundPolicy } from "./outbound-policy.ts";

/** the real product's dataproxy.timeout default */
export const DATA_PROXY_TIMEOUT_MS = 30_000;

/** RFC 9110 §7.6.1 hop-by-hop headers, plus the proxy ones; never forwarded either way */
const HOP_BY_HOP = ["connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer", "transfer-encoding", "upgrade"];

/** what the caller sends that only concerns Outpost, or that the data source's configuration decides */
const CALLER_ONLY = ["authorization", "cookie", "x-svc-org-id", "x-grafana-org-id", "x-scope-orgid", "host", "content-length", "accept-encoding", "x-ds-authorization"];

/** what the upstream answers that must not reach the caller (fetch has already decoded the body) */
const UPSTREAM_ONLY = ["set-cookie", "content-encoding", "content-length"];

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export interface Credentials {
  /** lower-case header names */
  headers: Record<string, string>;
  /** secret values (and their encodings) to keep out of anything sent back */
  secrets: string[];
  /** where requests may go (security.data_source_*) */
  policy?: OutboundPolicy | undefined;
}

/** a copy without the hop-by-hop headers, including those the Connection header names */
export function withoutHopByHop(headers: Headers): Headers {
  const out = new Headers(headers);
  const named = (headers.get("connection") ?? "").split(",").map((s) => s.trim().toLowerCase()).filter(Boolean);
  for (const name of [...HOP_BY_HOP, ...named]) out.delete(name);
  return out;
}

/** the caller's headers as forwarded by the proxy: no hop-by-hop, no credentials of the caller */
export function forwardedRequestHeaders(incoming: Headers): Headers {
  const out = withoutHopByHop(incoming);
  for (const name of CALLER_ONLY) out.delete(name);
  // the real product lets a caller pick the upstream Authorization explicitly (never Outpost's own)
  const dsAuth = incoming.get("x-ds-authorization");
  if (dsAuth) out.set("authorization", dsAuth);
  return out;
}

/** the upstream's headers as sent back: no hop-by-hop, no cookies */
export function returnedResponseHeaders(upstream: Headers): Headers {
  const out = withoutHopByHop(upstream);
  for (const name of UPSTREAM_ONLY) out.delete(name);
  return out;
}

/** JSON (application/json, application/*+json) or plain text: what a browser shows as text, never runs */
const SHOWN_AS_TEXT = /^(application\/([a-z0-9.+-]*\+)?json|text\/plain)\s*(;|$)/i;

/**
 * The headers every answer of the proxy and resource routes carries, errors
 * included (issue 16 #1): whatever a data source answers, it is served on the
 * dashboard's origin, so a page it sends must not run there. As the real
 * product (proxyutil.SetProxyResponseHeaders): `Content-Security-Policy:
 * sandbox` (no script, an opaque origin); then no MIME sniffing, and any type
 * other than JSON or plain text is a download rather than a page.
 */
export function sandboxProxiedResponse(headers: Headers): void {
  headers.set("content-security-policy", "sandbox");
  headers.set("x-content-type-options", "nosniff");
  if (!SHOWN_AS_TEXT.test(headers.get("content-type") ?? "")) headers.set("content-disposition", "attachment");
}

const invalidUrl = (ds: DataSourceRecord) => badRequest(`Invalid data source URL: "${ds.url}"`);

/** the stored URL, read as http:// when it has no scheme (the real product's rule) */
export function baseUrlOf(ds: DataSourceRecord): URL {
  const raw = ds.url.trim();
  const withScheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(raw) ? raw : `http://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw invalidUrl(ds);
  }
  if ((url.protocol !== "http:" && url.protocol !== "https:") || !url.hostname) throw invalidUrl(ds);
  return url;
}

/** the base URL plus a path (already percent-encoded) and query */
export function targetUrl(ds: DataSourceRecord, path: string, query?: URLSearchParams | string): URL {
  const url = baseUrlOf(ds);
  url.username = "";
  url.password = "";
  url.pathname = url.pathname.replace(/\/+$/, "") + (path.startsWith("/") ? path : `/${path}`);
  const search = query === undefined ? "" : String(query);
  url.search = search ? `?${search.replace(/^\?/, "")}` : "";
  return url;
}

const base64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** the headers that carry the data source's credentials, and the secrets to keep hidden */
export async function credentialsOf(deps: DataSourceDeps, ds: DataSourceRecord): Promise<Credentials> {
  const secrets = await openDataSourceSecrets(deps, ds);
  const headers: Record<string, string> = {};
  const hidden = Object.values(secrets).filter((v) => v !== "");
  const basic = (user: string, password: string) => {
    const token = base64(`${user}:${password}`);
    headers.authorization = `Basic ${token}`;
    hidden.push(token);
  };
  // a URL with user info authenticates as Go's HTTP client does it
  const url = baseUrlOf(ds);
  if (url.username) basic(decodeURIComponent(url.username), decodeURIComponent(url.password));
  if (ds.basicAuth) basic(ds.basicAuthUser, secrets.basicAuthPassword ?? "");
  const tenant = ds.jsonData?.tenantId;
  if (typeof tenant === "string" && tenant.trim()) headers["x-scope-orgid"] = tenant.trim();
  // custom headers come last: one of the same name (X-Scope-OrgID, Authorization) wins
  for (const [key, name] of Object.entries(ds.jsonData ?? {})) {
    const n = /^httpHeaderName(\d+)$/.exec(key)?.[1];
    if (n === undefined || typeof name !== "string" || !name.trim()) continue;
    const header = name.trim().toLowerCase();
    if (!TOKEN.test(header) || HOP_BY_HOP.includes(header) || header === "host" || header === "content-length") {
      throw badRequest(`jsonData.${key}: "${name}" cannot be sent as an HTTP header`);
    }
    const value = secrets[`httpHeaderValue${n}`] ?? "";
    if (/[\r\n\0]/.test(value)) throw badRequest(`secureJsonData.httpHeaderValue${n}: the value cannot be sent as an HTTP header`);
    headers[header] = value;
  }
  return { headers, secrets: hidden, policy: deps.outbound };
}

export interface OutboundRequest {
  method: string;
  /** percent-encoded path below the data source URL */
  path: string;
  query?: URLSearchParams | string;
  /** sent as they are, then the credentials on top */
  headers?: Headers;
  body?: Uint8Array<ArrayBuffer> | string | null;
}

/** why a request did not get an answer, without the URL or anything the error may quote */
function reachFailure(err: unknown): ApiError {
  const e = err as { name?: string; cause?: { code?: string; name?: string } };
  if (e.name === "TimeoutError" || e.cause?.name === "TimeoutError") {
    return new ApiError(504, `the data source did not answer within ${DATA_PROXY_TIMEOUT_MS / 1000}s`);
  }
  const code = e.cause?.code ?? (err as { code?: string }).code;
  return new ApiError(502, `the data source could not be reached${code && /^[A-Z_]+$/.test(code) ? ` (${code})` : ""}`);
}

/**
 * Sends a request to the data source with its credentials. The answer is
 * returned whatever its status (redirects are not followed, as a reverse proxy
 * does); no answer at all is a 502 (504 after the timeout).
 */
export async function sendToDataSource(ds: DataSourceRecord, credentials: Credentials, request: OutboundRequest): Promise<Response> {
  const url = targetUrl(ds, request.path, request.query);
  await credentials.policy?.check(url);
  const headers = new Headers(request.headers);
  for (const [name, value] of Object.entries(credentials.headers)) headers.set(name, value);
  try {
    return await fetch(url, {
      method: request.method,
      headers,
      body: request.body && request.method !== "GET" && request.method !== "HEAD" ? request.body : null,
      redirect: "manual",
      signal: AbortSignal.timeout(DATA_PROXY_TIMEOUT_MS),
    });
  } catch (err) {
    throw reachFailure(err);
  }
}
