// Headers every dashboard response carries, as the real product's default
// response headers do (allow_embedding = false, x_content_type_options = true):
// no page or API answer may be framed by another site (clickjacking), and no
// answer is content-sniffed into another type. Routes that set their own value
// (the data source proxy) keep it. Applied by the base app's outermost
// middleware (createBaseApp's defaultHeaders), so no extra middleware layer.
import type { Context } from "hono";

export type HeaderList = ReadonlyArray<readonly [string, string]>;

export const FRAME_AND_SNIFF_HEADERS: HeaderList = [
  ["X-Frame-Options", "deny"],
  ["X-Content-Type-Options", "nosniff"],
];

/** sets each header the response does not already carry */
export function applyDefaultHeaders(c: Context, headers: HeaderList): void {
  const apply = (h: Headers) => {
    for (const [name, value] of headers) if (!h.has(name)) h.set(name, value);
  };
  try {
    apply(c.res.headers);
  } catch {
    // a response with immutable headers (one from fetch) is copied first
    c.res = new Response(c.res.body, c.res);
    apply(c.res.headers);
  }
}
