// GET /loki/api/v1/tail (and /svc/api/v1/tail): Loki's live tail over a
// real WebSocket client (the `ws` package, Bun's own under bun test): the
// history since start, then entries as they are pushed, the query's
// filters, Loki's refusals on the handshake request (400, 401, 403), the
// socket closed when the server stops, and the HTTPS listener.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import bcrypt from "bcryptjs";
import { afterAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createCa, createServerCert } from "../../src/lib/pki.ts";
import { startTestServer, useServer } from "../helpers/server.ts";
import { ADMIN_TOKEN, adminApi, basic } from "../store-access/helpers.ts";
import { logClient, type StreamIn } from "./helpers.ts";

const nowNs = (offsetMs = 0) => String(BigInt(Date.now() + offsetMs) * 1_000_000n);
const wsUrl = (base: string, path: string, params: Record<string, string>) => `${base.replace(/^http/, "ws")}${path}?${new URLSearchParams(params)}`;

/** polls until `check` gives a value (not undefined), or fails after the deadline saying what it waited for */
async function waitFor<T>(what: string, check: () => T | undefined, deadlineMs = 20_000): Promise<T> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

interface TailMessage {
  streams: Array<{ stream: Record<string, string>; values: Array<[string, string] | [string, string, Record<string, unknown>]> }>;
  dropped_entries?: unknown;
  encodingFlags?: string[];
}

/** an open tail: what it has received, and how it closed */
interface Tail {
  raw: string[];
  messages: TailMessage[];
  /** every entry received, in order: [labels, ts, line] */
  entries(): Array<[Record<string, string>, string, string]>;
  lines(): string[];
  closed: Promise<{ code: number; reason: string }>;
  close(): void;
}

function openTail(url: string, headers: Record<string, string>, tls?: { ca: string }): Promise<Tail> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, ...(tls ? { ca: tls.ca } : {}) });
    const raw: string[] = [];
    const closed = new Promise<{ code: number; reason: string }>((done) => ws.on("close", (code, reason) => done({ code, reason: String(reason) })));
    ws.on("message", (data) => raw.push(String(data)));
    ws.on("error", reject);
    ws.on("open", () => {
      const tail: Tail = {
        raw,
        get messages() {
          return raw.map((m) => JSON.parse(m) as TailMessage);
        },
        entries: () => tail.messages.flatMap((m) => m.streams.flatMap((s) => s.values.map((v) => [s.stream, v[0], v[1]] as [Record<string, string>, string, string]))),
        lines: () => tail.entries().map((e) => e[2]),
        closed,
        close: () => ws.close(1000),
      };
      resolve(tail);
    });
  });
}

/** the answer to a WebSocket handshake that is refused before upgrading: status, body, headers ("upgraded" when it was not refused) */
function handshake(url: string, headers: Record<string, string>, opts: { ca?: string; plain?: boolean } = {}): Promise<{ status: number; body: string; headers: Record<string, unknown> } | "upgraded"> {
  return new Promise((resolve, reject) => {
    const upgrade = opts.plain ? {} : { Connection: "Upgrade", Upgrade: "websocket", "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==" };
    const send = url.startsWith("https") ? httpsRequest : httpRequest;
    const req = send(url, { headers: { ...upgrade, ...headers }, ...(opts.ca ? { ca: opts.ca } : {}) }, (res) => {
      let body = "";
      res.on("data", (d: Buffer) => (body += String(d)));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body, headers: res.headers }));
    });
    req.on("upgrade", (_res, socket) => {
      socket.destroy();
      resolve("upgraded");
    });
    req.on("error", reject);
    req.end();
  });
}

const push = (base: string, tenant: string, streams: StreamIn[], headers: Record<string, string> = {}) =>
  fetch(`${base}/loki/api/v1/push`, { method: "POST", headers: { "Content-Type": "application/json", "X-Scope-OrgID": tenant, ...headers }, body: JSON.stringify({ streams }) });

describe("GET /loki/api/v1/tail (header mode)", () => {
  const ctx = useServer({ "logs.multi_tenant_queries_enabled": true, "server.cors_allowed_origins": ["http://admin.example"] });
  const base = () => ctx.server.urls.logs!;

  it("sends the history since start first, then entries as they are pushed, in time order, one stream per entry", async () => {
    const logs = logClient(base());
    expect((await logs.push("t-live", [{ stream: { app: "web" }, values: [[nowNs(-3000), "before 1"], [nowNs(-2000), "before 2"]] }])).status).toBe(204);
    const tail = await openTail(wsUrl(base(), "/loki/api/v1/tail", { query: '{app="web"}', start: nowNs(-60_000) }), { "X-Scope-OrgID": "t-live" });
    await waitFor("the history", () => (tail.entries().length >= 2 ? true : undefined));
    expect(tail.lines()).toEqual(["before 1", "before 2"]);
    // Loki's message: {"streams":[…]} and nothing else when nothing was dropped and no flag asked
    expect(Object.keys(JSON.parse(tail.raw[0]!))).toEqual(["streams"]);

    const t1 = nowNs();
    expect((await push(base(), "t-live", [{ stream: { app: "web", pod: "p1" }, values: [[t1, "after 1"]] }])).status).toBe(204);
    expect((await push(base(), "t-live", [{ stream: { app: "web" }, values: [[nowNs(), "after 2"]] }])).status).toBe(204);
    await waitFor("the pushed entries", () => (tail.entries().length >= 4 ? true : undefined));
    expect(tail.lines()).toEqual(["before 1", "before 2", "after 1", "after 2"]);
    expect(tail.entries()[2]).toEqual([{ app: "web", pod: "p1" }, t1, "after 1"]);
    for (const m of tail.messages) for (const s of m.streams) expect(s.values).toHaveLength(1);
    tail.close();
    expect((await tail.closed).code).toBe(1000);
  });

  it("the history is the newest `limit` entries since start (default: the last hour)", async () => {
    const logs = logClient(base());
    const values: StreamIn["values"] = [[nowNs(-2 * 3600_000), "two hours ago"]];
    for (let i = 5; i >= 1; i--) values.push([nowNs(-i * 1000), `line ${6 - i}`]);
    expect((await logs.push("t-limit", [{ stream: { app: "a" }, values }])).status).toBe(204);
    const all = await openTail(wsUrl(base(), "/svc/api/v1/tail", { query: '{app="a"}' }), { "X-Scope-OrgID": "t-limit" });
    await waitFor("five entries", () => (all.entries().length >= 5 ? true : undefined));
    expect(all.lines()).toEqual(["line 1", "line 2", "line 3", "line 4", "line 5"]);
    all.close();
    const newest = await openTail(wsUrl(base(), "/svc/api/v1/tail", { query: '{app="a"}', limit: "2" }), { "X-Scope-OrgID": "t-limit" });
    await waitFor("two entries", () => (newest.entries().length >= 2 ? true : undefined));
    expect(newest.lines()).toEqual(["line 4", "line 5"]);
    newest.close();
  });

  it("the selector, line filters and the pipeline apply to history and live entries alike", async () => {
    const tail = await openTail(wsUrl(base(), "/loki/api/v1/tail", { query: '{app="api"} |= "keep" | json | level="error" | line_format "{{.msg}}"' }), { "X-Scope-OrgID": "t-filter" });
    const line = (level: string, msg: string) => JSON.stringify({ level, msg });
    expect(
      (
        await push(base(), "t-filter", [
          { stream: { app: "api" }, values: [[nowNs(), line("error", "keep 1")], [nowNs(), line("info", "keep no")], [nowNs(), line("error", "drop")]] },
          { stream: { app: "other" }, values: [[nowNs(), line("error", "keep other")]] },
        ])
      ).status,
    ).toBe(204);
    expect((await push(base(), "t-filter", [{ stream: { app: "api" }, values: [[nowNs(), line("error", "keep 2")]] }])).status).toBe(204);
    await waitFor("two entries", () => (tail.entries().length >= 2 ? true : undefined));
    expect(tail.lines()).toEqual(["keep 1", "keep 2"]);
    // the labels the parser extracted are the entry's
    expect(tail.entries()[0]![0]).toEqual({ app: "api", level: "error", msg: "keep 1" });
    tail.close();
  });

  it("categorize-labels: structured metadata in a third element, the flag echoed (Loki's encodeStream)", async () => {
    const tail = await openTail(wsUrl(base(), "/loki/api/v1/tail", { query: '{app="meta"}' }), { "X-Scope-OrgID": "t-meta", "X-Loki-Response-Encoding-Flags": "categorize-labels" });
    const ts = nowNs();
    expect((await push(base(), "t-meta", [{ stream: { app: "meta" }, values: [[ts, "with metadata", { traceID: "abc" }], [nowNs(), "plain"]] }])).status).toBe(204);
    await waitFor("two entries", () => (tail.entries().length >= 2 ? true : undefined));
    const values = tail.messages.flatMap((m) => m.streams.map((s) => [s.stream, s.values[0]]));
    expect(values).toEqual([
      [{ app: "meta" }, [ts, "with metadata", { structuredMetadata: { traceID: "abc" } }]],
      [{ app: "meta" }, [expect.any(String), "plain", {}]],
    ]);
    expect(tail.messages[0]!.encodingFlags).toEqual(["categorize-labels"]);
    tail.close();
  });

  it("another tenant's entries never reach a tail", async () => {
    const tail = await openTail(wsUrl(base(), "/loki/api/v1/tail", { query: '{app="x"}' }), { "X-Scope-OrgID": "t-mine" });
    expect((await push(base(), "t-theirs", [{ stream: { app: "x" }, values: [[nowNs(), "theirs"]] }])).status).toBe(204);
    expect((await push(base(), "t-mine", [{ stream: { app: "x" }, values: [[nowNs(), "mine"]] }])).status).toBe(204);
    await waitFor("my entry", () => (tail.entries().length >= 1 ? true : undefined));
    expect(tail.lines()).toEqual(["mine"]);
    tail.close();
  });

  const url = (params: Record<string, string>, path = "/loki/api/v1/tail") => `${base()}${path}?${new URLSearchParams(params)}`;
  const refusals: Array<[string, Record<string, string>, Record<string, string>, number, string]> = [
    ["delay_for over 5", { query: '{app="a"}', delay_for: "6" }, { "X-Scope-OrgID": "t1" }, 400, "delay_for can't be greater than 5\n"],
    ["a negative delay_for (Loki keeps it as a uint32)", { query: '{app="a"}', delay_for: "-1" }, { "X-Scope-OrgID": "t1" }, 400, "delay_for can't be greater than 5\n"],
    ["delay_for not a number", { query: '{app="a"}', delay_for: "fw" }, { "X-Scope-OrgID": "t1" }, 400, 'strconv.Atoi: parsing "fw": invalid syntax\n'],
    ["a metric query", { query: 'count_over_time({app="a"}[1m])' }, { "X-Scope-OrgID": "t1" }, 400, "only log selector is supported\n"],
    ["a query that does not parse", { query: '{app="a"' }, { "X-Scope-OrgID": "t1" }, 400, "parse error at line 1, col 9: syntax error: unexpected $end\n"],
    ["a limit past max_entries_limit_per_query", { query: '{app="a"}', limit: "5001" }, { "X-Scope-OrgID": "t1" }, 400, "max entries limit per query exceeded, limit > max_entries_limit_per_query (5001 > 5000)\n"],
    ["a bad start", { query: '{app="a"}', start: "t" }, { "X-Scope-OrgID": "t1" }, 400, `could not parse 'start' parameter: cannot parse "t" to a valid timestamp\n`],
    ["two tenants (even with multi-tenant queries on)", { query: '{app="a"}' }, { "X-Scope-OrgID": "t1|t2" }, 400, "multiple org IDs present\n"],
    ["no X-Scope-OrgID", { query: '{app="a"}' }, {}, 401, "no org id\n"],
  ];
  for (const [name, params, headers, status, body] of refusals) {
    it(`${name} -> ${status} before upgrading`, async () => {
      const answer = await handshake(url(params), headers);
      expect(answer).not.toBe("upgraded");
      if (answer === "upgraded") return;
      expect([answer.status, answer.body]).toEqual([status, body]);
    });
  }

  it("a GET that is not a WebSocket handshake -> 400 Bad Request (gorilla/websocket's answer), after the parameters", async () => {
    const plain = await fetch(url({ query: '{app="a"}' }), { headers: { "X-Scope-OrgID": "t1" } });
    expect(plain.status).toBe(400);
    expect(await plain.text()).toBe("Bad Request\n");
    expect(plain.headers.get("sec-websocket-version")).toBe("13");
    const badParams = await fetch(url({ query: '{app="a"}', delay_for: "9" }), { headers: { "X-Scope-OrgID": "t1" } });
    expect(await badParams.text()).toBe("delay_for can't be greater than 5\n");
    const noTenant = await fetch(url({ query: '{app="a"}' }));
    expect(noTenant.status).toBe(401);
  });

  it("a browser page of another origin -> 403 origin not allowed (the same-origin policy does not cover WebSockets); an allowed origin is upgraded", async () => {
    const evil = await handshake(url({ query: '{app="a"}' }), { "X-Scope-OrgID": "t1", Origin: "http://evil.example" });
    expect(evil).toEqual(expect.objectContaining({ status: 403, body: "origin not allowed\n" }));
    expect(await handshake(url({ query: '{app="a"}' }), { "X-Scope-OrgID": "t1", Origin: "http://admin.example" })).toBe("upgraded");
  });

  it("a good handshake is upgraded on either path", async () => {
    expect(await handshake(url({ query: '{app="a"}' }), { "X-Scope-OrgID": "t1" })).toBe("upgraded");
    expect(await handshake(url({ query: '{app="a"}' }, "/svc/api/v1/tail"), { "X-Scope-OrgID": "t1" })).toBe("upgraded");
  });
});

describe("tail limits", () => {
  const ctx = useServer({ "logs.limits.max_concurrent_tail_requests": 1, "logs.querier.tail_max_duration": "1s" });
  const base = () => ctx.server.urls.logs!;

  it("a tenant's tails past max_concurrent_tail_requests -> 400 with Loki's message; another tenant is not counted", async () => {
    const first = await openTail(wsUrl(base(), "/loki/api/v1/tail", { query: '{app="a"}' }), { "X-Scope-OrgID": "t-cap" });
    const second = await handshake(`${base()}/loki/api/v1/tail?query=${encodeURIComponent('{app="a"}')}`, { "X-Scope-OrgID": "t-cap" });
    expect(second).toEqual(expect.objectContaining({ status: 400, body: "max concurrent tail requests limit exceeded, count > limit (2 > 1)\n" }));
    const other = await openTail(wsUrl(base(), "/loki/api/v1/tail", { query: '{app="a"}' }), { "X-Scope-OrgID": "t-other" });
    first.close();
    other.close();
    await first.closed;
    // the place is given back once the server has seen the tail end
    const until = Date.now() + 20_000;
    let again = await handshake(`${base()}/loki/api/v1/tail?query=${encodeURIComponent('{app="a"}')}`, { "X-Scope-OrgID": "t-cap" });
    while (again !== "upgraded" && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      again = await handshake(`${base()}/loki/api/v1/tail?query=${encodeURIComponent('{app="a"}')}`, { "X-Scope-OrgID": "t-cap" });
    }
    expect(again).toBe("upgraded");
  });

  it("a tail is closed after tail_max_duration with Loki's 1011 reached tail max duration limit", async () => {
    const tail = await openTail(wsUrl(base(), "/loki/api/v1/tail", { query: '{app="a"}' }), { "X-Scope-OrgID": "t-duration" });
    expect(await tail.closed).toEqual({ code: 1011, reason: "reached tail max duration limit" });
  });
});

describe("tail and the server", () => {
  it("open tails are closed (1001) when the server stops", async () => {
    const s = await startTestServer();
    try {
      const tail = await openTail(wsUrl(s.urls.logs!, "/loki/api/v1/tail", { query: '{app="a"}' }), { "X-Scope-OrgID": "t1" });
      await s.stop();
      expect((await tail.closed).code).toBe(1001);
    } finally {
      await s.stop();
    }
  });
});

describe("tail in tokens mode", () => {
  const ctx = useServer({ "logs.auth.type": "tokens", "metrics.admin_token": ADMIN_TOKEN });
  const base = () => ctx.server.urls.logs!;
  const url = () => `${base()}/loki/api/v1/tail?query=${encodeURIComponent('{app="tok"}')}`;

  it("no credentials -> 401, a token without logs:read -> 403, a token with it tails its tenant", async () => {
    const admin = adminApi(ctx.server.urls.metrics!);
    await admin.policy("tail-writer", ["team-a"], ["logs:write"]);
    await admin.policy("tail-reader", ["team-a"], ["logs:read"]);
    const writer = await admin.token("tail-writer", "tail-writer");
    const reader = await admin.token("tail-reader", "tail-reader");

    const none = await handshake(url(), {});
    expect(none).toEqual(expect.objectContaining({ status: 401 }));
    const wrongScope = await handshake(url(), { Authorization: basic("team-a", writer) });
    expect(wrongScope).toEqual(expect.objectContaining({ status: 403, body: 'access policy "tail-writer" does not grant the scope logs:read\n' }));

    const tail = await openTail(wsUrl(base(), "/loki/api/v1/tail", { query: '{app="tok"}' }), { Authorization: basic("team-a", reader) });
    expect((await push(base(), "team-a", [{ stream: { app: "tok" }, values: [[nowNs(), "by token"]] }], { Authorization: basic("team-a", writer) })).status).toBe(204);
    await waitFor("the pushed entry", () => (tail.entries().length >= 1 ? true : undefined));
    expect(tail.lines()).toEqual(["by token"]);
    tail.close();
  });
});

describe("tail through the authenticating proxy", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-tail-proxy-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const htpasswd = join(dir, ".htpasswd");
  writeFileSync(htpasswd, `team-a:${bcrypt.hashSync("pw-a", 5)}\n`);
  const ctx = useServer({ "logs.auth_proxy.enabled": true, "logs.auth_proxy.htpasswd_file": htpasswd, "logs.auth_proxy.port": 0 });

  it("the proxy's user is the tenant; without credentials 401", async () => {
    const proxy = ctx.server.urls["logs proxy"]!;
    const refused = await handshake(`${proxy}/loki/api/v1/tail?query=${encodeURIComponent('{app="p"}')}`, {});
    expect(refused).toEqual(expect.objectContaining({ status: 401 }));
    // a client-sent X-Scope-OrgID is overwritten by the user name
    const tail = await openTail(wsUrl(proxy, "/loki/api/v1/tail", { query: '{app="p"}' }), { Authorization: basic("team-a", "pw-a"), "X-Scope-OrgID": "team-b" });
    expect((await push(ctx.server.urls.logs!, "team-b", [{ stream: { app: "p" }, values: [[nowNs(), "not mine"]] }])).status).toBe(204);
    expect((await push(ctx.server.urls.logs!, "team-a", [{ stream: { app: "p" }, values: [[nowNs(), "mine"]] }])).status).toBe(204);
    await waitFor("the pushed entry", () => (tail.entries().length >= 1 ? true : undefined));
    expect(tail.lines()).toEqual(["mine"]);
    tail.close();
  });
});

describe("tail on the HTTPS listener", () => {
  const dir = mkdtempSync(join(tmpdir(), "outpost-tail-tls-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const ca = createCa();
  const cert = createServerCert(ca, ["localhost", "127.0.0.1"]);
  writeFileSync(join(dir, "server.pem"), cert.cert);
  writeFileSync(join(dir, "server-key.pem"), cert.key);
  const ctx = useServer({ "server.host": "127.0.0.1", "server.http_tls_config.cert_file": join(dir, "server.pem"), "server.http_tls_config.key_file": join(dir, "server-key.pem") });

  it("wss:// tails; refusals are answered before upgrading", async () => {
    const base = ctx.server.urls.logs!;
    expect(base).toMatch(/^https:\/\//);
    const refused = await handshake(`${base}/loki/api/v1/tail?query=${encodeURIComponent('{app="tls"}')}`, {}, { ca: ca.cert });
    expect(refused).toEqual(expect.objectContaining({ status: 401, body: "no org id\n" }));
    const tail = await openTail(wsUrl(base, "/loki/api/v1/tail", { query: '{app="tls"}' }), { "X-Scope-OrgID": "t-tls" }, { ca: ca.cert });
    const sent = await new Promise<number>((resolve, reject) => {
      const req = httpsRequest(`${base}/loki/api/v1/push`, { method: "POST", ca: ca.cert, headers: { "Content-Type": "application/json", "X-Scope-OrgID": "t-tls" } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.end(JSON.stringify({ streams: [{ stream: { app: "tls" }, values: [[nowNs(), "over tls"]] }] }));
    });
    expect(sent).toBe(204);
    await waitFor("the pushed entry", () => (tail.entries().length >= 1 ? true : undefined));
    expect(tail.lines()).toEqual(["over tls"]);
    tail.close();
  });
});
