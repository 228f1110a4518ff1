// One HTTP/1.1 connection held open by hand, requests sent on it one after
// the other: proves a keep-alive connection is reused (no client pool can
// silently open a new one) and says how it ended when the server closed it.
import { connect, type Socket } from "node:net";
import { connect as connectTls } from "node:tls";

export class Connection {
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

  /** http:// or https:// (any server certificate accepted) */
  static open(url: string): Promise<Connection> {
    const { hostname, port, host, protocol } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket: Socket = protocol === "https:"
        ? connectTls({ host: hostname, port: Number(port), rejectUnauthorized: false }, () => resolve(new Connection(socket, host)))
        : connect(Number(port), hostname, () => resolve(new Connection(socket, host)));
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
