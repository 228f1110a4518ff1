// CORS for the log and metrics stores, so the admin page (served by the
// dashboard listener, another origin) can call them from the browser.
// An origin is allowed when it is listed (`*`: any), or when it is the
// dashboard listener of the same machine as the browser sees it: the same
// hostname the request's Host header names, the dashboard's scheme and port.
// Preflights are answered here, before any tenant or credential check (a
// preflight carries neither). No Allow-Credentials: the page sends
// Authorization explicitly, never cookies. A request without Origin costs one
// header lookup.
import type { Context, MiddlewareHandler } from "hono";
import { boundedMemo } from "../bounded-memo.ts";

export interface CorsOptions {
  /** origins allowed as written (`scheme://host[:port]`); `*` allows any */
  allowedOrigins: readonly string[];
  /** the dashboard listener: allowed on whatever hostname the request came in on */
  sameHostPort?: { scheme: "http" | "https"; port: number };
}

const ALLOW_METHODS = "GET, POST, PUT, DELETE, OPTIONS";
const ALLOW_HEADERS = "Authorization, Content-Type, Content-Encoding, X-Scope-OrgID, X-Prometheus-Remote-Write-Version";
const EXPOSE_HEADERS = "Content-Type, WWW-Authenticate";
const MAX_AGE = "600";
const DEFAULT_PORTS: Record<string, string> = { "http:": "80", "https:": "443" };

/** `https://Example.com:443/` -> `https://example.com`; undefined for anything but an http(s) origin */
export function normalizeOrigin(text: string): string | undefined {
  try {
    const u = new URL(text);
    if (u.protocol !== "http:" && u.protocol !== "https:") return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

function hostnameOf(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

export function cors(o: CorsOptions): MiddlewareHandler {
  const any = o.allowedOrigins.includes("*");
  const listed = new Set(o.allowedOrigins.map((x) => normalizeOrigin(x)).filter((x): x is string => x !== undefined));
  const same = o.sameHostPort && o.sameHostPort.port > 0 ? { protocol: `${o.sameHostPort.scheme}:`, port: String(o.sameHostPort.port) } : undefined;
  // browsers send few distinct (origin, host) pairs: decisions are remembered (bounded)
  const decided = boundedMemo((key) => {
    const [origin = "", host = ""] = key.split("\n");
    return decide(origin, host);
  });

  const allowed = (origin: string, c: Context): boolean => {
    if (any) return true;
    return decided(`${origin}\n${c.req.header("Host") ?? new URL(c.req.url).host}`);
  };
  const decide = (origin: string, host: string): boolean => {
    const normal = normalizeOrigin(origin);
    if (!normal) return false;
    if (listed.has(normal)) return true;
    if (!same) return false;
    const u = new URL(normal);
    return u.protocol === same.protocol && (u.port || DEFAULT_PORTS[u.protocol]) === same.port && u.hostname === hostnameOf(host);
  };

  const handle = async (c: Context, next: () => Promise<void>, origin: string) => {
    const ok = allowed(origin, c);
    if (c.req.method === "OPTIONS" && c.req.header("Access-Control-Request-Method")) {
      // a refused preflight says why instead of a bare 404 or 401 from the route behind it
      if (!ok) return c.text("origin not allowed\n", 403, { "Content-Type": "text/plain; charset=utf-8", Vary: "Origin" });
      return c.body(null, 204, {
        "Access-Control-Allow-Origin": origin,
        "Access-Control-Allow-Methods": ALLOW_METHODS,
        "Access-Control-Allow-Headers": ALLOW_HEADERS,
        "Access-Control-Max-Age": MAX_AGE,
        Vary: "Origin",
      });
    }
    // a page of another site may still send a simple POST (no preflight) and ignore the answer: a
    // write from an origin the store does not answer is refused, so it never lands in a tenant. A
    // WebSocket handshake (the log store's tail) too: the same-origin policy does not cover
    // WebSockets, so such a page could otherwise read what the socket sends
    if (!ok && ((c.req.method !== "GET" && c.req.method !== "HEAD") || c.req.header("Upgrade") !== undefined)) {
      return c.text("origin not allowed\n", 403, { "Content-Type": "text/plain; charset=utf-8", Vary: "Origin" });
    }
    await next();
    setHeaders(c, ok ? origin : undefined);
    return undefined;
  };
  // not async: a request without Origin (every push from a shipper) pays one header lookup
  return (c, next) => {
    const origin = c.req.header("Origin");
    return origin ? handle(c, next, origin) : next();
  };
}

/**
 * The actual request's CORS headers, on whatever response the route (or the
 * error renderer) made; a refused origin gets only Vary, so caches keep the answers apart.
 */
function setHeaders(c: Context, origin: string | undefined): void {
  const apply = (h: Headers) => {
    if (origin) {
      h.set("Access-Control-Allow-Origin", origin);
      h.set("Access-Control-Expose-Headers", EXPOSE_HEADERS);
    }
    const vary = h.get("Vary");
    if (!vary) h.set("Vary", "Origin");
    else if (!/(^|,)\s*origin\s*(,|$)/i.test(vary)) h.set("Vary", `${vary}, Origin`);
  };
  try {
    apply(c.res.headers);
  } catch {
    // a response with immutable headers (one from fetch) is copied first
    c.res = new Response(c.res.body, c.res);
    apply(c.res.headers);
  }
}
