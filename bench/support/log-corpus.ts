// The log corpus of bench/logs-scale.ts (issue 18): a deterministic mix of
// logfmt, JSON and plain lines (~200 bytes) with a real vocabulary, over 100
// streams (20 services x 5 pods), timestamps spread evenly over a span, one
// rare needle token per 100,000 lines and a rare long duration for a regex
// that must read every line. Generated one batch at a time: nothing holds the
// whole corpus.
import { mulberry32 } from "../../test/helpers/rng.ts";

/** in exactly one line of every NEEDLE_EVERY (a trace id no other line can contain) */
export const NEEDLE = "needle-zq81v";
export const NEEDLE_EVERY = 100_000;
/** the full-scan regex (RE2 and POSIX ERE alike): only common literals ("duration"), matched by ~1 line in 50,000 */
export const RARE_REGEX = 'duration=[0-9]{5,}ms|"duration_ms":[0-9]{5,}';
const RARE_EVERY = 50_000;

export type Format = "logfmt" | "json" | "plain";

interface Service { name: string; namespace: string; format: Format; kind?: "nginx" | "postgres" | "kafka" }

/** 20 services: logfmt in "core", JSON in "payments" (the json query's selector), plain in "edge" and "data" */
export const SERVICES: Service[] = [
  ...["api-gateway", "auth", "users", "search", "catalog", "inventory", "notifications", "scheduler"].map((name) => ({ name, namespace: "core", format: "logfmt" as const })),
  ...["payments", "billing", "checkout", "fraud", "ledger", "refunds", "invoices"].map((name) => ({ name, namespace: "payments", format: "json" as const })),
  { name: "ingress-nginx", namespace: "edge", format: "plain", kind: "nginx" },
  { name: "cdn-cache", namespace: "edge", format: "plain", kind: "nginx" },
  { name: "postgres", namespace: "data", format: "plain", kind: "postgres" },
  { name: "kafka-connect", namespace: "data", format: "plain", kind: "kafka" },
  { name: "orders-db", namespace: "data", format: "plain", kind: "postgres" },
];
export const PODS_PER_SERVICE = 5;
/** the selector of the JSON streams */
export const JSON_SELECTOR = '{namespace="payments"}';

const METHODS = ["GET", "GET", "GET", "GET", "POST", "POST", "PUT", "DELETE", "PATCH"];
const RESOURCES = ["users", "orders", "carts", "products", "sessions", "invoices", "charges", "refunds", "shipments", "reviews", "search", "tokens"];
const AGENTS = [
  "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36",
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
  "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
  "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148",
  "curl/8.4.0", "Go-http-client/2.0", "okhttp/4.12.0", "kube-probe/1.28", "Prometheus/2.48.0", "python-requests/2.31.0",
];
const INFO_MSGS = ["request handled", "request completed", "cache hit", "cache miss", "user authenticated", "session refreshed", "order created", "item reserved", "message published", "job finished", "token issued", "query executed"];
const WARN_MSGS = ["slow request", "retrying upstream call", "rate limit approaching", "deprecated API version used", "connection pool saturated"];
const ERRORS = [
  "dial tcp 10.0.3.17:5432: connect: connection refused", "context deadline exceeded", "upstream connect error or disconnect/reset before headers",
  "read tcp 10.0.1.4:44312->10.0.2.9:6379: i/o timeout", "pq: duplicate key value violates unique constraint \\\"orders_pkey\\\"",
  "rpc error: code = Unavailable desc = transport is closing", "EOF", "invalid token: signature is invalid", "payment declined: insufficient funds",
];
const CALLERS = ["handler.go:142", "server.go:88", "middleware.go:57", "client.go:213", "repository.go:301", "worker.go:76", "cache.go:44"];
const TABLES = ["orders", "users", "payments", "sessions", "inventory", "events"];

export interface Entry {
  stream: number;
  tsNs: string;
  line: string;
  /** the line holds NEEDLE */
  needle: boolean;
  /** the line matches RARE_REGEX */
  rare: boolean;
}

export interface StreamLabels { job: string; namespace: string; pod: string; container: string }

/** the labels of stream `i` (0..99) */
export function streamLabels(i: number): StreamLabels {
  const svc = SERVICES[Math.floor(i / PODS_PER_SERVICE)]!;
  const r = mulberry32(1000 + i);
  const hex = Math.floor(r() * 0xffffff).toString(16).padStart(6, "0");
  const suffix = Math.floor(r() * 36 ** 5).toString(36).padStart(5, "0");
  return { job: `${svc.namespace}/${svc.name}`, namespace: svc.namespace, pod: `${svc.name}-${hex}-${suffix}`, container: svc.name };
}
export const STREAMS = SERVICES.length * PODS_PER_SERVICE;

/** the corpus as lines in time order, each with its stream and timestamp; `lines` of them spread over [startMs, startMs + spanMs) */
export class Corpus {
  private readonly r: () => number;
  private i = 0;
  private secCache = { sec: -1, iso: "", clf: "", pg: "", kafka: "" };

  constructor(readonly startMs: number, readonly spanMs: number, readonly lines: number, seed = 18) {
    this.r = mulberry32(seed);
  }

  get produced(): number { return this.i; }

  private pick<T>(a: readonly T[]): T { return a[Math.floor(this.r() * a.length)]!; }
  private int(n: number): number { return Math.floor(this.r() * n); }
  private hex(chars: number): string {
    let s = "";
    while (s.length < chars) s += Math.floor(this.r() * 0x100000000).toString(16).padStart(8, "0");
    return s.slice(0, chars);
  }
  private ip(): string { return `10.${this.int(4)}.${this.int(256)}.${1 + this.int(254)}`; }
  private level(): "info" | "warn" | "error" | "debug" {
    const x = this.r();
    return x < 0.03 ? "error" : x < 0.09 ? "warn" : x < 0.2 ? "debug" : "info";
  }
  /** ms, log-normal-ish and below 10 s, but 10 s or more in one line of RARE_EVERY */
  private duration(i: number): number {
    if (i % RARE_EVERY === RARE_EVERY / 2) return 10_000 + this.int(50_000);
    return Math.min(9_999, Math.max(1, Math.round(Math.exp(this.r() * 5 + this.r() * 2))));
  }
  private path(): string {
    const res = this.pick(RESOURCES);
    const x = this.r();
    return x < 0.5 ? `/api/v1/${res}/${this.int(100_000)}` : x < 0.8 ? `/api/v1/${res}` : `/api/v2/${res}/${this.hex(8)}/items`;
  }
  private status(level: string): number {
    if (level === "error") return this.pick([500, 502, 503, 504]);
    if (level === "warn") return this.pick([400, 401, 403, 404, 429]);
    return this.r() < 0.9 ? 200 : this.pick([201, 204, 301, 304]);
  }
  private times(ms: number) {
    const sec = Math.floor(ms / 1000);
    const c = this.secCache;
    if (c.sec !== sec) {
      const d = new Date(sec * 1000);
      const iso = d.toISOString().slice(0, 19);
      const mon = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][d.getUTCMonth()]!;
      const p = (n: number) => String(n).padStart(2, "0");
      this.secCache = {
        sec, iso,
        clf: `${p(d.getUTCDate())}/${mon}/${d.getUTCFullYear()}:${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())} +0000`,
        pg: iso.replace("T", " "), kafka: iso.replace("T", " "),
      };
    }
    const frac = String(Math.floor(ms % 1000)).padStart(3, "0");
    return { ...this.secCache, frac };
  }

  /** the next entry, or undefined after `lines` of them */
  next(): Entry | undefined {
    if (this.i >= this.lines) return undefined;
    const i = this.i++;
    const t = this.startMs + (i * this.spanMs) / this.lines;
    const ms = Math.floor(t);
    const tsNs = `${ms}${String(Math.floor((t - ms) * 1e6)).padStart(6, "0")}`;
    const stream = this.int(STREAMS);
    const svc = SERVICES[Math.floor(stream / PODS_PER_SERVICE)]!;
    const trace = i % NEEDLE_EVERY === NEEDLE_EVERY - 1 ? NEEDLE : this.hex(16);
    const tm = this.times(ms);
    const level = this.level();
    const dur = this.duration(i);
    let line: string;
    // only logfmt's duration= and JSON's "duration_ms" can match RARE_REGEX
    let rare = false;
    if (svc.format === "logfmt") {
      rare = dur >= 10_000;
      const msg = level === "error" ? `msg="upstream request failed" err="${this.pick(ERRORS)}"` : level === "warn" ? `msg="${this.pick(WARN_MSGS)}"` : `msg="${this.pick(INFO_MSGS)}"`;
      line = `ts=${tm.iso}.${tm.frac}Z level=${level} caller=${this.pick(CALLERS)} ${msg} method=${this.pick(METHODS)} path=${this.path()} status=${this.status(level)} duration=${dur}ms remote_ip=${this.ip()} user_id=u${100_000 + this.int(900_000)} trace_id=${trace}`;
    } else if (svc.format === "json") {
      // 3% of a JSON service's lines are plain (a panic's or a stack trace's), as real ones are
      if (this.r() < 0.03) line = `goroutine ${this.int(5000)} [running]: main.(*Server).handle(0xc000${this.hex(6)}, {0x${this.hex(6)}, 0xc000${this.hex(6)}}) trace=${trace} /app/server.go:${this.int(400)} +0x${this.hex(3)}`;
      else {
        rare = dur >= 10_000;
        const msg = level === "error" ? `"msg":"charge failed","error":"${this.pick(ERRORS)}"` : `"msg":"${this.pick(INFO_MSGS)}"`;
        line = `{"ts":"${tm.iso}.${tm.frac}Z","level":"${level}",${msg},"method":"${this.pick(METHODS)}","path":"${this.path()}","status":${this.status(level)},"duration_ms":${dur},"amount_cents":${this.int(100_000)},"customer":"cus_${this.hex(10)}","trace_id":"${trace}"}`;
      }
    } else if (svc.kind === "nginx") {
      const st = this.status(level);
      line = `${this.ip()} - - [${tm.clf}] "${this.pick(METHODS)} ${this.path()} HTTP/1.1" ${st} ${this.int(80_000)} "https://shop.example.com/" "${this.pick(AGENTS)}" ${(dur / 1000).toFixed(3)} req_id=${trace}`;
    } else if (svc.kind === "postgres") {
      const pgLevel = level === "error" ? "ERROR" : level === "warn" ? "WARNING" : "LOG";
      const what = level === "error" ? `duplicate key value violates unique constraint "${this.pick(TABLES)}_pkey"` : `duration: ${(this.r() * dur).toFixed(3)} ms  statement: SELECT * FROM ${this.pick(TABLES)} WHERE id = ${this.int(1_000_000)}`;
      line = `${tm.pg}.${tm.frac} UTC [${1000 + this.int(30_000)}] app=${this.pick(SERVICES).name} ${pgLevel}:  ${what} /* trace=${trace} */`;
    } else {
      const kLevel = level === "error" ? "ERROR" : level === "warn" ? "WARN" : "INFO";
      line = `[${tm.kafka},${tm.frac}] ${kLevel} [Worker clientId=connect-${1 + this.int(3)}, groupId=connect-cluster] Committing offsets for ${this.int(5000)} acknowledged messages (org.apache.kafka.connect.runtime.WorkerSourceTask:${this.int(600)}) trace=${trace}`;
    }
    return { stream, tsNs, line, needle: trace === NEEDLE, rare };
  }
}
