// Large pushes are decoded on a worker thread (push-tasks.ts: bodies of 64 KiB
// and more), small ones on the event loop. Both paths must store the same
// entries and refuse bad input with the same status and message: the same
// streams are pushed as one large body to one tenant and as many small bodies
// to another, in JSON, gzip JSON and protobuf, and read back.
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { OFF_THREAD_BYTES } from "../../src/apps/logstore/core/push-tasks.ts";
import { useServer } from "../helpers/server.ts";
import { logClient, nsAgo, protobufBody, type StreamIn, type Values } from "./helpers.ts";

const MAX_LINE = 1000;

/** three streams of `n` entries each: multi-byte text, escapes, metadata, repeats, a lone surrogate */
function corpus(n: number, now: number): StreamIn[] {
  return ["a", "b", "c"].map((app, s) => {
    const values: Values = [];
    for (let i = 0; i < n; i++) {
      const ts = nsAgo(600 - i * 0.1 - s * 0.01, now);
      const line = `${app} ${i} caf\u00e9 \u65e5\u672c \u{1F600} "quoted" back\\slash tab\tnew\nline ${"x".repeat(i % 40)}`;
      if (i % 10 === 0) values.push([ts, line, { trace_id: `t${i}`, "k\u00e9y": "v\u00e9" }]);
      else values.push([ts, line]);
      // the same entry again is dropped as a duplicate
      if (i % 97 === 0) values.push([ts, line]);
    }
    // a lone surrogate (from a \u escape) is stored as U+FFFD
    values.push([nsAgo(1, now), `lone \ud800 surrogate ${app}`]);
    return { stream: { app, job: "large" }, values };
  });
}

/** the streams cut into pushes of `per` entries each */
function slices(streams: StreamIn[], per: number): StreamIn[][] {
  const out: StreamIn[][] = [];
  for (const s of streams) for (let at = 0; at < s.values.length; at += per) out.push([{ stream: s.stream, values: s.values.slice(at, at + per) }]);
  return out;
}

describe("log store: large pushes decoded on a worker store and refuse exactly as small ones", () => {
  const t = useServer({ "logs.limits.max_line_size": MAX_LINE, "logs.limits.ingestion_rate_mb": 1000, "logs.limits.ingestion_burst_size_mb": 1000 });
  const logs = () => logClient(t.server.urls.logs!);
  // categorized: a stream's entries stay one result stream whatever their structured metadata, which each value carries
  const read = async (tenant: string) => {
    const range = { query: '{job="large"}', limit: "5000", direction: "forward", start: String(Math.floor(Date.now() / 1000) - 3600), end: String(Math.ceil(Date.now() / 1000) + 60) };
    const r = await logs().get("/svc/api/v1/query_range", tenant, range, { "X-Loki-Response-Encoding-Flags": "categorize-labels" });
    expect(r.status, r.text).toBe(200);
    return r.body.data.result as Array<{ stream: Record<string, string>; values: unknown[][] }>;
  };

  it("JSON, gzip JSON and protobuf: one large body stores what many small ones store", async () => {
    const streams = corpus(1500, Date.now());
    const json = JSON.stringify({ streams });
    expect(json.length).toBeGreaterThan(4 * OFF_THREAD_BYTES);
    for (const format of ["json", "gzip", "protobuf"] as const) {
      const large = await logs().push(`large-${format}`, streams, format);
      expect(large.status, large.text).toBe(204);
      for (const part of slices(streams, 100)) {
        const small = await logs().push(`small-${format}`, part, format);
        expect(small.status, small.text).toBe(204);
      }
      const [got, want] = [await read(`large-${format}`), await read(`small-${format}`)];
      // 1,500 entries and the lone surrogate's per stream; the repeats dropped
      expect(got.map((s) => s.values.length)).toEqual([1501, 1501, 1501]);
      expect(got).toEqual(want);
      if (format !== "protobuf") expect(got[0]!.values.at(-1)![1]).toBe("lone \ufffd surrogate a");
    }
  }, 120_000);

  it("a bad timestamp deep in a large body -> 400 with the real message naming its place, as in a small one", async () => {
    const streams = corpus(1500, Date.now());
    const broken = [...streams[0]!.values];
    broken[1200] = ["12x45", "a line"];
    const bad = (values: Values): StreamIn => ({ stream: { app: "bad", job: "large" }, values });
    const message = (where: string) => `failed to parse JSON push request: ${where}: strconv.ParseInt: parsing "12x45": invalid syntax`;
    const large = await logs().push("bad-large", [...streams.slice(1), bad(broken)]);
    expect(large.status).toBe(400);
    expect(large.text.trim()).toBe(message("streams[2].values[1200][0]"));
    const small = await logs().push("bad-small", [bad(broken.slice(1150, 1250))]);
    expect(small.status).toBe(400);
    expect(small.text.trim()).toBe(message("streams[0].values[50][0]"));
    // nothing of a body that does not parse is stored
    expect(await read("bad-large")).toEqual([]);
  }, 120_000);

  it("lines over max_line_size in a large body are counted in UTF-8 bytes and refused with the real message; the rest is stored", async () => {
    const now = Date.now();
    // 400 characters, 1,200 bytes in UTF-8: over the limit only when counted in bytes
    const long = "\u65e5".repeat(400);
    const values: Values = [];
    for (let i = 0; i < 3000; i++) values.push([nsAgo(300 - i * 0.05, now), i === 2000 ? long : `line ${i} ${"y".repeat(40)}`]);
    const r = await logs().push("long-large", [{ stream: { app: "long", job: "large" }, values }]);
    expect(r.status).toBe(400);
    expect(r.text.trim()).toBe(`Max entry size '${MAX_LINE}' bytes exceeded for stream '{app="long", job="large"}' while adding an entry with length '1200' bytes`);
    const stored = await read("long-large");
    expect(stored[0]!.values).toHaveLength(2999);
  }, 120_000);
});
