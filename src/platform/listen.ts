// Serving a fetch handler on each runtime: Bun.serve, Deno.serve, or
// node:http through @hono/node-server. Everything above this file speaks
// Web-standard Request/Response only.
import type { AddressInfo } from "node:net";
import { runtime } from "./runtime.ts";
import { listenTls, tlsEnabled, type TlsConfig } from "./tls.ts";

export type FetchHandler = (request: Request) => Response | Promise<Response>;

export interface ListenOptions {
  host: string;
  port: number;
  /** the runtime's own body cap; the apps enforce the configured limit themselves */
  maxRequestBodySize?: number;
  /** HTTPS (and client certificates) when its cert_file and key_file are set */
  tls?: TlsConfig | undefined;
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
  const server = Bun.serve({
    hostname: o.host,
    port: o.port,
    fetch,
    development: false,
    maxRequestBodySize: o.maxRequestBodySize ?? 1024 ** 3,
  });
  const port = server.port ?? o.port;
  return {
    url: urlOf(o.host, port),
    port,
    close: async (force = false) => { await server.stop(force); },
  };
}

interface DenoServer { addr: { port: number }; shutdown(): Promise<void>; finished: Promise<void> }
interface DenoGlobal {
  serve(options: { hostname: string; port: number; onListen?: () => void }, handler: FetchHandler): DenoServer;
}

async function listenDeno(fetch: FetchHandler, o: ListenOptions): Promise<Listener> {
  const deno = (globalThis as unknown as { Deno: DenoGlobal }).Deno;
  const server = deno.serve({ hostname: o.host, port: o.port, onListen: () => {} }, fetch);
  let shutdown: Promise<void> | undefined;
  return {
    url: urlOf(o.host, server.addr.port),
    port: server.addr.port,
    // Deno's shutdown is graceful and has no forced variant: a forced close
    // stops waiting for it (the process is about to exit)
    close: async (force = false) => {
      shutdown ??= server.shutdown();
      await (force ? Promise.race([shutdown, new Promise((r) => setTimeout(r, 100))]) : shutdown);
    },
  };
}

async function listenNode(fetch: FetchHandler, o: ListenOptions): Promise<Listener> {
  const { createAdaptorServer } = await import("@hono/node-server");
  const server = createAdaptorServer({ fetch, hostname: o.host, port: o.port }) as import("node:http").Server;
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
        server.close(() => resolve());
        if (force) server.closeAllConnections();
        else server.closeIdleConnections();
      }),
  };
}
