// A standby store node's listeners: every request goes on to the node that
// runs the stores (found in cluster_nodes), as it came — method, path, query,
// headers (the tenant, the credentials), body streamed — and its answer comes
// back as it is. So one address (any node, or a load balancer over all of
// them) works for shippers, Prometheus and Grafana. While no node runs them
// (a failover under way) the answer is 503, which they retry.
import type { FetchHandler } from "../platform/listen.ts";
import type { Membership } from "./nodes.ts";

/** headers of this hop only (RFC 9110 7.6.1), and the ones fetch sets itself */
const HOP = new Set(["connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade", "host", "content-length"]);

const unavailable = (message: string) =>
  new Response(`${message}\n`, { status: 503, headers: { "Content-Type": "text/plain; charset=utf-8", "Retry-After": "1" } });

export function forwardToActive(service: "logs" | "metrics", membership: Membership): FetchHandler {
  return async (request) => {
    const active = await membership.activeStores().catch(() => undefined);
    const base = active && !active.self ? active.urls[service] : undefined;
    if (!base) return unavailable("no store node is active yet (a failover may be under way): try again");
    if (request.headers.get("upgrade")) {
      return unavailable(`this node is a standby: live tail needs the active store node (${base})`);
    }
    const url = new URL(request.url);
    // the path and query only: never resolved against the base (a path of "//host/" or "/\\host/" names another host)
    const target = new URL(base);
    target.pathname = url.pathname;
    target.search = url.search;
    if (target.origin !== new URL(base).origin) return unavailable("not a path of the store");
    // and the headers this hop's Connection header names
    const named = new Set((request.headers.get("connection") ?? "").split(",").map((h) => h.trim().toLowerCase()).filter(Boolean));
    const headers = new Headers();
    request.headers.forEach((value, name) => {
      const lower = name.toLowerCase();
      if (!HOP.has(lower) && !named.has(lower)) headers.set(name, value);
    });
    const forwardedFor = request.headers.get("x-forwarded-for");
    headers.set("X-Forwarded-Host", url.host);
    if (forwardedFor) headers.set("X-Forwarded-For", forwardedFor);
    const hasBody = request.method !== "GET" && request.method !== "HEAD";
    try {
      const answer = await fetch(target, {
        method: request.method,
        headers,
        ...(hasBody ? { body: request.body, duplex: "half" } : {}),
        redirect: "manual",
        signal: request.signal,
      } as RequestInit);
      const out = new Headers(answer.headers);
      // fetch has decoded the body: its length and encoding are no longer what they were
      out.delete("content-encoding");
      out.delete("content-length");
      out.delete("transfer-encoding");
      return new Response(answer.body, { status: answer.status, statusText: answer.statusText, headers: out });
    } catch {
      // the active node went away mid-request: nothing was acknowledged, the client sends again
      return unavailable("the active store node did not answer (a failover may be under way): try again");
    }
  };
}
