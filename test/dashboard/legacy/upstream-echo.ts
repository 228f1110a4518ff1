// A stand-in upstream for data source tests: records every request it gets
// (method, path with query, headers, body) and answers what the test asks
// for, by path: .../echo reflects the request's headers back in the body (as
// a careless or hostile upstream would), .../status/<n> answers that status,
// anything else a JSON {ok: true} with extra headers that must not cross a
// proxy (Set-Cookie, hop-by-hop ones).
import { createServer, request, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Upstream {
  url: string;
  received: Received[];
  /** the answer for the next requests to a path (a JSON body) */
  answer(path: string, status: number, body: unknown): void;
  /** the answer for the next requests to a path: a body as it is, with this content type (none when null) */
  answerRaw(path: string, status: number, contentType: string | null, body: string): void;
  close(): Promise<void>;
}

export async function startUpstream(): Promise<Upstream> {
  const received: Received[] = [];
  const answers = new Map<string, { status: number; body: unknown; raw?: { contentType: string | null } }>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const r = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: Buffer.concat(chunks).toString("utf8") };
      received.push(r);
      const path = r.url.split("?")[0]!;
      const canned = answers.get(path);
      if (canned?.raw) {
        res.writeHead(canned.status, canned.raw.contentType === null ? {} : { "Content-Type": canned.raw.contentType });
        res.end(String(canned.body));
        return;
      }
      if (canned) {
        res.writeHead(canned.status, { "Content-Type": "application/json" });
        res.end(JSON.stringify(canned.body));
        return;
      }
      if (path.endsWith("/echo")) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ headers: r.headers, body: r.body }));
        return;
      }
      const status = /\/status\/(\d{3})$/.exec(path)?.[1];
      res.writeHead(status ? Number(status) : 202, {
        "Content-Type": "application/json; charset=utf-8",
        "Set-Cookie": "upstream_session=x; Path=/",
        Connection: "keep-alive, X-Upstream-Hop",
        "X-Upstream-Hop": "must not pass",
        "Keep-Alive": "timeout=5",
        "X-Upstream-Kept": "yes",
      });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: (path, status, body) => void answers.set(path, { status, body }),
    answerRaw: (path, status, contentType, body) => void answers.set(path, { status, body, raw: { contentType } }),
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

/** a port nothing listens on (bound, then released) */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A request with headers fetch would refuse to send (Connection, Keep-Alive,
 * TE, Upgrade, ...), as an old client or a misbehaving proxy sends them.
 */
export function rawRequest(
  url: string, options: { method?: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}
