// Raw-socket HTTP: bytes no HTTP client would send (malformed chunked
// encoding, short bodies, bad request lines, huge headers). Each exchange
// half-closes after writing, as a client that has nothing more to send, and
// reads until the server closes or the deadline passes.
import { connect } from "node:net";

export type RawOutcome =
  | { kind: "answered"; status: number; head: string }
  | { kind: "closed"; detail: string }
  | { kind: "reset" | "hang"; detail: string };

export function rawExchange(url: string, bytes: Uint8Array | string, deadlineMs: number, options: { halfClose?: boolean } = {}): Promise<RawOutcome> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let settled = false;
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ""), port: Number(port) });
    const finish = (o: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(o);
    };
    const answered = (): RawOutcome | undefined => {
      const text = Buffer.concat(chunks).toString("latin1");
      const m = /^HTTP\/\d\.\d (\d{3})/.exec(text);
      return m ? { kind: "answered", status: Number(m[1]), head: text.split("\r\n")[0]! } : undefined;
    };
    const timer = setTimeout(() => finish(answered() ?? { kind: "hang", detail: `no answer within ${deadlineMs} ms` }), deadlineMs);
    socket.on("connect", () => {
      socket.write(typeof bytes === "string" ? Buffer.from(bytes, "latin1") : bytes);
      if (options.halfClose ?? true) socket.end();
    });
    socket.on("data", (d: Buffer) => {
      chunks.push(d);
      // one full response head is enough: do not wait for keep-alive to time out
      if (Buffer.concat(chunks).includes("\r\n\r\n")) {
        const a = answered();
        if (a) finish(a);
      }
    });
    socket.on("error", (err: NodeJS.ErrnoException) => finish(answered() ?? { kind: err.code === "ECONNRESET" || err.code === "EPIPE" ? "reset" : "closed", detail: `${err.code ?? ""} ${err.message}` }));
    socket.on("close", () => finish(answered() ?? { kind: "closed", detail: "closed without an answer" }));
  });
}
