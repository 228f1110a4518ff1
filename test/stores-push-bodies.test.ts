// Hostile push bodies on all three push routes (issue 16 #0, #4, #5, #19):
// snappy streams that hung the server or were answered 200 with nothing
// stored, a snappy bomb declaring 2 GiB, and gzip/deflate bombs. Each is
// refused with the real store's status and message, and every listener
// answers afterwards.
import { describe, expect, it } from "vitest";
import { zerosBomb } from "./helpers/bombs.ts";
import { useServer } from "./helpers/server.ts";
import { protobufBody } from "./logstore/helpers.ts";
import { writeBody } from "./metrics/helpers.ts";

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s/g, ""), "hex"));
const LIMIT = 100 * 1024 * 1024;
const TIMEOUT = 60_000;

describe("push bodies", () => {
  const ctx = useServer();
  const logs = () => ctx.server.urls.logs!;
  const metrics = () => ctx.server.urls.metrics!;
  const post = async (url: string, body: Uint8Array, headers: Record<string, string>) => {
    const res = await fetch(url, { method: "POST", body: body as BodyInit, headers: { "X-Scope-OrgID": "t", ...headers }, signal: AbortSignal.timeout(TIMEOUT) });
    return { status: res.status, text: await res.text() };
  };
  const LOG_ROUTES = ["/svc/api/v1/push", "/api/prom/push"];
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
