// Hostile push bodies on all three push routes (issue 16 #0, #4, #5, #19):
// snappy streams that hung the server or were answered 200 with nothing
// stored, a snappy bomb declaring 2 GiB, and gzip/deflate bombs. Each is
// refused with the real store's status and message, and every listener
// answers afterwards.
import { promisify } from "node:util";
import { gzip } from "node:zlib";
import snappy from "snappyjs";
import { describe, expect, it } from "vitest";
import { zerosBomb } from "./helpers/bombs.ts";
import { useServer } from "./helpers/server.ts";
import { nsAgo, protobufBody } from "./logstore/helpers.ts";
import { writeBody } from "./metrics/helpers.ts";

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s/g, ""), "hex"));
const LIMIT = 100 * 1024 * 1024;
const TIMEOUT = 60_000;
const LOG_ROUTES = ["/svc/api/v1/push", "/api/prom/push"];

describe("push bodies", () => {
  const ctx = useServer();
  const logs = () => ctx.server.urls.logs!;
  const metrics = () => ctx.server.urls.metrics!;
  const post = async (url: string, body: Uint8Array, headers: Record<string, string>) => {
    const res = await fetch(url, { method: "POST", body: body as BodyInit, headers: { "X-Scope-OrgID": "t", ...headers }, signal: AbortSignal.timeout(TIMEOUT) });
    return { status: res.status, text: await res.text() };
  };
  const proto = { "Content-Type": "application/x-protobuf" };
  const remoteWrite = { ...proto, "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" };

  /** every listener still answers, and another tenant can still push */
  async function stillServing(): Promise<void> {
    const signal = AbortSignal.timeout(TIMEOUT);
    expect((await fetch(`${ctx.server.urls.dashboard}/api/health`, { signal })).status).toBe(200);
    expect((await fetch(`${logs()}/ready`, { signal })).status).toBe(200);
    expect((await fetch(`${metrics()}/ready`, { signal })).status).toBe(200);
    const ok = await fetch(`${metrics()}/api/v1/push`, {
      method: "POST", signal,
      headers: { "X-Scope-OrgID": "other", ...remoteWrite },
      body: writeBody([{ labels: { __name__: "up", job: "probe" }, samples: [[Date.now(), 1]] }]),
    });
    expect(ok.status).toBe(200);
  }

  it("the review's 6 bytes (05 fc 00 00 00 80) -> 400 snappy: corrupt input on every push route, and the server answers", async () => {
    const body = hex("05 fc 00 00 00 80");
    for (const route of LOG_ROUTES) {
      const r = await post(`${logs()}${route}`, body, proto);
      expect(r.status, route).toBe(400);
      expect(r.text).toBe("snappy: corrupt input\n");
    }
    const r = await post(`${metrics()}/api/v1/push`, body, remoteWrite);
    expect(r.status).toBe(400);
    expect(r.text).toBe("decompress snappy: snappy: corrupt input\n");
    await stillServing();
  }, TIMEOUT);

  it("the 7-byte snappy bomb (2 GiB declared) -> 400 over max_recv_msg_size, refused before decoding", async () => {
    const body = hex("f0 ff ff ff 07 00 00");
    const r = await post(`${metrics()}/api/v1/push`, body, remoteWrite);
    expect(r.status).toBe(400);
    expect(r.text).toBe(
      `the incoming push request has been rejected because its message size of 2147483632 bytes is larger than the allowed limit of ${LIMIT} bytes (err-mimir-distributor-max-write-message-size). To adjust the related limit, configure -distributor.max-recv-msg-size, or contact your service administrator.\n`,
    );
    for (const route of LOG_ROUTES) {
      const l = await post(`${logs()}${route}`, body, proto);
      expect(l.status, route).toBe(400);
      expect(l.text).toBe(`received message larger than max (2147483632 vs ${LIMIT})\n`);
    }
    await stillServing();
  }, TIMEOUT);

  it("remote write truncated to 1 byte (was 200, nothing stored) or at any other length -> 400, and nothing is stored", async () => {
    const t = Date.now();
    const body = writeBody([{ labels: { __name__: "truncated", job: "a" }, samples: [[t, 1]] }]);
    const empty = await post(`${metrics()}/api/v1/push`, new Uint8Array(0), { ...remoteWrite, "X-Scope-OrgID": "trunc" });
    expect(empty.status).toBe(400);
    expect(empty.text).toBe("getting snappy decoded length: snappy: corrupt input\n");
    for (let n = 1; n < body.length; n++) {
      const r = await post(`${metrics()}/api/v1/push`, body.subarray(0, n), { ...remoteWrite, "X-Scope-OrgID": "trunc" });
      expect(r.status, `${n} bytes`).toBe(400);
      expect(r.text).toBe("decompress snappy: snappy: corrupt input\n");
    }
    const q = await fetch(`${metrics()}/prometheus/api/v1/query?query=truncated&time=${t / 1000}`, { headers: { "X-Scope-OrgID": "trunc" } });
    expect((await q.json()).data.result).toEqual([]);
  }, TIMEOUT);

  it("every truncation of a log push -> 400, and nothing is stored", async () => {
    const ts = String(BigInt(Date.now()) * 1_000_000n);
    const body = protobufBody([{ stream: { app: "trunc" }, values: [[ts, "a line that must not be stored"]] }]);
    for (let n = 0; n < body.length; n++) {
      const r = await post(`${logs()}/svc/api/v1/push`, body.subarray(0, n), { ...proto, "X-Scope-OrgID": "trunc" });
      expect(r.status, `${n} bytes`).toBe(400);
    }
    const q = await fetch(`${logs()}/svc/api/v1/query_range?query=${encodeURIComponent('{app="trunc"}')}&since=1h`, { headers: { "X-Scope-OrgID": "trunc" } });
    expect((await q.json()).data.result).toEqual([]);
  }, TIMEOUT);

  // the review's gzip bomb as it was sent; a smaller deflate one (still 2.5x the cap) keeps the run short
  const bombs = [["gzip", 1024], ["deflate", 256]] as const;
  for (const [encoding, mib] of bombs) {
    it(`a ${encoding} bomb (${mib} MiB of zeros in ~${Math.ceil(mib / 1024)} MB) -> 413 at max_recv_msg_size, memory bounded by the cap`, async () => {
      const body = await zerosBomb(encoding, mib * 1024 * 1024);
      expect(body.length).toBeLessThan(16 * 1024 * 1024);
      const before = process.memoryUsage().rss;
      for (const type of ["application/json", "application/x-protobuf"]) {
        const r = await post(`${logs()}/svc/api/v1/push`, body, { "Content-Type": type, "Content-Encoding": encoding });
        expect(r.status, type).toBe(413);
        expect(r.text).toBe(`request body too large: ${LIMIT + 1} bytes, limit: ${LIMIT} bytes\n`);
      }
      expect(process.memoryUsage().rss - before).toBeLessThan(500 * 1024 * 1024);
      await stillServing();
    }, 120_000);
  }
});

// Object growth after decoding (review of issue 16): a 2-byte empty entry or
// series is several JavaScript objects once decoded, and snappy compresses the
// repetition ~21x, so a ~280 KB body of 3,000,000 empty items grew the process
// by over 700 MB. Each decoded item is charged against max_recv_msg_size.
describe("push bodies: decoded items are charged against max_recv_msg_size", () => {
  const ctx = useServer();
  const N = 3_000_000;
  const post = async (url: string, body: Uint8Array, headers: Record<string, string>) => {
    const res = await fetch(url, { method: "POST", body: body as BodyInit, headers: { "X-Scope-OrgID": "amp", ...headers }, signal: AbortSignal.timeout(TIMEOUT) });
    return { status: res.status, text: await res.text() };
  };
  /** 2-byte messages `pair` repeated n times after `head` */
  const repeated = (head: number[], pair: [number, number], n: number) => {
    const raw = new Uint8Array(head.length + 2 * n);
    raw.set(head);
    for (let i = 0; i < n; i++) raw[head.length + 2 * i] = pair[0];
    return raw;
  };
  const varint = (n: number) => {
    const out: number[] = [];
    for (; n >= 0x80; n = Math.floor(n / 128)) out.push((n & 0x7f) | 0x80);
    return [...out, n];
  };
  /** /ready on both stores and another tenant's push on each still answer */
  async function othersServed(): Promise<void> {
    const signal = AbortSignal.timeout(TIMEOUT);
    expect((await fetch(`${ctx.server.urls.logs}/ready`, { signal })).status).toBe(200);
    expect((await fetch(`${ctx.server.urls.metrics}/ready`, { signal })).status).toBe(200);
    const m = await fetch(`${ctx.server.urls.metrics}/api/v1/push`, {
      method: "POST", signal,
      headers: { "X-Scope-OrgID": "other", "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" },
      body: writeBody([{ labels: { __name__: "up", job: "probe" }, samples: [[Date.now(), 1]] }]),
    });
    expect(m.status).toBe(200);
    const l = await fetch(`${ctx.server.urls.logs}/svc/api/v1/push`, {
      method: "POST", signal,
      headers: { "X-Scope-OrgID": "other", "Content-Type": "application/x-protobuf" },
      body: protobufBody([{ stream: { app: "probe" }, values: [[nsAgo(1), "still here"]] }]) as BodyInit,
    });
    expect(l.status).toBe(204);
  }

  it("3,000,000 empty log entries in a ~280 KB snappy body -> 400 received message larger than max, memory bounded", async () => {
    // PushRequest { streams: [{ labels: '{a="b"}', entries: [{} x N] }] }
    const label = [...Buffer.from('{a="b"}')];
    const streamLength = 2 + label.length + 2 * N;
    const raw = repeated([0x0a, ...varint(streamLength), 0x0a, label.length, ...label], [0x12, 0x00], N);
    const body = snappy.compress(raw) as Uint8Array;
    expect(body.length).toBeLessThan(400_000);
    const before = process.memoryUsage().rss;
    for (const route of LOG_ROUTES) {
      const r = await post(`${ctx.server.urls.logs}${route}`, body, { "Content-Type": "application/x-protobuf" });
      expect(r.status, route).toBe(400);
      expect(r.text, route).toMatch(new RegExp(`^received message larger than max \\((\\d+) vs ${LIMIT}\\)\n$`));
      expect(Number(/\((\d+) vs/.exec(r.text)![1])).toBeGreaterThan(LIMIT);
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    await othersServed();
  }, 120_000);

  it("3,000,000 empty series or metadata in a remote write -> 400 err-mimir-distributor-max-write-message-size, memory bounded", async () => {
    const before = process.memoryUsage().rss;
    for (const field of [0x0a, 0x1a]) {
      const body = snappy.compress(repeated([], [field, 0x00], N)) as Uint8Array;
      const r = await post(`${ctx.server.urls.metrics}/api/v1/push`, body, { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" });
      expect(r.status, `field ${field}`).toBe(400);
      expect(r.text).toMatch(
        new RegExp(`^the incoming push request has been rejected because its message size of \\d+ bytes is larger than the allowed limit of ${LIMIT} bytes \\(err-mimir-distributor-max-write-message-size\\)`),
      );
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(300 * 1024 * 1024);
    await othersServed();
  }, 120_000);

  it("a gzip'd JSON push of 500,000 short entries -> 400 received message larger than max", async () => {
    const json = `{"streams":[{"stream":{"a":"b"},"values":[${Array(500_000).fill('["1",""]').join(",")}]}]}`;
    const body = new Uint8Array(await promisify(gzip)(json));
    const r = await post(`${ctx.server.urls.logs}/svc/api/v1/push`, body, { "Content-Type": "application/json", "Content-Encoding": "gzip" });
    expect(r.status).toBe(400);
    expect(r.text).toMatch(new RegExp(`^received message larger than max \\(\\d+ vs ${LIMIT}\\)\n$`));
    await othersServed();
  }, 120_000);

  it("a valid push of 10,000 entries and one of 5,000 series are still accepted", async () => {
    const values = Array.from({ length: 10_000 }, (_, i) => [nsAgo(60 - i / 1000), `line ${i} level=info msg="request served"`] as [string, string]);
    const l = await post(`${ctx.server.urls.logs}/svc/api/v1/push`, protobufBody([{ stream: { app: "many" }, values }]), { "Content-Type": "application/x-protobuf" });
    expect(l.status, l.text).toBe(204);
    const j = await post(`${ctx.server.urls.logs}/svc/api/v1/push`, new TextEncoder().encode(JSON.stringify({ streams: [{ stream: { app: "many-json" }, values }] })), { "Content-Type": "application/json" });
    expect(j.status, j.text).toBe(204);
    const t = Date.now();
    const series = Array.from({ length: 5_000 }, (_, i) => ({ labels: { __name__: "many", instance: `host-${i}`, job: "node" }, samples: [[t, i]] as Array<[number, number]> }));
    const m = await post(`${ctx.server.urls.metrics}/api/v1/push`, writeBody(series), { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" });
    expect(m.status, m.text).toBe(200);
  }, 120_000);
});

describe("push bodies: a smaller max_recv_msg_size", () => {
  const ctx = useServer({ "server.max_recv_msg_size": "1KiB" });
  it("a valid push declaring more than the limit -> 400 on both stores, with their messages", async () => {
    const big = "x".repeat(2000);
    const m = await fetch(`${ctx.server.urls.metrics}/api/v1/push`, {
      method: "POST",
      headers: { "X-Scope-OrgID": "t", "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" },
      body: writeBody([{ labels: { __name__: "up", big }, samples: [[Date.now(), 1]] }]),
    });
    expect(m.status).toBe(400);
    expect(await m.text()).toContain("is larger than the allowed limit of 1024 bytes (err-mimir-distributor-max-write-message-size)");
    const ts = String(BigInt(Date.now()) * 1_000_000n);
    const l = await fetch(`${ctx.server.urls.logs}/svc/api/v1/push`, {
      method: "POST",
      headers: { "X-Scope-OrgID": "t", "Content-Type": "application/x-protobuf" },
      body: protobufBody([{ stream: { app: "big" }, values: [[ts, big]] }]) as BodyInit,
    });
    expect(l.status).toBe(400);
    expect(await l.text()).toMatch(/^received message larger than max \(\d+ vs 1024\)\n$/);
  });
});
