// What all three listeners share: request logging, in-flight accounting for
// graceful shutdown, the body size limit and error rendering. Each app passes
// its own renderer so the body has its family's shape (DESIGN rule 4).
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { ApiError } from "../errors.ts";
import { jsonTextProblem } from "../json-safety.ts";
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
}

export function createBaseApp(options: BaseAppOptions): Hono {
  const { logger, lifecycle, render } = options;
  const app = new Hono();

  app.use(async (c, next) => {
    const done = lifecycle.track();
    const started = performance.now();
    try {
      await next();
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

  // a NUL in the path or query could only end in a database error
  app.use(async (c, next) => {
    if (/%00/i.test(c.req.url)) throw new ApiError(400, "bad request data: the URL must not contain NUL characters");
    await next();
  });

  for (const m of options.early ?? []) app.use(m);

  app.use(
    bodyLimit({
      maxSize: options.maxBodyBytes,
      onError: () => {
        throw new ApiError(413, `request body too large: the limit is ${options.maxBodyBytes} bytes`);
      },
    }),
  );

  app.notFound((c) => render(c, new ApiError(404, "Not found")));

  app.onError((err, c) => {
    if (err instanceof ApiError) return render(c, err);
    // the client closed the connection before its body was complete (a body shorter than its
    // Content-Length, a chunked body cut off): its fault, not ours; nobody is left to read an answer
    if (c.req.raw.signal.aborted) {
      logger.warn("request aborted by the client", { method: c.req.method, path: c.req.path, err: String(err) });
      return render(c, new ApiError(400, "request aborted: the connection was closed before the body was complete"));
    }
    // some runtime errors (DOMException under Bun) have an empty stack
    logger.error("unhandled error", { method: c.req.method, path: c.req.path, err: err.stack || String(err) });
    return render(c, new ApiError(500, "Internal Server Error"));
  });

  return app;
}

/** Reads a JSON request body; anything that is not JSON is a 400 that never echoes the body. */
export async function readJson<T = unknown>(c: Context): Promise<T> {
  const text = await c.req.text();
  let data: T;
  try {
    data = JSON.parse(text) as T;
  } catch {
    throw new ApiError(400, "bad request data: the body is not valid JSON", { messageId: "bad-request.invalid-json" });
  }
  const problem = jsonTextProblem(text);
  if (problem) throw new ApiError(400, `bad request data: ${problem}`, { messageId: "bad-request.invalid-json" });
  return data;
}

/** Applies an error's extra headers to a response. */
export function withHeaders(response: Response, error: ApiError): Response {
  for (const [k, v] of Object.entries(error.options.headers ?? {})) response.headers.set(k, v);
  return response;
}
