// WebSockets on every listener, behind one helper the routes call: a route
// validates the handshake request like any other (credentials, parameters),
// then `upgradeWebSocket(request, handlers)` upgrades it and returns the
// Response to answer with. Each listener offers the upgrade of the requests
// that ask for one (listen.ts, tls.ts): Bun.serve's server.upgrade with its
// `websocket` handlers, Deno.upgradeWebSocket, and on node:http (Node's plain
// listeners, the HTTPS listeners everywhere) the `ws` package on the server's
// 'upgrade' event (websocket-node.ts). A listener closes its sockets when it
// stops (1001, going away).

/** the open socket, as a route writes to it */
export interface WebSocketPeer {
  send(text: string): void;
  /** closes with a code and a reason (at most 123 bytes) */
  close(code: number, reason: string): void;
  /** bytes sent and not yet written to the connection (a slow client) */
  buffered(): number;
  /** drops the connection without the closing handshake */
  terminate(): void;
}

export interface WebSocketHandlers {
  /** the handshake is done: the route may send */
  open(peer: WebSocketPeer): void;
  /** the socket closed: the client went, or the server closed it */
  close(code: number, reason: string): void;
}

/** upgrades the request it was offered for; undefined when the handshake failed */
export type Upgrader = (handlers: WebSocketHandlers) => Response | undefined;

/** 1001: the listener is stopping */
export const GOING_AWAY = 1001;

const offers = new WeakMap<Request, Upgrader>();

/** whether a request asks for an upgrade: listeners offer one only then */
export const asksUpgrade = (request: Request) => request.headers.get("upgrade") !== null;

/** a listener: the requests it received that may be upgraded */
export function offerUpgrade(request: Request, upgrader: Upgrader): void {
  offers.set(request, upgrader);
}

/** a request made from another in-process (the log store's auth proxy) is upgraded as the one it came from */
export function carryUpgrade(from: Request, to: Request): void {
  const upgrader = offers.get(from);
  if (upgrader) offers.set(to, upgrader);
}

/**
 * Upgrades a request that passed handshakeProblem: the Response the handler
 * returns (the listener has taken the connection); undefined when this
 * request cannot be upgraded (it did not come from a listener).
 */
export function upgradeWebSocket(request: Request, handlers: WebSocketHandlers): Response | undefined {
  const upgrader = offers.get(request);
  offers.delete(request);
  return upgrader?.(handlers);
}

const STATUS_TEXT: Record<number, string> = { 400: "Bad Request", 405: "Method Not Allowed" };

/** a comma-separated header holds the token (any case) */
function hasToken(headers: Headers, name: string, token: string): boolean {
  return (headers.get(name) ?? "").split(",").some((t) => t.trim().toLowerCase() === token);
}

/**
 * Why a request is not a WebSocket handshake, in the checks' order and with
 * the status gorilla/websocket's Upgrader answers (its body is the status
 * text; `reason` is what it logs); undefined for a good one.
 */
export function handshakeProblem(request: Request): { status: number; body: string; reason: string } | undefined {
  const fail = (status: number, reason: string) => ({ status, body: STATUS_TEXT[status]!, reason });
  const h = request.headers;
  const notWebSocket = "websocket: the client is not using the websocket protocol: ";
  if (!hasToken(h, "connection", "upgrade")) return fail(400, `${notWebSocket}'upgrade' token not found in 'Connection' header`);
  if (!hasToken(h, "upgrade", "websocket")) return fail(400, `${notWebSocket}'websocket' token not found in 'Upgrade' header`);
  if (request.method !== "GET") return fail(405, `${notWebSocket}request method is not GET`);
  if (!hasToken(h, "sec-websocket-version", "13")) return fail(400, "websocket: unsupported version: 13 not found in 'Sec-Websocket-Version' header");
  const key = h.get("sec-websocket-key") ?? "";
  if (!/^[A-Za-z0-9+/]{22}==$/.test(key)) return fail(400, "websocket: not a websocket handshake: 'Sec-WebSocket-Key' header must be Base64 encoded value of 16-byte in length");
  return undefined;
}

/** a listener's open sockets, closed when it stops */
export interface SocketSet {
  add(peer: WebSocketPeer): void;
  delete(peer: WebSocketPeer): void;
  /** closes every socket (1001); with force, drops their connections */
  closeAll(force?: boolean): void;
  readonly size: number;
}

export function socketSet(): SocketSet {
  const open = new Set<WebSocketPeer>();
  return {
    add: (peer) => void open.add(peer),
    delete: (peer) => void open.delete(peer),
    closeAll(force = false) {
      for (const peer of [...open]) {
        if (force) peer.terminate();
        else peer.close(GOING_AWAY, "server shutting down");
      }
      if (force) open.clear();
    },
    get size() {
      return open.size;
    },
  };
}

/**
 * A peer's handlers run once each, whatever the runtime reports (a close
 * before the open, a close reported twice); the set forgets it on close.
 */
export function guarded(handlers: WebSocketHandlers, sockets: SocketSet) {
  let peer: WebSocketPeer | undefined;
  let closed = false;
  return {
    open(p: WebSocketPeer) {
      if (closed || peer) return;
      peer = p;
      sockets.add(p);
      handlers.open(p);
    },
    close(code: number, reason: string) {
      if (closed) return;
      closed = true;
      if (peer) sockets.delete(peer);
      handlers.close(code, reason);
    },
  };
}
export type GuardedHandlers = ReturnType<typeof guarded>;

// ---- Bun.serve ----

/** what Bun.serve's server.upgrade attaches to the socket */
interface BunSocketData {
  handlers: GuardedHandlers;
}

interface BunServerWebSocket {
  data: BunSocketData;
  send(data: string): number;
  close(code?: number, reason?: string): void;
  getBufferedAmount(): number;
  terminate(): void;
}

interface BunUpgrading {
  upgrade(request: Request, options: { data: BunSocketData }): boolean;
}

/** Bun.serve's `websocket` option: every socket's events go to the handlers its upgrade attached */
export const bunWebSocket = {
  // no traffic for this long closes a socket; Bun pings an idle one first (sendPings)
  idleTimeout: 120,
  // a tail's client sends nothing: a large message is refused (as websocket-node.ts's)
  maxPayloadLength: 64 * 1024,
  open(ws: BunServerWebSocket) {
    ws.data.handlers.open({
      send: (text) => void ws.send(text),
      close: (code, reason) => ws.close(code, reason),
      buffered: () => ws.getBufferedAmount(),
      terminate: () => ws.terminate(),
    });
  },
  message() {},
  close(ws: BunServerWebSocket, code: number, reason: string) {
    ws.data.handlers.close(code, reason);
  },
};

/** Bun.serve's fetch: offers the upgrade of a request that asks for one */
export function offerBun(request: Request, server: unknown, sockets: SocketSet): void {
  offerUpgrade(request, (handlers) => {
    const ok = (server as BunUpgrading).upgrade(request, { data: { handlers: guarded(handlers, sockets) } });
    // Bun answers the handshake itself: what the handler returns is not sent
    return ok ? new Response(null) : undefined;
  });
}

// ---- Deno.serve ----

interface DenoUpgrade {
  upgradeWebSocket(request: Request, options?: { idleTimeout?: number }): { socket: WebSocket; response: Response };
}

/** Deno.serve's handler: offers the upgrade of a request that asks for one */
export function offerDeno(request: Request, sockets: SocketSet): void {
  offerUpgrade(request, (handlers) => {
    const deno = (globalThis as unknown as { Deno: DenoUpgrade }).Deno;
    let upgraded: { socket: WebSocket; response: Response };
    try {
      // Deno pings a socket idle for half this long and closes it without a pong (seconds)
      upgraded = deno.upgradeWebSocket(request, { idleTimeout: 60 });
    } catch {
      return undefined;
    }
    const { socket, response } = upgraded;
    const h = guarded(handlers, sockets);
    socket.onopen = () =>
      h.open({
        send: (text) => socket.readyState === 1 && socket.send(text),
        close: (code, reason) => socket.close(code, reason),
        buffered: () => socket.bufferedAmount,
        // Deno's WebSocket has no way to drop the connection: its server's shutdown does
        terminate: () => socket.close(GOING_AWAY, "server shutting down"),
      });
    socket.onclose = (e) => h.close(e.code, e.reason);
    socket.onerror = () => {};
    return response;
  });
}
