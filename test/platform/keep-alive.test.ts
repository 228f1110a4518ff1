// Keep-alive connections (issue 17): all three listeners used to close an
// idle connection after about 12 s (Bun.serve's 10 s, Node's 5 s), and a
// client reusing it at that moment got ECONNRESET. With the default
// server.http_idle_timeout (2m, the real stores' value) a connection idle
// for 30 s still answers. The 30 s wait is what the test is about: it runs
// once, for the three listeners at the same time.
import { connect, type Socket } from "node:net";
import { describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { useServer } from "../helpers/server.ts";

/** one HTTP/1.1 connection held open, requests sent on it one after the other */
class Connection {
  private buffer = Buffer.alloc(0);
  private waiter: (() => void) | undefined;
  closed: string | undefined;
  private constructor(private readonly socket: Socket, private readonly host: string) {
    socket.on("data", (d: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, d]);
      this.waiter?.();
    });
    socket.on("error", (err: NodeJS.ErrnoException) => { this.closed ??= err.code ?? err.message; this.waiter?.(); });
    socket.on("close", () => { this.closed ??= "closed by the server"; this.waiter?.(); });
  }

  static open(url: string): Promise<Connection> {
    const { hostname, port, host } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = connect(Number(port), hostname, () => resolve(new Connection(socket, host)));
      socket.once("error", reject);
    });
  }

  /** sends GET path and reads one whole response (Content-Length or chunked) */
  async get(path: string, timeoutMs = 20_000): Promise<{ status: number; body: string }> {
    if (this.closed) throw new Error(`connection gone before the request: ${this.closed}`);
    this.socket.write(`GET ${path} HTTP/1.1\r\nHost: ${this.host}\r\nConnection: keep-alive\r\n\r\n`);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = this.take();
      if (response) return response;
      if (this.closed) throw new Error(`connection gone before the answer: ${this.closed}`);
      if (Date.now() > deadline) throw new Error(`no answer within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.waiter = () => { clearTimeout(timer); resolve(); };
      });
    }
  }

  private take(): { status: number; body: string } | undefined {
    const end = this.buffer.indexOf("\r\n\r\n");
    if (end < 0) return undefined;
    const head = this.buffer.subarray(0, end).toString("latin1");
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
    const rest = this.buffer.subarray(end + 4);
    const length = /^content-length:\s*(\d+)/im.exec(head);
    let bodyEnd: number;
    let body: string;
    if (length) {
      bodyEnd = Number(length[1]);
      if (rest.length < bodyEnd) return undefined;
      body = rest.subarray(0, bodyEnd).toString("utf8");
    } else if (/^transfer-encoding:\s*chunked/im.test(head)) {
      const last = rest.indexOf("0\r\n\r\n");
      if (last < 0) return undefined;
      bodyEnd = last + 5;
      body = rest.subarray(0, last).toString("utf8").replace(/(^|\r\n)[0-9a-f]+\r\n/gi, "");
    } else {
      throw new Error(`a response without a length: ${head}`);
    }
    this.buffer = rest.subarray(bodyEnd);
    return { status, body };
  }

  close() {
    this.socket.destroy();
  }
}

/** the three listeners and a cheap request each */
function targetsOf(urls: { dashboard: string; logs?: string; metrics?: string }): Array<[string, string]> {
  return [[urls.dashboard, "/api/health"], [urls.logs!, "/ready"], [urls.metrics!, "/ready"]];
}

describe("idle keep-alive connections", () => {
  const t = useServer();

  it("a connection reused after 30 s idle is still open on every listener and answers", async () => {
    const targets = targetsOf(t.server.urls);
    const connections = await Promise.all(targets.map(([url]) => Connection.open(url)));
    try {
      for (const [i, c] of connections.entries()) expect((await c.get(targets[i]![1])).status).toBe(200);
      await new Promise((r) => setTimeout(r, 30_000));
      expect(connections.map((c) => c.closed)).toEqual([undefined, undefined, undefined]);
      for (const [i, c] of connections.entries()) expect((await c.get(targets[i]![1])).status).toBe(200);
    } finally {
      for (const c of connections) c.close();
    }
  }, 120_000);
});

describe("a configured idle timeout", () => {
  // on Bun one timer serves both: the longer of the idle and write timeouts
  const t = useServer({ "server.http_idle_timeout": "1s", "server.http_write_timeout": "1s" });

  it("server.http_idle_timeout closes an idle connection on every listener", async () => {
    const targets = targetsOf(t.server.urls);
    const connections = await Promise.all(targets.map(([url]) => Connection.open(url)));
    try {
      for (const [i, c] of connections.entries()) expect((await c.get(targets[i]![1])).status).toBe(200);
      // Bun checks its timeouts every few seconds: a generous deadline, polled
      await eventually(() => connections.map((c) => c.closed), (closed) => expect(closed).toEqual(["closed by the server", "closed by the server", "closed by the server"]), 60_000);
    } finally {
      for (const c of connections) c.close();
    }
  }, 120_000);
});
