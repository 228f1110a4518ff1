// Fuzz: malformed parameters, tenant headers and push bodies (JSON, protobuf,
// snappy, gzip, wrong content types) against every endpoint of the log store
// and the metrics store. No answer may be 5xx (but the documented 503 of a
// limit), every request is answered within the deadline, and /api/health,
// both /ready are 200 at the end. FUZZ_SEED repeats a run.
import { beforeAll, describe, expect, it } from "vitest";
import { gzipSync } from "node:zlib";
import snappy from "snappyjs";
import { encodeWriteRequest } from "../../src/apps/metrics/core/remote-write.ts";
import { PushRequestType } from "../../src/apps/logstore/core/push-decode.ts";
import { createRng, seedFromEnv, type Rng } from "./support/prng.ts";
import { body, fillPath, query, request, snappyish, type Route } from "./support/requests.ts";
import { EXPRESSIONS, LOG_STORE_ROUTES, METRICS_STORE_ROUTES } from "./support/store-routes.ts";
import { ADMIN_TOKEN, report, run, unhealthy, useTarget, type FuzzRequest } from "./support/target.ts";
import { DIGITS_400, encodeLoosely, jsonText, nastyString, randomBytes, urlPiece } from "./support/values.ts";

const SEED = seedFromEnv(1617);
const SCALE = Number(process.env.FUZZ_SCALE ?? 1);
/** requests per endpoint: the log store has few endpoints, the metrics store many */
const PER_ROUTE = { logs: Math.max(1, Math.round(24 * SCALE)), metrics: Math.max(1, Math.round(8 * SCALE)) };
const ADMIN = `Basic ${btoa(`:${ADMIN_TOKEN}`)}`;
const nowNs = () => `${BigInt(Date.now()) * 1_000_000n}`;

const STORE_QUERY_KEYS = ["query", "start", "end", "time", "since", "step", "interval", "limit", "direction", "match[]", "metric", "lookback_delta", "timeout", "stats", "query", "start", "end", "since"];

function storeQuery(rng: Rng): string {
  if (rng.chance(0.5)) return query(rng, STORE_QUERY_KEYS);
  // one well-formed parameter set with a single bad value: the value reaches the parser behind the first check
  const params: Array<[string, string]> = [["query", encodeLoosely(rng.pick(EXPRESSIONS))], ["start", "1700000000"], ["end", "1700000600"], ["step", "60"], ["time", "1700000300"], ["since", "1h"], ["limit", "10"], ["match[]", encodeLoosely('{job="fz"}')]];
  const i = rng.int(params.length);
  params[i] = [params[i]![0], rng.chance(0.5) ? rng.pick([DIGITS_400, `${DIGITS_400}.5`, `${DIGITS_400}d`, "1.5.5", "NaN", "-1", "1e309", "9223372036854775807"]) : urlPiece(rng)];
  return `?${params.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join("&")}`;
}

const TIMESTAMPS = ["1", "-1", "0", nowNs(), `${DIGITS_400}`, "1.5", "9223372036854775807", "18446744073709551616", `${2n ** 62n * 1_000_000_000n}`, "abc", ""];

function logPushBody(rng: Rng): { kind: string; body: Uint8Array | string; headers: Record<string, string> } {
  const r = rng.next();
  const labels = rng.chance(0.5) ? { job: "fz", x: nastyString(rng).slice(0, 2000) } : { job: "fz" };
  const ts = rng.pick(TIMESTAMPS);
  if (r < 0.3) {
    const stream = rng.chance(0.3) ? jsonText(rng) : JSON.stringify(labels);
    const values = rng.chance(0.3) ? jsonText(rng) : `[[${JSON.stringify(ts)},${JSON.stringify(nastyString(rng))}]]`;
    const text = `{"streams":[{"stream":${stream},"values":${values}}]}`;
    return rng.chance(0.3)
      ? { kind: "json-gzip", body: gzipSync(text), headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" } }
      : { kind: "json", body: text, headers: { "Content-Type": rng.pick(["application/json", "application/json", "text/plain", "application/json; charset=utf-16"]) } };
  }
  if (r < 0.5) {
    try {
      const labels = rng.chance(0.5) ? rng.pick(['{job="a", job="b"}', "{", "{job=}", '{job="\\xff"}', "", '{a="b"} extra', '{job="fz"}']) : `{job="fz", x=${JSON.stringify(nastyString(rng).slice(0, 500))}}`;
      const seconds = rng.pick(["1", "-1", "0", String(Math.floor(Date.now() / 1000)), String(2n ** 62n), "9223372036854775807", "-9223372036854775808"]);
      const message = PushRequestType.fromObject({ streams: [{ labels, entries: [{ timestamp: { seconds, nanos: rng.pick([0, -1, 999_999_999, 2e9]) }, line: nastyString(rng).slice(0, 5000) }] }] });
      return { kind: "protobuf", body: snappy.compress(PushRequestType.encode(message).finish()) as Uint8Array, headers: { "Content-Type": "application/x-protobuf" } };
    } catch {
      return { kind: "protobuf", body: randomBytes(rng, 30), headers: { "Content-Type": "application/x-protobuf" } };
    }
  }
  if (r < 0.75) {
    const s = snappyish(rng);
    return { kind: `protobuf ${s.kind}`, body: s.body, headers: { "Content-Type": "application/x-protobuf" } };
  }
  if (r < 0.85) {
    const inner = randomBytes(rng, 1 + rng.int(200));
    return { kind: "gzip-garbage", body: rng.chance(0.5) ? gzipSync(inner) : gzipSync(inner).subarray(0, 15), headers: { "Content-Type": rng.pick(["application/json", "application/x-protobuf"]), "Content-Encoding": "gzip" } };
  }
  return body(rng);
}

function remoteWriteBody(rng: Rng): { kind: string; body: Uint8Array | string; headers: Record<string, string> } {
  const headers = { "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy", "X-Prometheus-Remote-Write-Version": "0.1.0" };
  const r = rng.next();
  if (r < 0.4) {
    const name = rng.chance(0.7) ? "fz_m" : nastyString(rng).slice(0, 300);
    const extra = rng.chance(0.5) ? [{ name: rng.chance(0.5) ? "job" : nastyString(rng).slice(0, 100), value: nastyString(rng).slice(0, 3000) }] : [{ name: "job", value: "fz" }];
    const ts = rng.pick([Date.now(), -1, 0, 1.5, Number.MAX_SAFE_INTEGER, "9223372036854775807", "-9223372036854775808", 2 ** 62]) as number;
    const value = rng.pick([1, NaN, Infinity, -Infinity, 1e308, -0]);
    try {
      const pb = encodeWriteRequest({ timeseries: [{ labels: [{ name: "__name__", value: name }, ...extra], samples: [{ timestampMs: ts, value }] }] });
      return { kind: "remote-write", body: pb, headers };
    } catch {
      return { kind: "remote-write", body: randomBytes(rng, 20), headers };
    }
  }
  if (r < 0.8) {
    const s = snappyish(rng);
    return { kind: s.kind, body: s.body, headers: rng.chance(0.8) ? headers : { "Content-Type": rng.pick(["application/json", "text/plain", "application/x-protobuf;proto=io.prometheus.write.v2.Request"]) } };
  }
  if (r < 0.9) return { kind: "gzip-garbage", body: gzipSync(randomBytes(rng, 50)), headers: { ...headers, "Content-Encoding": rng.pick(["gzip", "deflate", "zstd", "identity", "snappy, gzip"]) } };
  return body(rng);
}

function ruleBody(rng: Rng): { kind: string; body: string; headers: Record<string, string> } {
  const expr = rng.pick(EXPRESSIONS);
  const texts = [
    `name: g\nrules:\n  - record: fz:r\n    expr: ${JSON.stringify(expr)}\n`,
    `name: ${JSON.stringify(nastyString(rng).slice(0, 500))}\ninterval: ${rng.pick(["1s", "0s", "-1m", `${DIGITS_400}s`, "abc"])}\nrules:\n  - alert: A\n    expr: up\n    for: ${rng.pick(["5m", DIGITS_400, "-1s"])}\n    annotations:\n      a: ${JSON.stringify(rng.pick(["{{", "{{ .Foo | nope }}", "{{ $value }}"]))}\n`,
    "name: [", "&a [*a, *a]", `a: ${"[".repeat(200)}`, "{}", "", "\u0000", "rules: 1", "- a\n- b",
    `name: g\nrules:\n${"  - record: r\n    expr: up\n".repeat(300)}`,
  ];
  return { kind: "yaml", body: rng.pick(texts), headers: { "Content-Type": rng.pick(["application/yaml", "application/json", "text/plain"]) } };
}

function tenantHeaders(rng: Rng, route: Route): { kind: string; headers: Record<string, string> } {
  if (route.path.startsWith("/admin/")) {
    return rng.chance(0.7) ? { kind: "admin", headers: { Authorization: ADMIN } } : { kind: "anon", headers: rng.chance(0.5) ? {} : { Authorization: rng.pick(["Basic %%%", `Basic ${btoa("x:y")}`, "Bearer x", `Basic ${btoa(":")}`]) } };
  }
  const r = rng.next();
  if (r < 0.75) return { kind: "tenant", headers: { "X-Scope-OrgID": "fuzz" } };
  if (r < 0.85) return { kind: "no-tenant", headers: {} };
  return { kind: "bad-tenant", headers: { "X-Scope-OrgID": rng.pick(["", "..", "a|b", "fuzz|other", "fuzz|fuzz", "x".repeat(2000), "a/b", "\u00ff", " ", "fuzz,other", "__proto__"]) } };
}

function* storeRequests(rng: Rng, routes: Route[]): Generator<FuzzRequest> {
  for (let i = 0; i < PER_ROUTE[routes[0]!.service as "logs" | "metrics"]; i++) {
    for (const route of routes) {
      const who = tenantHeaders(rng, route);
      const isPush = route.path.endsWith("/push");
      const b = isPush
        ? route.service === "logs" ? logPushBody(rng) : remoteWriteBody(rng)
        : route.path.includes("/rules/") && route.method === "POST" ? ruleBody(rng)
        : route.method === "POST" && rng.chance(0.5) ? { kind: "form", body: storeQuery(rng).slice(1), headers: { "Content-Type": "application/x-www-form-urlencoded" } }
        : route.path.startsWith("/admin/") ? { kind: "json", body: rng.chance(0.5) ? jsonText(rng) : JSON.stringify({ name: rng.chance(0.5) ? `fz${rng.int(1e6)}` : nastyString(rng).slice(0, 3000), display_name: nastyString(rng).slice(0, 300), limits: { ingestion_rate: rng.pick([-1, 1e309, "x", 0]) } }).replace("1e309", DIGITS_400), headers: { "Content-Type": "application/json" } }
        : body(rng);
      const path = fillPath(rng, route.path, { name: ["job", "__name__", "fuzz"], namespace: ["ns"], group: ["g"] }) + (isPush ? "" : storeQuery(rng));
      yield request(route, { path, headers: { ...who.headers, ...b.headers }, body: b.body, input: `${who.kind} ${b.kind}` });
    }
  }
}

describe("fuzz: log store and metrics store", () => {
  const t = useTarget();
  beforeAll(async () => {
    const target = t.target;
    // a tenant with data, so queries have something to read
    const m = target.url("metrics");
    await fetch(`${m}/admin/api/v2/tenants`, { method: "POST", headers: { Authorization: ADMIN, "Content-Type": "application/json" }, body: JSON.stringify({ name: "fuzz" }) });
    const pb = encodeWriteRequest({ timeseries: [{ labels: [{ name: "__name__", value: "fz_m" }, { name: "job", value: "fz" }], samples: [{ timestampMs: Date.now() - 60_000, value: 1 }, { timestampMs: Date.now(), value: 2 }] }] });
    await fetch(`${m}/api/v1/push`, { method: "POST", headers: { "X-Scope-OrgID": "fuzz", "Content-Type": "application/x-protobuf", "Content-Encoding": "snappy" }, body: pb });
    await fetch(`${target.url("logs")}/svc/api/v1/push`, { method: "POST", headers: { "X-Scope-OrgID": "fuzz", "Content-Type": "application/json" }, body: JSON.stringify({ streams: [{ stream: { job: "fz" }, values: [[nowNs(), 'a=1 msg="hello"'], [nowNs(), '{"a":"b"}']] }] }) });
  }, 120_000);

  for (const [name, routes] of [["log store", LOG_STORE_ROUTES], ["metrics store", METRICS_STORE_ROUTES]] as const) {
    it(`every ${name} endpoint answers malformed input with a non-5xx status, in time`, async () => {
      const target = t.target;
      const rng = createRng(SEED + (name === "log store" ? 0 : 1));
      const result = await run(target, storeRequests(rng, routes));
      const text = report(`${name} fuzz`, SEED, result);
      console.log(text);
      expect(await unhealthy(target), text).toEqual([]);
      expect(result.failures.length, text).toBe(0);
    }, 600_000);
  }
});
