// HTTPS with optional client certificates, the five client_auth_type modes
// of dskit's http_tls_config (docs/reference/log-and-metrics-store-behaviour.md
// §5). A node:tls server does the handshake and hands each socket to an HTTP
// server running the fetch handler: unlike Bun.serve it exposes whether the
// peer's certificate was given and verified, and it behaves the same on Bun,
// Node and Deno (docs/design.md, "mTLS peer certificates").
import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createServer as createTlsServer, type TLSSocket } from "node:tls";
import type { FetchHandler, ListenOptions, Listener } from "./listen.ts";
import { applyNodeTimeouts, inactivityTimeout, urlOf } from "./listen.ts";
import { runtime } from "./runtime.ts";
import { socketSet } from "./websocket.ts";
import { serveUpgrades } from "./websocket-node.ts";

export type ClientAuthType = "" | "NoClientCert" | "RequestClientCert" | "RequireAnyClientCert" | "VerifyClientCertIfGiven" | "RequireAndVerifyClientCert";

export interface TlsConfig {
  cert_file: string;
  key_file: string;
  client_auth_type: ClientAuthType;
  client_ca_file: string;
  client_ca: string;
}

export const tlsEnabled = (tls: TlsConfig) => tls.cert_file !== "" && tls.key_file !== "";

/** whether a connection may go on to HTTP, by mode (the handshake has already enforced RequireAndVerify) */
export function admits(mode: ClientAuthType, socket: Pick<TLSSocket, "authorized" | "getPeerCertificate">): boolean {
  const given = Object.keys(socket.getPeerCertificate() ?? {}).length > 0;
  switch (mode) {
    case "RequireAnyClientCert": return given;
    case "VerifyClientCertIfGiven": return !given || socket.authorized;
    case "RequireAndVerifyClientCert": return given && socket.authorized;
    default: return true;
  }
}

export async function listenTls(fetch: FetchHandler, o: ListenOptions, tls: TlsConfig): Promise<Listener> {
  const { getRequestListener } = await import("@hono/node-server");
  const read = (file: string, what: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new Error(`cannot read the TLS ${what} ${file}: ${(err as Error).message}`);
    }
  };
  const mode = tls.client_auth_type;
  const ca = [tls.client_ca_file ? read(tls.client_ca_file, "client CA file").toString() : "", tls.client_ca].filter(Boolean).join("\n");
  const asks = mode !== "" && mode !== "NoClientCert";
  // on Bun and Deno the global Response must stay the runtime's own: their
  // plain listeners (Bun.serve, Deno.serve) in the same process need it
  const http = createHttpServer(getRequestListener(fetch, { overrideGlobalObjects: runtime === "node" }));
  applyNodeTimeouts(http, o.timeouts);
  const sockets = socketSet();
  serveUpgrades(http, fetch, "https", sockets);
  const server = createTlsServer(
    {
      cert: read(tls.cert_file, "certificate"),
      key: read(tls.key_file, "key"),
      ...(ca ? { ca } : {}),
      requestCert: asks,
      // only the strictest mode fails the handshake itself; the others decide per connection
      rejectUnauthorized: mode === "RequireAndVerifyClientCert",
    },
    (socket) => {
      if (!admits(mode, socket)) {
        socket.destroy();
        return;
      }
      // Bun's and Deno's node:http apply no timeout to a socket handed over
      // so: one inactivity timeout, as Bun.serve's (docs/choices.md)
      const idle = runtime !== "node" && o.timeouts ? inactivityTimeout(o.timeouts) : 0;
      if (idle > 0) socket.setTimeout(idle, () => socket.destroy());
      http.emit("connection", socket);
    },
  );
  server.on("tlsClientError", () => {}); // a refused client is not the server's error
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(o.port, o.host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: urlOf(o.host, port, "https"),
    port,
    close: (force = false) =>
      new Promise<void>((resolve) => {
        sockets.closeAll(force);
        server.close(() => resolve());
        http.close();
        if (force) http.closeAllConnections();
        else http.closeIdleConnections();
      }),
  };
}

/** a client certificate as the HTTPS listener saw it */
export interface PeerCertificate {
  /** the certificate chains to the configured client CA */
  authorized: boolean;
  subject: Record<string, string | string[]>;
  /** node's form: "DNS:a.example, URI:spiffe://site/x, IP Address:10.0.0.1" */
  subjectaltname: string;
}

/**
 * The client certificate of the request whose bindings Hono received as
 * c.env (listenTls serves through @hono/node-server, which passes the
 * incoming message); undefined on a plain listener or without a certificate.
 */
export function peerCertificateOf(env: unknown): PeerCertificate | undefined {
  const socket = (env as { incoming?: { socket?: Partial<TLSSocket> } } | undefined)?.incoming?.socket;
  if (!socket || typeof socket.getPeerCertificate !== "function") return undefined;
  const cert = socket.getPeerCertificate();
  if (!cert || Object.keys(cert).length === 0) return undefined;
  return {
    authorized: socket.authorized === true,
    subject: (cert.subject ?? {}) as unknown as Record<string, string | string[]>,
    subjectaltname: cert.subjectaltname ?? "",
  };
}
