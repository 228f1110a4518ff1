// Headers every dashboard response carries, as the real product's default
// response headers do (allow_embedding = false, x_content_type_options = true):
// no page or API answer may be framed by another site (clickjacking), and no
// answer is content-sniffed into another type. Routes that set their own value
// (the data source proxy) keep it.
import type { Context, MiddlewareHandler } from "hono";

const DEFAULTS: ReadonlyArray<readonly [string, string]> = [
  ["X-Frame-Options", "deny"],
  ["X-Content-Type-Options", "nosniff"],
];

export function frameOptions(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    applyDefaults(c);
  };
}

function applyDefaults(c: Context): void {
  const apply = (h: Headers) => {
    for (const [name, value] of DEFAULTS) if (!h.has(name)) h.set(name, value);
  };
  try {
    apply(c.res.headers);
  } catch {
    // a response with immutable headers (one from fetch) is copied first
    c.res = new Response(c.res.body, c.res);
    apply(c.res.headers);
  }
}
