// Cross-site request forgery protection for cookie sessions, as the real
// dashboard product does since its CSRF fix (pkg/middleware/csrf): a
// state-changing request that carries the session cookie must come from a page
// of the server's own origin (Origin, or Referer when a browser sent no
// Origin), of a trusted origin (security.csrf_trusted_origins), or of the host
// a proxy names in one of security.csrf_additional_headers. Refused: 403
// "origin not allowed". Unlike the real product the port counts: a page on
// another port of the same host is another origin (SameSite=Lax lets its forms
// through, so this check must not). Requests with an Authorization header are
// authenticated by it, never by the cookie, and a form cannot set one: they
// pass (an empty one does not count: sign-in falls back to the cookie then), as do requests without a session cookie (scripts, shippers) at the cost
// of one header lookup. Without Origin and Referer the sender is no browser
// page (browsers send Origin on every cross-origin POST): it passes too.
import type { Context, MiddlewareHandler } from "hono";
import { boundedMemo } from "../bounded-memo.ts";
import { ApiError } from "../errors.ts";

export interface CsrfOptions {
  /** the session cookie whose presence makes a request subject to the check */
  cookieName: string;
  /** `scheme://host[:port]` (that origin exactly) or a bare hostname (any scheme and port, the real product's form) */
  trustedOrigins: readonly string[];
  /** request headers naming the host the browser used, set by a proxy (X-Forwarded-Host) */
  additionalHeaders: readonly string[];
}

/** methods that change nothing (RFC 9110 §9.2.1); GET is one: a form's GET cannot reach a state-changing route */
const SAFE = new Set(["GET", "HEAD", "OPTIONS", "TRACE"]);

export const originNotAllowed = () => new ApiError(403, "origin not allowed", { messageId: "csrf.origin-not-allowed" });

export function csrfProtection(o: CsrfOptions): MiddlewareHandler {
  const cookiePrefix = `${o.cookieName}=`;
  const trustedOrigins = new Set<string>();
  const trustedHosts = new Set<string>();
  for (const t of o.trustedOrigins) {
    if (t.includes("://")) trustedOrigins.add(new URL(t).origin);
    else trustedHosts.add(t.toLowerCase());
  }

  // browsers send few distinct (source, host) pairs: decisions are remembered (bounded)
  const decided = boundedMemo((key) => {
    const [source = "", ...hosts] = key.split("\n");
    return decide(source, hosts);
  });
  const allowed = (c: Context, source: string): boolean => {
    const hosts = [c.req.header("Host") ?? new URL(c.req.url).host, ...o.additionalHeaders.map((h) => c.req.header(h) ?? "")];
    return decided([source, ...hosts].join("\n"));
  };
  const decide = (source: string, hosts: readonly string[]): boolean => {
    let from: URL;
    try {
      from = new URL(source);
    } catch {
      return false; // "null" (a sandboxed or privacy-sensitive context) among others
    }
    if (from.protocol !== "http:" && from.protocol !== "https:") return false;
    if (trustedOrigins.has(from.origin) || trustedHosts.has(from.hostname)) return true;
    return hosts.some((h) => h !== "" && sameHost(from, h));
  };

  return (c, next) => {
    if (SAFE.has(c.req.method)) return next();
    const cookie = c.req.header("Cookie");
    if (cookie === undefined || !cookie.includes(cookiePrefix) || c.req.header("Authorization")) return next();
    const source = c.req.header("Origin") ?? c.req.header("Referer");
    if (source !== undefined && !allowed(c, source)) throw originNotAllowed();
    return next();
  };
}

/** the origin's host and port equal the Host value's, a missing port being the origin scheme's default */
function sameHost(from: URL, host: string): boolean {
  const first = host.split(",")[0]!.trim(); // a proxy header may list several hops
  try {
    return new URL(`${from.protocol}//${first}`).host === from.host;
  } catch {
    return false;
  }
}
