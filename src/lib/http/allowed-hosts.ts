// DNS-rebinding defence for listeners that answer without credentials (the
// log and metrics stores): a hostile page can point a name it controls at
// 127.0.0.1, and the browser then sends that name in Host. A request whose
// Host names neither this machine nor an IP literal is refused with 403
// before anything else runs. An IP literal cannot be rebound, so it is always
// accepted; a request without Host (HTTP/1.0) is not from a browser.
// Cost: one header lookup and one Set lookup per request.
import { isIP } from "node:net";
import { hostname } from "node:os";
import type { MiddlewareHandler } from "hono";
import { ApiError } from "../errors.ts";

export interface AllowedHostsOptions {
  /** names or addresses accepted besides the defaults (loopback names, the bind address); `*` allows any */
  configured: readonly string[];
  /** the address the listener binds to */
  bindHost: string;
  /** the machine's own names, used when bound to a wildcard address (default: its host name) */
  machineNames?: readonly string[];
}

const WILDCARDS = new Set(["0.0.0.0", "::", "[::]", "*", ""]);

/** `Example.COM:3100` -> `example.com`, `[::1]:3100` -> `::1`; trailing dot dropped */
export function hostnameOfHeader(host: string): string {
  let h = host.trim().toLowerCase();
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    h = end > 0 ? h.slice(1, end) : h.slice(1);
  } else {
    const colon = h.indexOf(":");
    // one colon: host:port; more: a bare IPv6 address (not valid in Host, but harmless)
    if (colon >= 0 && h.indexOf(":", colon + 1) < 0) h = h.slice(0, colon);
  }
  return h.endsWith(".") ? h.slice(0, -1) : h;
}

/** the names a listener accepts (configured names add to the defaults); undefined means any */
export function allowedHostSet(o: AllowedHostsOptions): Set<string> | undefined {
  if (o.configured.includes("*")) return undefined;
  const defaults = ["localhost", "127.0.0.1", "::1", o.bindHost, ...(WILDCARDS.has(o.bindHost) ? o.machineNames ?? [hostname()] : [])];
  return new Set([...defaults, ...o.configured].filter((n) => !WILDCARDS.has(n)).map(hostnameOfHeader));
}

/** refuses (403, rendered by the app's error renderer) a request whose Host is not allowed */
export function allowedHosts(o: AllowedHostsOptions): MiddlewareHandler {
  const allowed = allowedHostSet(o);
  if (!allowed) return (_c, next) => next();
  const decided = new Map<string, boolean>();
  // not async: one promise less per request
  return (c, next) => {
    const header = c.req.header("Host");
    if (header !== undefined) {
      let ok = decided.get(header);
      if (ok === undefined) {
        const name = hostnameOfHeader(header);
        ok = allowed.has(name) || isIP(name) !== 0;
        // Host is chosen by the client: remember a bounded number of answers
        if (decided.size >= 1000) decided.clear();
        decided.set(header, ok);
      }
      if (!ok) throw new ApiError(403, hostRefusal(header.length > 200 ? `${header.slice(0, 200)}…` : header));
    }
    return next();
  };
}

export const hostRefusal = (host: string) =>
  `host ${JSON.stringify(host)} is not allowed on this listener (DNS rebinding protection): add it to server.allowed_hosts (--allowed-hosts), or * to allow any`;
