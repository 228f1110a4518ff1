// What all three listeners share: request logging, in-flight accounting for
// graceful shutdown, the body size limit and error rendering. Each app passes
// its own renderer so the body has its family's shape (DESIGN rule 4).
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { getPath } from "hono/utils/url";
import { ApiError } from "../errors.ts";
import { jsonTextProblem } from "../json-safety.ts";
import { applyDefaultHeaders, type HeaderList } from "./frame-options.ts";
import type { Lifecycle } from "../lifecycle.ts";
import type { LogFields, Logger } from "../logger.ts";

export type ErrorRenderer = (c: Context, error: ApiError) => Response;

export interface BaseAppOptions {
  logger: Logger;
  lifecycle: Lifecycle;
  maxBodyBytes: number;
  render: ErrorRenderer;
  /** who the request is for, logged with it: {org} or {tenant} */
  subjectOf?: (c: Context) => LogFields;
  /** middleware that runs before the body is read (the body limit buffers chunked bodies) */
  early?: MiddlewareHandler[];
  /** headers every response carries unless it sets its own (the dashboard's X-Frame-Options) */
  defaultHeaders?: HeaderList;
  /** told each request's duration once it is answered (the stores' request histograms) */
  observe?: (c: Context, seconds: number) => void;
  /** a path with a trailing slash reaches the route without it (the dashboard: its real counterpart's router does so, and clients rely on it) */
  trailingSlashOptional?: boolean;
  /** path prefixes routed as others: [alias, prefix] (the log store's /loki/api/v1 as its /svc/api/v1) */
  pathAliases?: ReadonlyArray<readonly [string, string]>;
}

/** Hono's path of a request, with a prefix alias replaced by what it stands for (the handlers see the path as sent) */
function aliasedPath(aliases: ReadonlyArray<readonly [string, string]>): (request: Request) => string {
  return (request) => {
    const path = getPath(request);
    for (const [alias, prefix] of aliases) {
      if (path === alias || path.startsWith(`${alias}/`)) return prefix + path.slice(alias.length);
    }
    return path;
  };
}

/** set on a request no route answered (its hono routePath is then whatever middleware ran last) */
const UNMATCHED = "unmatched";

/** no route answered the request: it got the not-found answer (request metrics label it so) */
export function unmatched(c: Context): boolean {
  return c.get(UNMATCHED as never) === true;
}

/** a NUL in the path or query could only end in a database error */
const NUL = /%00/i;

export function createBaseApp(options: BaseAppOptions): Hono {
  const { logger, lifecycle, render } = options;
  if (options.pathAliases && options.trailingSlashOptional) throw new Error("path aliases and optional trailing slashes are not combined");
  const app = options.pathAliases ? new Hono({ getPath: aliasedPath(options.pathAliases) }) : new Hono({ strict: !options.trailingSlashOptional });

  // one outer layer for what every request gets (each middleware layer costs every request a dispatch)
  app.use(async (c, next) => {
    const done = lifecycle.track();
    const started = performance.now();
    try {
      if (NUL.test(c.req.url)) c.res = render(c, new ApiError(400, "bad request data: the URL must not contain NUL characters"));
      else await next();
      if (options.defaultHeaders) applyDefaultHeaders(c, options.defaultHeaders);
      options.observe?.(c, (performance.now() - started) / 1000);
    } finally {
      done();
      if (logger.enabled("info")) {
        logger.info("request", {
          method: c.req.method,
          path: c.req.path,
          status: c.res.status,
          duration_ms: Math.round((performance.now() - started) * 100) / 100,
          ...options.subjectOf?.(c),
        });
      }
    }
  });

  for (const m of options.early ?? []) app.use(m);

  app.use(sizedBodyLimit(options.maxBodyBytes));

  app.notFound((c) => {
    c.set(UNMATCHED as never, true as never);
    return render(c, new ApiError(404, "Not found"));
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) return render(c, err);
    // a body shorter than its Content-Length, or a malformed chunked body: the
    // runtime refuses it and the client is gone (issue 16 #20); one warning, not an error
    if (c.req.raw.signal.aborted) {
      logger.warn("request body incomplete: the client closed the connection", { method: c.req.method, path: c.req.path, cause: causeOf(err) });
      return render(c, new ApiError(400, "bad request data: the request body ended before it was complete"));
    }
    logger.error("unhandled error", { method: c.req.method, path: c.req.path, err: err.stack || String(err) });
    return render(c, new ApiError(500, "Internal Server Error"));
  });

  return app;
}

/**
 * hono's bodyLimit, with its every-request cases answered without an async
 * layer: no body (GET) or a Content-Length without Transfer-Encoding (its
 * own test, the same answers); a chunked body goes through hono's, which
 * counts what arrives.
 */
function sizedBodyLimit(maxSize: number): MiddlewareHandler {
  const tooLarge = () => {
    throw new ApiError(413, `request body too large: the limit is ${maxSize} bytes`);
  };
  const streamed = bodyLimit({ maxSize, onError: tooLarge });
  return (c, next) => {
    const raw = c.req.raw;
    if (!raw.body) return next();
    if (raw.headers.has("content-length") && !raw.headers.has("transfer-encoding")) {
      return parseInt(raw.headers.get("content-length") || "0", 10) > maxSize ? tooLarge() : next();
    }
    return streamed(c, next);
  };
}

/** an error's name, message and code on one line (Bun's AbortError has an empty stack) */
function causeOf(err: Error): string {
  const code = (err as { code?: unknown }).code;
  return `${err.name}: ${err.message}${code === undefined ? "" : ` (${String(code)})`}`;
}

/**
 * Reads a JSON request body; anything that is not JSON is a 400 that never echoes the body.
 * The body must be declared JSON: a browser form can send text/plain, urlencoded or
 * multipart bodies to another origin without asking, never application/json (CSRF, issue 16 #6).
 */
export async function readJson<T = unknown>(c: Context): Promise<T> {
  if (!isJsonContentType(c.req.header("Content-Type"))) throw unsupportedMediaType();
  const text = await c.req.text();
  let data: T;
  try {
    data = JSON.parse(text) as T;
  } catch {
    throw new ApiError(400, "bad request data: the body is not valid JSON", { messageId: "bad-request.invalid-json" });
  }
  const problem = jsonTextProblem(text, data);
  if (problem) throw new ApiError(400, `bad request data: ${problem}`, { messageId: "bad-request.invalid-json" });
  return data;
}

/** application/json, or a JSON-based type such as application/merge-patch+json; parameters (charset) allowed */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return false;
  const semi = header.indexOf(";");
  const type = (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

const unsupportedMediaType = () =>
  new ApiError(415, "unsupported media type: the Content-Type header must be application/json", { messageId: "bad-request.unsupported-media-type" });

/** Applies an error's extra headers to a response. */
export function withHeaders(response: Response, error: ApiError): Response {
  for (const [k, v] of Object.entries(error.options.headers ?? {})) response.headers.set(k, v);
  return response;
}
