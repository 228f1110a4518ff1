// The data source proxy (/api/datasources/proxy/uid/:uid/*) and plugin
// resource calls (/api/datasources/uid/:uid/resources/*): the caller's
// request forwarded with the data source's credentials instead of the
// caller's, hop-by-hop headers dropped both ways, the answer streamed back
// with its status and content type, secrets redacted from it. For a loki
// data source and a caller restricted by label rules, every query parameter
// is rewritten first and anything that is not a known query endpoint is
// refused (core/datasources/log-endpoints.ts). Writes need datasources:write on the data
// source, one allow-list for both modes (core/datasources/datasource-endpoints.ts).
import { badRequest, forbidden } from "../../../../lib/errors.ts";
import type { Identity } from "../identity/index.ts";
import { checkProxyAccess } from "./datasource-endpoints.ts";
import { credentialsOf, forwardedRequestHeaders, returnedResponseHeaders, sendToDataSource } from "./datasource-http.ts";
import type { DataSourceRecord } from "./datasource-registry.ts";
import type { DataSourceDeps } from "./datasources.ts";
import { logApiPrefix, logEndpointOf, restrictLogRequest } from "./log-endpoints.ts";
import type { RestrictionOf } from "./log-query-restriction.ts";
import { redactStream } from "../secrets/index.ts";

export interface ProxyDeps extends DataSourceDeps {
  restrictionOf: RestrictionOf;
}

export interface IncomingRequest {
  method: string;
  /** percent-encoded, below the data source URL (proxy) or the resource root (resources) */
  path: string;
  /** the raw query string, without "?" */
  search: string;
  headers: Headers;
  body: Uint8Array<ArrayBuffer> | null;
}

export type ProxyMode = "proxy" | "resource";

/** statuses whose answer has no body */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/** "." and ".." would climb out of the data source URL's path */
function checkSegments(path: string): void {
  for (const segment of path.split("/")) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      throw badRequest("bad request data: the path is not valid percent-encoding");
    }
    if (decoded === "." || decoded === ".." || decoded.includes("/") || decoded.includes("\\")) {
      throw badRequest('bad request data: the path must not contain ".", ".." or encoded slashes');
    }
  }
}

/** the path below the data source URL a request goes to */
function upstreamPath(ds: DataSourceRecord, path: string, mode: ProxyMode): string {
  const rest = path.replace(/^\/+/, "");
  if (mode === "proxy") return `/${rest}`;
  if (ds.type === "loki") return `${logApiPrefix(ds)}/${rest}`;
  if (ds.type === "prometheus") return `/${rest}`;
  throw badRequest(`resources are not supported for data sources of type "${ds.type}": Outpost has them for loki and prometheus data sources`);
}

const isForm = (headers: Headers) => (headers.get("content-type") ?? "").toLowerCase().startsWith("application/x-www-form-urlencoded");

/** a restricted caller's request with every query parameter rewritten; refused when that cannot be done */
async function restrict(deps: ProxyDeps, ds: DataSourceRecord, identity: Identity, upstream: string, req: IncomingRequest) {
  const restriction = ds.type === "loki" ? await deps.restrictionOf(ds, identity) : undefined;
  if (!restriction) return { search: req.search, body: req.body };
  const endpoint = logEndpointOf(ds, upstream) ?? upstream;
  const query = new URLSearchParams(req.search);
  let form: URLSearchParams | undefined;
  if (req.body?.length) {
    if (!isForm(req.headers)) {
      throw forbidden("your access to this data source is restricted by label rules: a request body must be form-encoded (application/x-www-form-urlencoded)");
    }
    form = new URLSearchParams(new TextDecoder().decode(req.body));
  }
  restrictLogRequest(restriction, endpoint, query, form);
  return { search: query.toString(), body: form ? new TextEncoder().encode(form.toString()) : req.body };
}

export async function proxyToDataSource(
  deps: ProxyDeps, ds: DataSourceRecord, identity: Identity, req: IncomingRequest, mode: ProxyMode,
): Promise<Response> {
  checkSegments(req.path);
  const upstream = upstreamPath(ds, req.path, mode);
  // one allow-list for both modes: reads for query users, anything else needs write on the data source
  checkProxyAccess(ds, identity.permissions, req.method, upstream);
  const { search, body } = await restrict(deps, ds, identity, upstream, req);
  const credentials = await credentialsOf(deps, ds);
  const res = await sendToDataSource(ds, credentials, {
    method: req.method, path: upstream, query: search, headers: forwardedRequestHeaders(req.headers), body,
  });
  if (res.status === 401) {
    // as the real product: the caller's own session must not look rejected when the data source's credentials are
    await res.body?.cancel();
    return Response.json({ message: "Authentication to data source failed" }, { status: 400 });
  }
  const headers = returnedResponseHeaders(res.headers);
  const stream = NO_BODY.has(res.status) || !res.body ? null : redactStream(res.body, credentials.secrets);
  return new Response(stream, { status: res.status, statusText: res.statusText, headers });
}
