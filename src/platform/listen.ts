// Serving a fetch handler on each runtime: Bun.serve, Deno.serve, or
// node:http through @hono/node-server. Everything above this file speaks
// Web-standard Request/Response only; WebSockets go through websocket.ts,
// whose upgrades each listener offers (and whose sockets it closes when it stops).
import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { runtime } from "./runtime.ts";
import { listenTls, tlsEnabled, type TlsConfig } from "./tls.ts";
import { asksUpgrade, bunWebSocket, offerBun, offerDeno, socketSet } from "./websocket.ts";
import { serveUpgrades } from "./websocket-node.ts";

/** a Hono app's fetch: `env` is what the runtime passes beside the request (its bindings) */
export type FetchHandler = (request: Request, env?: unknown) => Response | Promise<Response>;

export interface ListenOptions {
  host: string;
  port: number;
  /** the runtime's own body cap; the apps enforce the configured limit themselves */
  maxRequestBodySize?: number;
  /** HTTPS (and client certificates) when its cert_file and key_file are set */
  tls?: TlsConfig | undefined;
  /** connection timeouts (server.http_*_timeout); the runtime's own defaults when absent */
  timeouts?: HttpTimeouts | undefined;
}

/** in milliseconds, 0 for none (docs/choices.md, "Connection timeouts") */
export interface HttpTimeouts {
  /** a keep-alive connection waiting for its next request */
  idle: number;
  /** receiving a whole request, headers and body */
  read: number;
  /** a request in flight without a byte read or written */
  write: number;
}

/** Bun.serve's idleTimeout is whole seconds, at most 255 */
export const BUN_MAX_IDLE_SECONDS = 255;

/**
 * Bun.serve has one inactivity timeout per connection, counted while it is
 * idle and while a request is in flight alike (a request that outlives it is
 * reset): the longer of the idle and write timeouts, so neither is cut short.
 * 0 (none) when either is none.
 */
export function bunIdleTimeout(t: HttpTimeouts): number {
  return Math.min(BUN_MAX_IDLE_SECONDS, Math.ceil(inactivityTimeout(t) / 1000));
}

/** what this runtime cannot apply of the configured timeouts, for a warning at startup */
export function timeoutLimits(t: HttpTimeouts): string | undefined {
  const seconds = Math.ceil(inactivityTimeout(t) / 1000);
  if (runtime !== "bun" || seconds <= BUN_MAX_IDLE_SECONDS) return undefined;
  return `Bun closes a connection after at most ${BUN_MAX_IDLE_SECONDS}s without traffic: server.http_idle_timeout and server.http_write_timeout act as ${BUN_MAX_IDLE_SECONDS}s`;
}

/** one inactivity timeout standing for the idle and write timeouts (ms, 0 for none) */
export function inactivityTimeout(t: HttpTimeouts): number {
  return t.idle === 0 || t.write === 0 ? 0 : Math.max(t.idle, t.write);
}

/**
 * node:http (plain listeners on Node, HTTPS listeners everywhere):
 * keepAliveTimeout is the idle timeout, requestTimeout and headersTimeout
 * bound the reading of a request, and the write timeout is the socket's
 * inactivity timeout while a response is open (Node restores the keep-alive
 * timeout when it ends).
 */
export function applyNodeTimeouts(server: HttpServer, t: HttpTimeouts | undefined): void {
  if (!t) return;
  server.keepAliveTimeout = t.idle;
  server.requestTimeout = t.read;
  server.headersTimeout = t.read;
  if (t.write > 0) server.on("request", (_req, res: import("node:http").ServerResponse) => res.setTimeout(t.write));
}

export interface Listener {
  readonly url: string;
  readonly port: number;
  /** stops accepting; with force, also drops open connections */
  close(force?: boolean): Promise<void>;
}

export class ListenError extends Error {}

export async function listen(fetch: FetchHandler, options: ListenOptions): Promise<Listener> {
  try {
    if (options.tls && tlsEnabled(options.tls)) return await listenTls(fetch, options, options.tls);
    if (runtime === "bun") return listenBun(fetch, options);
    if (runtime === "deno") return await listenDeno(fetch, options);
    return await listenNode(fetch, options);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const inUse = e.code === "EADDRINUSE" || /in use|EADDRINUSE/i.test(String(e.message));
    throw new ListenError(
      `cannot listen on ${options.host}:${options.port}: ${inUse ? "address already in use" : e.message}`,
    );
  }
}

export function urlOf(host: string, port: number, scheme = "http"): string {
  const h = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
  return `${scheme}://${h}:${port}`;
}

function listenBun(fetch: FetchHandler, o: ListenOptions): Listener {
  const sockets = socketSet();
  const server = Bun.serve({
    hostname: o.host,
    port: o.port,
    // Bun passes the server beside the request: the app gets it as its bindings, as before
    fetch: (request, server) => {
      if (asksUpgrade(request)) offerBun(request, server, sockets);
      return fetch(request, server);
    },
    websocket: bunWebSocket,
    development: false,
    maxRequestBodySize: o.maxRequestBodySize ?? 1024 ** 3,
    ...(o.timeouts ? { idleTimeout: bunIdleTimeout(o.timeouts) } : {}),
  });
  const port = server.port ?? o.port;
  return {
    url: urlOf(o.host, port),
    port,
    close: async (force = false) => {
      sockets.closeAll(force);
      await server.stop(force);
    },
  };
}

// Deno.serve takes no timeout settings: its own defaults hold there
interface DenoServer { addr: { port: number }; shutdown(): Promise<void>; finished: Promise<void> }
interface DenoGlobal {
  serve(options: { hostname: string; port: number; onListen?: () => void }, handler: FetchHandler): DenoServer;
}

async function listenDeno(fetch: FetchHandler, o: ListenOptions): Promise<Listener> {
  const deno = (globalThis as unknown as { Deno: DenoGlobal }).Deno;
  const sockets = socketSet();
  const server = deno.serve({ hostname: o.host, port: o.port, onListen: () => {} }, (request, info) => {
    if (asksUpgrade(request)) offerDeno(request, sockets);
    return fetch(request, info);
  });
  let shutdown: Promise<void> | undefined;
  return {
    url: urlOf(o.host, server.addr.port),
    port: server.addr.port,
    // Deno's shutdown is graceful and has no forced variant: a forced close
    // stops waiting for it (the process is about to exit)
    close: async (force = false) => {
      sockets.closeAll(force);
      shutdown ??= server.shutdown();
      await (force ? Promise.race([shutdown, new Promise((r) => setTimeout(r, 100))]) : shutdown);
    },
  };
}

async function listenNode(fetch: FetchHandler, o: ListenOptions): Promise<Listener> {
  const { createAdaptorServer } = await import("@hono/node-server");
  const server = createAdaptorServer({ fetch, hostname: o.host, port: o.port }) as HttpServer;
  applyNodeTimeouts(server, o.timeouts);
  const sockets = socketSet();
  serveUpgrades(server, fetch, "http", sockets);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => { server.off("error", reject); resolve(); });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: urlOf(o.host, port),
    port,
    close: (force = false) =>
      new Promise<void>((resolve) => {
        sockets.closeAll(force);
        server.close(() => resolve());
        if (force) server.closeAllConnections();
        else server.closeIdleConnections();
      }),
  };
}
