// Bodies that end early (issue 16 #20): a body shorter than its
// Content-Length, and a malformed chunked body, sent over a raw TCP socket to
// each listener. The runtime refuses them; the server logs one warning naming
// the cause (never `level=error msg="unhandled error" err=""`) and keeps serving.
import { connect } from "node:net";
import { describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { useServer } from "../helpers/server.ts";

/** writes `text`, closes the sending side, and resolves with whatever came back */
function rawRequest(base: string, text: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.write(text);
      socket.end();
    });
    let answer = "";
    socket.setTimeout(30_000, () => socket.destroy());
    socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
    socket.on("close", () => resolve(answer));
    socket.on("error", () => resolve(answer));
  });
}

describe("incomplete request bodies", () => {
  const ctx = useServer();
  const headers = "Host: localhost\r\nX-Scope-OrgID: t\r\nContent-Type: application/json\r\n";
  const short = (path: string) => `POST ${path} HTTP/1.1\r\n${headers}Content-Length: 100\r\n\r\n{"streams"`;
  const badChunks = (path: string) => `POST ${path} HTTP/1.1\r\n${headers}Transfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n`;
  const targets = () => [
    ["dashboard", `${ctx.server.urls.dashboard}`, "/login"],
    ["logs", `${ctx.server.urls.logs}`, "/svc/api/v1/push"],
    ["metrics", `${ctx.server.urls.metrics}`, "/api/v1/push"],
  ] as const;

  it("a body shorter than Content-Length or malformed chunks -> no unhandled error, one warning with the cause, still serving", async () => {
    for (const [name, base, path] of targets()) {
      for (const request of [short(path), badChunks(path)]) {
        const answer = await rawRequest(base, request);
        // either no answer (the client is gone) or a 4xx: never a 5xx
        expect(answer, `${name} ${JSON.stringify(request)}`).not.toMatch(/^HTTP\/1\.1 5/);
      }
    }
    await eventually(() => ctx.server.logs.filter((l) => l.msg === "request body incomplete: the client closed the connection"), (warned) => {
      expect(warned.length).toBeGreaterThanOrEqual(3);
      for (const w of warned) {
        expect(w.level).toBe("warn");
        expect(String(w.cause)).not.toBe("");
      }
      expect(new Set(warned.map((w) => w.service))).toEqual(new Set(["dashboard", "logs", "metrics"]));
    });
    const errors = ctx.server.logs.filter((l) => l.level === "error");
    expect(errors).toEqual([]);
    const signal = AbortSignal.timeout(30_000);
    expect((await fetch(`${ctx.server.urls.dashboard}/api/health`, { signal })).status).toBe(200);
    expect((await fetch(`${ctx.server.urls.logs}/ready`, { signal })).status).toBe(200);
    expect((await fetch(`${ctx.server.urls.metrics}/ready`, { signal })).status).toBe(200);
  }, 120_000);
});
