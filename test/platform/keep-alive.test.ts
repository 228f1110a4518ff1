// Keep-alive connections (issue 17): all three listeners used to close an
// idle connection after about 12 s (Bun.serve's 10 s, Node's 5 s), and a
// client reusing it at that moment got ECONNRESET. With the default
// server.http_idle_timeout (2m, the real stores' value) a connection idle
// for 30 s still answers. The 30 s wait is what the test is about: it runs
// once, for the three listeners at the same time.
import { describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { Connection } from "../helpers/connection.ts";
import { useServer } from "../helpers/server.ts";

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
