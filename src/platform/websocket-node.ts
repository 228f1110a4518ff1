// WebSockets on a node:http server (Node's plain listeners; the HTTPS
// listeners on every runtime): a request with an Upgrade header arrives on
// the server's 'upgrade' event, not as a request, with the connection handed
// over. It goes through the fetch handler like any request, with the upgrade
// offered (websocket.ts); a handler that upgrades gets the socket from `ws`,
// one that answers otherwise (401, 400...) has its answer written to the
// connection, which then closes.
import { STATUS_CODES, type IncomingMessage, type Server as HttpServer } from "node:http";
import type { Duplex } from "node:stream";
import type { WebSocketServer } from "ws";
import { guarded, offerUpgrade, type SocketSet } from "./websocket.ts";

type FetchWithEnv = (request: Request, env?: unknown) => Response | Promise<Response>;

/** a socket that answered no ping for this long is dropped (a peer gone without closing) */
const PING_EVERY_MS = 30_000;
/** the largest message a client may send (a tail client sends none) */
const MAX_PAYLOAD = 64 * 1024;

let wsServer: Promise<WebSocketServer> | undefined;
/** `ws` is loaded on the first upgrade: a start loads nothing more */
const webSocketServer = () => (wsServer ??= import("ws").then(({ WebSocketServer }) => new WebSocketServer({ noServer: true, maxPayload: MAX_PAYLOAD })));

/** the Request of an upgrade request (no body: the connection is the socket's from now on) */
function requestOf(req: IncomingMessage, scheme: string): Request {
  const headers = new Headers();
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    try {
      headers.append(req.rawHeaders[i]!, req.rawHeaders[i + 1]!);
    } catch {
      // a header the Fetch API refuses is left out
    }
  }
  return new Request(`${scheme}://${req.headers.host ?? "localhost"}${req.url ?? "/"}`, { method: req.method ?? "GET", headers });
}

/** an answer written to a connection that was not upgraded, which then closes */
async function writeResponse(socket: Duplex, res: Response, method: string | undefined): Promise<void> {
  const body = method === "HEAD" ? new Uint8Array() : new Uint8Array(await res.arrayBuffer());
  let head = `HTTP/1.1 ${res.status} ${STATUS_CODES[res.status] ?? ""}\r\n`;
  res.headers.forEach((value, name) => {
    if (name === "content-length" || name === "connection" || name === "transfer-encoding" || name === "set-cookie") return;
    head += `${name}: ${value}\r\n`;
  });
  for (const cookie of res.headers.getSetCookie()) head += `set-cookie: ${cookie}\r\n`;
  head += `content-length: ${body.length}\r\nconnection: close\r\n\r\n`;
  socket.end(Buffer.concat([Buffer.from(head, "latin1"), body]));
}

/** a request with a body that came as an upgrade: its body is not read here */
const hasBody = (req: IncomingMessage) => Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;

/**
 * Serves the upgrade requests of a node:http server through `fetch`. `env` is
 * what the fetch handler gets as its bindings (@hono/node-server's shape, so
 * the peer certificate is found the same way).
 */
export function serveUpgrades(server: HttpServer, fetch: FetchWithEnv, scheme: "http" | "https", sockets: SocketSet): void {
  server.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on("error", () => socket.destroy());
    // an Upgrade other than websocket (h2c from curl --http2) is answered as a plain request;
    // its body would be on the socket, unread: such a request with a body is refused
    if (hasBody(req)) {
      void writeResponse(socket, new Response("bad request: an Upgrade request must not have a body\n", { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } }), req.method);
      return;
    }
    const request = requestOf(req, scheme);
    let upgraded = false;
    offerUpgrade(request, (handlers) => {
      upgraded = true;
      const h = guarded(handlers, sockets);
      // a handshake `ws` refuses never opens: the handlers still hear of its end
      let opened = false;
      socket.once("close", () => opened || h.close(1006, ""));
      void webSocketServer().then((wss) =>
        wss.handleUpgrade(req, socket, head, (ws) => {
          opened = true;
          let alive = true;
          ws.on("pong", () => (alive = true));
          const ping = setInterval(() => {
            if (!alive) return ws.terminate();
            alive = false;
            ws.ping();
          }, PING_EVERY_MS);
          ping.unref?.();
          ws.on("close", (code, reason) => {
            clearInterval(ping);
            h.close(code, reason.toString());
          });
          ws.on("error", () => {});
          h.open({
            send: (text) => ws.readyState === ws.OPEN && ws.send(text),
            close: (code, reason) => ws.close(code, reason),
            buffered: () => ws.bufferedAmount,
            terminate: () => ws.terminate(),
          });
        }),
      );
      // the connection is the socket's: what the handler returns is not sent
      return new Response(null);
    });
    Promise.resolve(fetch(request, { incoming: req, outgoing: undefined })).then(
      (res) => (upgraded ? undefined : writeResponse(socket, res, req.method)),
      () => socket.destroy(),
    ).catch(() => socket.destroy());
  });
}
