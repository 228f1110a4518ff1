// Keep-alive connections (issue 17): all three listeners used to close an
// idle connection after about 12 s (Bun.serve's 10 s, Node's 5 s), and a
// client reusing it at that moment got ECONNRESET. With the default
// server.http_idle_timeout (2m, the real stores' value) a connection idle
// for 30 s still answers. The 30 s wait is what the test is about: it runs
// once, for the three listeners at the same time. Bun's 10 s also reset any
// request slower than that: a 20 s response now arrives.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { createCa, createServerCert } from "../../src/lib/pki.ts";
import { listen } from "../../src/platform/listen.ts";
import { eventually } from "../helpers/eventually.ts";
import { Connection } from "../helpers/connection.ts";
import { startTestServer, useServer, type TestServer } from "../helpers/server.ts";

/** the three listeners and a cheap request each */
function targetsOf(urls: { dashboard: string; logs?: string; metrics?: string }): Array<[string, string]> {
  return [[urls.dashboard, "/api/health"], [urls.logs!, "/ready"], [urls.metrics!, "/ready"]];
}

/** a second server whose stores listen with HTTPS (node:http behind node:tls on every runtime) */
function useTlsServer(flags: Record<string, unknown> = {}): { server: TestServer } {
  const ctx = {} as { server: TestServer };
  const dir = mkdtempSync(join(tmpdir(), "outpost-keepalive-"));
  beforeAll(async () => {
    const pair = createServerCert(createCa(), ["localhost", "127.0.0.1"]);
    writeFileSync(join(dir, "cert.pem"), pair.cert);
    writeFileSync(join(dir, "key.pem"), pair.key);
    ctx.server = await startTestServer({ "server.http_tls_config.cert_file": join(dir, "cert.pem"), "server.http_tls_config.key_file": join(dir, "key.pem"), ...flags });
  });
  afterAll(async () => {
    await ctx.server.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  return ctx;
}

/** the HTTPS store listeners of a TLS server */
const tlsTargetsOf = (urls: { logs?: string; metrics?: string }): Array<[string, string]> => [[urls.logs!, "/ready"], [urls.metrics!, "/ready"]];

describe("idle keep-alive connections", () => {
  const t = useServer();
  const secure = useTlsServer();

  it("a connection reused after 30 s idle is still open on every listener (and the HTTPS ones) and answers", async () => {
    const targets = [...targetsOf(t.server.urls), ...tlsTargetsOf(secure.server.urls)];
    expect(targets.map(([url]) => new URL(url).protocol)).toEqual(["http:", "http:", "http:", "https:", "https:"]);
    const connections = await Promise.all(targets.map(([url]) => Connection.open(url)));
    try {
      for (const [i, c] of connections.entries()) expect((await c.get(targets[i]![1])).status).toBe(200);
      await new Promise((r) => setTimeout(r, 30_000));
      expect(connections.map((c) => c.closed)).toEqual(targets.map(() => undefined));
      for (const [i, c] of connections.entries()) expect((await c.get(targets[i]![1])).status).toBe(200);
    } finally {
      for (const c of connections) c.close();
    }
  }, 120_000);
});

describe("a configured idle timeout", () => {
  // on Bun one timer serves both: the longer of the idle and write timeouts
  const flags = { "server.http_idle_timeout": "1s", "server.http_write_timeout": "1s" };
  const t = useServer(flags);
  const secure = useTlsServer(flags);

  it("server.http_idle_timeout closes an idle connection on every listener (and the HTTPS ones)", async () => {
    const targets = [...targetsOf(t.server.urls), ...tlsTargetsOf(secure.server.urls)];
    const connections = await Promise.all(targets.map(([url]) => Connection.open(url)));
    try {
      for (const [i, c] of connections.entries()) expect((await c.get(targets[i]![1])).status).toBe(200);
      // Bun checks its timeouts every few seconds: a generous deadline, polled
      await eventually(() => connections.map((c) => c.closed !== undefined), (closed) => expect(closed).toEqual(targets.map(() => true)), 60_000);
    } finally {
      for (const c of connections) c.close();
    }
  }, 120_000);
});

describe("a slow response", () => {
  it("a request answered after 20 s silence is not cut with the default timeouts (Bun reset it after ~10 s)", async () => {
    const { server } = loadConfig({});
    const timeouts = { idle: server.http_idle_timeout, read: server.http_read_timeout, write: server.http_write_timeout };
    const listener = await listen(async () => {
      await new Promise((r) => setTimeout(r, 20_000)); // the slow query the test is about
      return new Response("finished");
    }, { host: "127.0.0.1", port: 0, timeouts });
    try {
      const res = await fetch(`${listener.url}/slow`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe("finished");
    } finally {
      await listener.close(true);
    }
  }, 120_000);
});

describe("timeouts the runtime cannot apply", () => {
  it("on Bun an idle timeout over 255 s is logged as capped; elsewhere nothing is said", async () => {
    const server = await startTestServer({ "server.http_idle_timeout": "5m", "server.http_write_timeout": "5m" });
    try {
      const warned = server.logs.some((l) => l.level === "warn" && String(l.msg).includes("at most 255s"));
      expect(warned).toBe(typeof (globalThis as { Bun?: unknown }).Bun !== "undefined");
    } finally {
      await server.stop();
    }
  }, 120_000);
});
