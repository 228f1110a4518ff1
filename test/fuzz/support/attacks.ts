// The attacks (issue 16), each one request, and a prober that keeps
// asking the other listeners and another tenant while it runs. Shared by the
// attack-probe test (test/fuzz/attacks.test.ts) and bench/attacks.ts.
import { createGzip, gzipSync } from "node:zlib";
import snappy from "snappyjs";
import { encodeWriteRequest } from "../../../src/apps/metrics/core/remote-write.ts";
import { PushRequestType } from "../../../src/apps/logstore/core/push-decode.ts";
import { histogram, protobufBody, request } from "../../metrics/otlp-helpers.ts";
import { DIGITS_400 } from "./values.ts";

export type Service = "dashboard" | "logs" | "metrics";
export type Urls = Record<Service, string>;

export interface Attack {
  /** the finding number and what is sent */
  name: string;
  service: Service;
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: () => Promise<Uint8Array | string> | Uint8Array | string;
  /** data the attack needs in place first (sent before probing starts) */
  setup?: (urls: Urls) => Promise<void>;
  /** the statuses that are the right answer */
  expect: readonly number[];
}

const ADMIN = `Basic ${btoa("admin:admin")}`;
const PB = { "X-Scope-OrgID": "attacker", "Content-Type": "application/x-protobuf" };
const RW = { ...PB, "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" };
const nowNs = () => `${BigInt(Date.now()) * 1_000_000n}`;
const q = (s: string) => encodeURIComponent(s);

/** gzip of `mib` MiB of zeros, streamed so the client never holds the plain text */
export function gzipBomb(mib: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const gz = createGzip({ level: 9 });
    const parts: Buffer[] = [];
    gz.on("data", (d: Buffer) => parts.push(d));
    gz.on("end", () => resolve(new Uint8Array(Buffer.concat(parts))));
    gz.on("error", reject);
    const zeros = Buffer.alloc(1 << 20);
    let left = mib;
    const pump = () => {
      while (left > 0) {
        left--;
        if (!gz.write(zeros)) return void gz.once("drain", pump);
      }
      gz.end();
    };
    pump();
  });
}

async function pushLogs(urls: Urls, tenant: string, app: string, lines: string[]): Promise<void> {
  const res = await fetch(`${urls.logs}/svc/api/v1/push`, {
    method: "POST",
    headers: { "X-Scope-OrgID": tenant, "Content-Type": "application/json" },
    body: JSON.stringify({ streams: [{ stream: { app }, values: lines.map((l, i) => [`${BigInt(Date.now() - 1000) * 1_000_000n + BigInt(i)}`, l]) }] }),
  });
  if (res.status >= 300) throw new Error(`setup push: ${res.status} ${await res.text()}`);
}

async function pushSeries(urls: Urls, tenant: string, series: Array<Record<string, string>>): Promise<void> {
  const pb = encodeWriteRequest({ timeseries: series.map((labels) => ({ labels: Object.entries(labels).map(([name, value]) => ({ name, value })), samples: [{ timestampMs: Date.now() - 1000, value: 1 }] })) });
  const res = await fetch(`${urls.metrics}/api/v1/push`, { method: "POST", headers: { ...RW, "X-Scope-OrgID": tenant }, body: pb });
  if (res.status >= 300) throw new Error(`setup remote write: ${res.status} ${await res.text()}`);
}

const EVIL = "a".repeat(40) + "!";

function varint(n: bigint): number[] {
  let v = BigInt.asUintN(64, n);
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

/** a snappy remote-write body of one sample at `ms` (any int64, written by hand: the encoder takes JS numbers) */
function remoteWriteAt(ms: bigint): Uint8Array {
  const label = [0x0a, 1 + 1 + 8 + 1 + 1 + 1, 0x0a, 8, ...new TextEncoder().encode("__name__"), 0x12, 1, 0x74];
  const value = new Uint8Array(new Float64Array([1]).buffer);
  const sampleBody = [0x09, ...value, 0x10, ...varint(ms)];
  const series = [...label, 0x12, sampleBody.length, ...sampleBody];
  const request = [0x0a, series.length, ...series];
  return snappy.compress(new Uint8Array(request)) as Uint8Array;
}
/** an ExportLogsServiceRequest whose one record's body is an array value nested `depth` deep */
function nestedOtlpBody(depth: number): Uint8Array {
  const len = (n: number) => varint(BigInt(n));
  // each level: AnyValue{array_value(5): ArrayValue{values(1): <the level below>}}; sizes from the inside out
  const sizes: number[] = [];
  let size = 0;
  for (let i = 0; i < depth; i++) {
    const array = 1 + len(size).length + size;
    size = 1 + len(array).length + array;
    sizes.push(size);
  }
  const bytes: number[] = [];
  for (let i = depth - 1; i >= 0; i--) {
    const below = i > 0 ? sizes[i - 1]! : 0;
    bytes.push(0x2a, ...len(1 + len(below).length + below), 0x0a, ...len(below));
  }
  // LogRecord.body(5) in ScopeLogs.log_records(2) in ResourceLogs.scope_logs(2) in the request's resource_logs(1)
  const wrap = (tag: number, body: number[]) => {
    const out = [tag, ...len(body.length)];
    for (const b of body) out.push(b);
    return out;
  };
  return new Uint8Array(wrap(0x0a, wrap(0x12, wrap(0x12, wrap(0x2a, bytes)))));
}

/** an OTLP metrics histogram of `buckets` buckets whose point has 27 attributes of 2,000 characters, gzip (39 KB for 30,000 buckets) */
function wideHistogram(buckets: number): Uint8Array {
  const attrs: Record<string, string> = {};
  for (let i = 0; i < 27; i++) attrs[`a${i}`] = String.fromCharCode(97 + (i % 26)).repeat(2000);
  const t = Date.now();
  const points = [{ t, count: buckets, bounds: Array.from({ length: buckets }, (_, i) => i), counts: Array.from({ length: buckets + 1 }, () => 1), attrs }];
  return gzipSync(protobufBody(request({ "service.name": "attacker" }, [histogram("wide", "", points)])));
}

const OTLP_JSON = { "X-Scope-OrgID": "attacker", "Content-Type": "application/json" };

const protobufLogs = (seconds: string) =>
  snappy.compress(PushRequestType.encode(PushRequestType.fromObject({ streams: [{ labels: '{app="t"}', entries: [{ timestamp: { seconds, nanos: 0 }, line: "x" }] }] })).finish()) as Uint8Array;

export const ATTACKS: readonly Attack[] = [
  { name: "#0 6-byte snappy push (log store)", service: "logs", method: "POST", path: "/svc/api/v1/push", headers: PB, body: () => new Uint8Array([0x05, 0xfc, 0x00, 0x00, 0x00, 0x80]), expect: [400] },
  { name: "#0 6-byte snappy push (log store, /api/prom/push)", service: "logs", method: "POST", path: "/api/prom/push", headers: PB, body: () => new Uint8Array([0x05, 0xfc, 0x00, 0x00, 0x00, 0x80]), expect: [400] },
  { name: "#0 6-byte snappy remote write", service: "metrics", method: "POST", path: "/api/v1/push", headers: RW, body: () => new Uint8Array([0x05, 0xfc, 0x00, 0x00, 0x00, 0x80]), expect: [400] },
  { name: "#4 snappy bomb (declares 2 GiB in 7 bytes)", service: "metrics", method: "POST", path: "/api/v1/push", headers: RW, body: () => new Uint8Array([0xf0, 0xff, 0xff, 0xff, 0x07, 0x00, 0x00]), expect: [400, 413] },
  { name: "#5 gzip bomb (1 GiB of zeros) on log push", service: "logs", method: "POST", path: "/svc/api/v1/push", headers: { "X-Scope-OrgID": "attacker", "Content-Type": "application/json", "Content-Encoding": "gzip" }, body: () => gzipBomb(1024), expect: [400, 413] },
  { name: "#5 gzip bomb (1 GiB of zeros) on OTLP logs", service: "logs", method: "POST", path: "/otlp/v1/logs", headers: { "X-Scope-OrgID": "attacker", "Content-Type": "application/x-protobuf", "Content-Encoding": "gzip" }, body: () => gzipBomb(1024), expect: [400, 413] },
  {
    // 400k nested array values in 800 KB: each decoder level is a stack frame
    name: "#24 OTLP log body nested 400,000 AnyValues deep", service: "logs", method: "POST", path: "/otlp/v1/logs", headers: { "X-Scope-OrgID": "attacker", "Content-Type": "application/x-protobuf" },
    body: () => nestedOtlpBody(400_000), expect: [400, 413],
  },
  {
    name: "#24 OTLP/JSON log body nested 100,000 arrays deep", service: "logs", method: "POST", path: "/otlp/v1/logs", headers: { "X-Scope-OrgID": "attacker", "Content-Type": "application/json" },
    body: () => `{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":${'{"arrayValue":{"values":['.repeat(100_000)}${"]}}".repeat(100_000)}}]}]}]}`, expect: [400],
  },
  {
    // a time of 3e21 ms: target_info's samples once stepped by 150,000 ms, which did not move the time (306 bytes)
    name: "OTLP metrics data point at 3e27 ns (JSON number)", service: "metrics", method: "POST", path: "/otlp/v1/metrics", headers: OTLP_JSON,
    body: () => `{"resourceMetrics":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"a"}},{"key":"host.name","value":{"stringValue":"h"}}]},"scopeMetrics":[{"metrics":[{"name":"g","gauge":{"dataPoints":[{"timeUnixNano":3e27,"asDouble":1},{"timeUnixNano":"1700000000000000000","asDouble":2}]}}]}]}]}`,
    expect: [400],
  },
  {
    // each bucket's series copies the point's 54 KB of labels: 30,000 buckets are 1.6 GB of series from a small gzip body
    name: "OTLP metrics histogram of 30,000 buckets with 27 attributes of 2,000 characters (gzip)", service: "metrics", method: "POST", path: "/otlp/v1/metrics",
    headers: { ...PB, "Content-Encoding": "gzip" }, body: () => wideHistogram(30_000), expect: [413],
  },
  {
    // metadata once kept for metrics without data points, names of any length
    name: "OTLP metrics: 20 metrics without data points, each named 1 MB (gzip)", service: "metrics", method: "POST", path: "/otlp/v1/metrics",
    headers: { ...OTLP_JSON, "Content-Encoding": "gzip" },
    body: () => gzipSync(JSON.stringify({ resourceMetrics: [{ scopeMetrics: [{ metrics: Array.from({ length: 20 }, (_, i) => ({ name: `m${i}_${"x".repeat(1_000_000)}`, gauge: {} })) }] }] })),
    expect: [200],
  },
  { name: "#2 PromQL count_over_time(vector(1)[4d:10ms])", service: "metrics", method: "GET", path: `/prometheus/api/v1/query?query=${q("count_over_time(vector(1)[4d:10ms])")}`, headers: { "X-Scope-OrgID": "attacker" }, expect: [422] },
  {
    name: "#3 ReDoS LogQL {app=\"r\"} |~ \"(a|aa)+$\" over 20 lines", service: "logs", method: "GET",
    path: `/svc/api/v1/query_range?query=${q('{app="r"} |~ "(a|aa)+$"')}&since=1h&limit=100`, headers: { "X-Scope-OrgID": "attacker" },
    setup: (urls) => pushLogs(urls, "attacker", "r", Array.from({ length: 20 }, () => EVIL)), expect: [200],
  },
  {
    name: "#3 ReDoS PromQL up{x=~\"(a|aa)+\"} over 20 series", service: "metrics", method: "GET",
    path: `/prometheus/api/v1/query?query=${q('up{x=~"(a|aa)+"}')}`, headers: { "X-Scope-OrgID": "attacker" },
    // 20 distinct values: a matcher's answer is remembered per value
    setup: (urls) => pushSeries(urls, "attacker", Array.from({ length: 20 }, (_, i) => ({ __name__: "up", x: `${EVIL}${i}` }))), expect: [200],
  },
  { name: "#13 400-digit start on log query_range", service: "logs", method: "GET", path: `/svc/api/v1/query_range?query=${q('{app="r"}')}&start=${DIGITS_400}.5`, headers: { "X-Scope-OrgID": "attacker" }, expect: [400] },
  { name: "#13 400-digit since on log labels", service: "logs", method: "GET", path: `/svc/api/v1/labels?since=${DIGITS_400}d`, headers: { "X-Scope-OrgID": "attacker" }, expect: [400] },
  { name: "#14 log entry with seconds = 2^62", service: "logs", method: "POST", path: "/svc/api/v1/push", headers: PB, body: () => protobufLogs(String(2n ** 62n)), expect: [400] },
  { name: "#14 remote-write sample at int64 max", service: "metrics", method: "POST", path: "/api/v1/push", headers: RW, body: () => remoteWriteAt(2n ** 63n - 1n), expect: [400] },
  { name: "#14 remote-write sample at int64 min", service: "metrics", method: "POST", path: "/api/v1/push", headers: RW, body: () => remoteWriteAt(-(2n ** 63n)), expect: [400] },
  {
    name: "#15 lone surrogate in a pushed label value", service: "logs", method: "POST", path: "/svc/api/v1/push", headers: { "X-Scope-OrgID": "attacker", "Content-Type": "application/json" },
    body: () => `{"streams":[{"stream":{"job":"a\\udc00"},"values":[["${nowNs()}","x"]]}]}`, expect: [400],
  },
  { name: "#16 team with a 1 MiB name", service: "dashboard", method: "POST", path: "/api/teams", headers: { Authorization: ADMIN, "Content-Type": "application/json" }, body: () => JSON.stringify({ name: Array.from({ length: 1 << 20 }, (_, i) => String.fromCharCode(97 + ((i * 7919) % 26))).join("") }), expect: [400] },
  {
    name: "#17 /apis GET with resourceVersion=abc", service: "dashboard", method: "GET", path: "/apis/folder.svc.app/v1/namespaces/default/folders/attack-f?resourceVersion=abc", headers: { Authorization: ADMIN },
    setup: async (urls) => {
      await fetch(`${urls.dashboard}/apis/folder.svc.app/v1/namespaces/default/folders`, { method: "POST", headers: { Authorization: ADMIN, "Content-Type": "application/json" }, body: JSON.stringify({ metadata: { name: "attack-f" }, spec: { title: "attack" } }) });
    },
    // the real API server answers 400, or ignores the parameter on a single GET
    expect: [200, 400],
  },
  { name: "#18 PromQL fz_m[9999999999999999999y]", service: "metrics", method: "GET", path: `/prometheus/api/v1/query?query=${q("up[9999999999999999999y]")}`, headers: { "X-Scope-OrgID": "attacker" }, expect: [400] },
  { name: "#19 remote write truncated to its first byte", service: "metrics", method: "POST", path: "/api/v1/push", headers: RW, body: () => remoteWriteAt(BigInt(Date.now())).subarray(0, 1), expect: [400] },
  { name: "#19 remote write without its last byte", service: "metrics", method: "POST", path: "/api/v1/push", headers: RW, body: () => { const b = remoteWriteAt(BigInt(Date.now())); return b.subarray(0, b.length - 1); }, expect: [400] },
];

export interface ProbeStats {
  /** probes sent and how many got no answer in time (or a 5xx) */
  sent: number;
  failed: string[];
  maxMs: number;
  /** each probe's waits in ms, by probe name */
  ms: Record<string, number[]>;
  /** probes not sent because `maxInFlight` of their kind were still waiting */
  skipped: number;
}

export interface Probe { name: string; service: Service; init: () => RequestInit & { path: string }; ok: (status: number) => boolean }

/** what must keep answering while an attack runs: each listener, and a push from another tenant */
export const PROBES: Probe[] = [
  { name: "GET /api/health", service: "dashboard", init: () => ({ path: "/api/health" }), ok: (s) => s === 200 },
  { name: "GET logs /ready", service: "logs", init: () => ({ path: "/ready" }), ok: (s) => s === 200 },
  { name: "GET metrics /ready", service: "metrics", init: () => ({ path: "/ready" }), ok: (s) => s === 200 },
  {
    name: "push from another tenant", service: "logs", ok: (s) => s === 204,
    init: () => ({ path: "/svc/api/v1/push", method: "POST", headers: { "X-Scope-OrgID": "bystander", "Content-Type": "application/json" }, body: JSON.stringify({ streams: [{ stream: { app: "probe" }, values: [[nowNs(), "still here"]] }] }) }),
  },
];

/** probes every `everyMs` until stop() resolves; each probe has its own deadline */
export function startProbing(
  urls: Partial<Urls>,
  options: { everyMs: number; deadlineMs: number; probes?: Probe[]; maxInFlight?: number },
): { stop(): Promise<ProbeStats>; firstFailure: Promise<void> } {
  const probes = options.probes ?? PROBES;
  const stats: ProbeStats = { sent: 0, failed: [], maxMs: 0, ms: Object.fromEntries(probes.map((p) => [p.name, []])), skipped: 0 };
  const waiting = new Map<string, number>();
  let failedNow = () => {};
  const firstFailure = new Promise<void>((resolve) => { failedNow = resolve; });
  let running = true;
  const inFlight = new Set<Promise<void>>();
  const once = (p: Probe) => {
    if ((waiting.get(p.name) ?? 0) >= (options.maxInFlight ?? Infinity)) {
      stats.skipped++;
      return;
    }
    waiting.set(p.name, (waiting.get(p.name) ?? 0) + 1);
    const { path, ...init } = p.init();
    const t0 = performance.now();
    stats.sent++;
    const done = fetch(urls[p.service] + path, { ...init, signal: AbortSignal.timeout(options.deadlineMs) })
      .then(async (res) => {
        await res.arrayBuffer();
        if (!p.ok(res.status)) {
          stats.failed.push(`${p.name}: ${res.status}`);
          failedNow();
        }
      })
      .catch((err: unknown) => {
        stats.failed.push(`${p.name}: ${String((err as Error).name ?? err)} after ${Math.round(performance.now() - t0)} ms`);
        failedNow();
      })
      .finally(() => {
        const ms = performance.now() - t0;
        stats.maxMs = Math.max(stats.maxMs, ms);
        stats.ms[p.name]!.push(ms);
        waiting.set(p.name, waiting.get(p.name)! - 1);
        inFlight.delete(done);
      });
    inFlight.add(done);
  };
  const loop = (async () => {
    while (running) {
      for (const p of probes) once(p);
      await new Promise((r) => setTimeout(r, options.everyMs));
    }
  })();
  return {
    /** resolves when the first probe fails: the attack has already done its harm */
    firstFailure,
    async stop() {
      running = false;
      await loop;
      await Promise.all([...inFlight]);
      return stats;
    },
  };
}

/** sends one attack; the answer's status, or what went wrong. `giveUp` abandons it early (a probe already failed) */
export async function sendAttack(urls: Urls, attack: Attack, deadlineMs: number, giveUp?: Promise<void>): Promise<{ status?: number; error?: string; ms: number; text?: string }> {
  const body = attack.body ? await attack.body() : undefined;
  const t0 = performance.now();
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(new DOMException(`no answer within ${deadlineMs} ms`, "TimeoutError")), deadlineMs);
  void giveUp?.then(() => abort.abort(new DOMException("abandoned: a probe got no answer", "AbortError")));
  try {
    const res = await fetch(urls[attack.service] + attack.path, { method: attack.method, headers: attack.headers, body: body as BodyInit | undefined, signal: abort.signal });
    const text = await res.text();
    return { status: res.status, ms: performance.now() - t0, text: text.slice(0, 200) };
  } catch (err) {
    const reason = abort.signal.aborted ? (abort.signal.reason as Error).message : String((err as Error).name ?? err);
    return { error: reason, ms: performance.now() - t0 };
  } finally {
    clearTimeout(timer);
  }
}
