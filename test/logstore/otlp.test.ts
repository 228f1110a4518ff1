// POST /otlp/v1/logs through HTTP as a client sees it (issue 24): the
// encodings, refusals of bad bodies with a google.rpc.Status naming what
// failed, limits, partial success, tenants, per-tenant otlp_config, the
// default index labels and tokens mode. The real SDK's exporters are in
// test/e2e/otel-sdk-logs.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { otlpType } from "../../src/lib/otlp/proto.ts";
import { pollUntil } from "../helpers/eventually.ts";
import { useServer } from "../helpers/server.ts";
import { ADMIN_TOKEN, adminApi, basic } from "../store-access/helpers.ts";
import { logClient, nsAgo } from "./helpers.ts";

type Attrs = Record<string, string | number | boolean | Record<string, string>>;

const kv = (attrs: Attrs = {}) =>
  Object.entries(attrs).map(([key, v]) => ({
    key,
    value:
      typeof v === "string" ? { stringValue: v }
      : typeof v === "boolean" ? { boolValue: v }
      : typeof v === "number" ? (Number.isInteger(v) ? { intValue: String(v) } : { doubleValue: v })
      : { kvlistValue: { values: Object.entries(v).map(([k, s]) => ({ key: k, value: { stringValue: s } })) } },
  }));

interface RecordIn {
  body?: string;
  time?: string;
  attrs?: Attrs;
  severityText?: string;
}

/** an ExportLogsServiceRequest as OTLP/JSON writes it */
function request(resources: Array<{ attrs?: Attrs; records: RecordIn[]; scope?: { name: string; attrs?: Attrs } }>) {
  return {
    resourceLogs: resources.map((r) => ({
      resource: { attributes: kv(r.attrs) },
      scopeLogs: [
        {
          ...(r.scope ? { scope: { name: r.scope.name, attributes: kv(r.scope.attrs) } } : {}),
          logRecords: r.records.map((rec) => ({
            timeUnixNano: rec.time ?? nsAgo(1),
            ...(rec.body !== undefined ? { body: { stringValue: rec.body } } : {}),
            ...(rec.severityText ? { severityText: rec.severityText } : {}),
            attributes: kv(rec.attrs),
          })),
        },
      ],
    })),
  };
}

const protobuf = (json: ReturnType<typeof request>): Uint8Array => {
  const type = otlpType("ExportLogsServiceRequest");
  return type.encode(type.fromObject(json)).finish();
};

interface Sent {
  status: number;
  contentType: string | null;
  bytes: Uint8Array;
  json?: Record<string, unknown>;
}

async function send(base: string, body: string | Uint8Array, headers: Record<string, string>): Promise<Sent> {
  const res = await fetch(`${base}/otlp/v1/logs`, { method: "POST", headers, body: body as BodyInit });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const contentType = res.headers.get("Content-Type");
  const out: Sent = { status: res.status, contentType, bytes };
  if (contentType?.startsWith("application/json")) out.json = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  return out;
}

const sendJson = (base: string, tenant: string | undefined, json: unknown, extra: Record<string, string> = {}) =>
  send(base, JSON.stringify(json), { "Content-Type": "application/json", ...(tenant ? { "X-Scope-OrgID": tenant } : {}), ...extra });

/** a google.rpc.Status body of a protobuf answer */
const statusOf = (sent: Sent) => otlpType("Status").toObject(otlpType("Status").decode(sent.bytes)) as { code?: number; message?: string };

async function lines(base: string, tenant: string, query: string): Promise<Array<{ stream: Record<string, string>; line: string; metadata: Record<string, string> }>> {
  const r = await logClient(base).get("/svc/api/v1/query_range", tenant, { query, since: "1h" }, { "X-Loki-Response-Encoding-Flags": "categorize-labels" });
  expect(r.status).toBe(200);
  const result = (r.body as { data: { result: Array<{ stream: Record<string, string>; values: Array<[string, string, { structuredMetadata?: Record<string, string> }]> }> } }).data.result;
  return result.flatMap((s) => s.values.map((v) => ({ stream: s.stream, line: v[1], metadata: v[2]?.structuredMetadata ?? {} })));
}

const dir = mkdtempSync(join(tmpdir(), "outpost-otlp-logs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const runtime = join(dir, "runtime.yaml");
writeFileSync(
  runtime,
  [
    "overrides:",
    "  custom:",
    "    otlp_config:",
    "      resource_attributes:",
    "        attributes_config:",
    "          - action: index_label",
    "            attributes: [host.name]",
    "          - action: drop",
    "            regex: secret\\..*",
    "      log_attributes:",
    "        - action: index_label",
    "          attributes: [level]",
    "        - action: drop",
    "          attributes: [noise]",
    "      scope_attributes:",
    "        - action: drop",
    "          attributes: [scope.noise]",
    "      severity_text_as_label: true",
    "  bare:",
    "    otlp_config:",
    "      resource_attributes:",
    "        ignore_defaults: true",
    "        attributes_config:",
    "          - action: index_label",
    "            attributes: [team]",
    "  tiny:",
    "    ingestion_rate_mb: 0.0001",
    "    ingestion_burst_size_mb: 0.0001",
    "  onestream:",
    "    max_streams_per_user: 1",
    "  nometalimits:",
    "    max_structured_metadata_entries_count: 0",
    "    max_structured_metadata_size: 0B",
    "",
  ].join("\n"),
);

describe("OTLP logs: encodings and mapping", () => {
  const t = useServer({ "logs.runtime_config_file": runtime });
  const base = () => t.server.urls.logs!;

  it("JSON, protobuf and gzip bodies are stored alike, answered 200 with an empty ExportLogsServiceResponse in the request's encoding", async () => {
    const json = request([{ attrs: { "service.name": "enc", "deployment.environment": "prod" }, records: [{ body: "as json" }] }]);
    const a = await sendJson(base(), "enc", json);
    expect(a.status).toBe(200);
    expect(a.contentType).toBe("application/json");
    expect(a.json).toEqual({});
    const pb = request([{ attrs: { "service.name": "enc", "deployment.environment": "prod" }, records: [{ body: "as protobuf" }] }]);
    const b = await send(base(), protobuf(pb), { "Content-Type": "application/x-protobuf", "X-Scope-OrgID": "enc" });
    expect(b.status).toBe(200);
    expect(b.contentType).toBe("application/x-protobuf");
    expect(b.bytes.length).toBe(0);
    const gz = request([{ attrs: { "service.name": "enc", "deployment.environment": "prod" }, records: [{ body: "as gzip" }] }]);
    const c = await send(base(), gzipSync(protobuf(gz)), { "Content-Type": "application/x-protobuf", "Content-Encoding": "gzip", "X-Scope-OrgID": "enc" });
    expect(c.status).toBe(200);
    const got = await lines(base(), "enc", '{service_name="enc"}');
    expect(got.map((l) => l.line).sort()).toEqual(["as gzip", "as json", "as protobuf"]);
    expect(got[0]!.stream).toEqual({ service_name: "enc", deployment_environment: "prod" });
  });

  it("keeps nanosecond timestamps exactly, and gives records without one the observed time or the arrival time", async () => {
    const exact = "1795814072071924073";
    const now = BigInt(Date.now()) * 1_000_000n;
    const ts = String(now - 2_000_000_000n - (now % 1_000_000_000n) + BigInt(exact.slice(-9)));
    const json = request([{ attrs: { "service.name": "times" }, records: [{ body: "exact", time: ts }] }]);
    const observed = String(now - 5_000_000_000n + 123n);
    const rec = json.resourceLogs[0]!.scopeLogs[0]!.logRecords;
    rec.push({ timeUnixNano: "0", body: { stringValue: "observed only" }, attributes: [], observedTimeUnixNano: observed } as (typeof rec)[number]);
    rec.push({ body: { stringValue: "no time" }, attributes: [] } as unknown as (typeof rec)[number]);
    expect((await send(base(), protobuf(json), { "Content-Type": "application/x-protobuf", "X-Scope-OrgID": "times" })).status).toBe(200);
    const r = await logClient(base()).get("/svc/api/v1/query_range", "times", { query: '{service_name="times"}', since: "1h" });
    const values = (r.body as { data: { result: Array<{ values: Array<[string, string]> }> } }).data.result.flatMap((s) => s.values);
    const byLine = new Map(values.map(([t0, l]) => [l, t0]));
    expect(byLine.get("exact")).toBe(ts);
    expect(byLine.get("observed only")).toBe(observed);
    const arrival = BigInt(byLine.get("no time")!);
    expect(arrival > now - 60_000_000_000n && arrival < now + 60_000_000_000n).toBe(true);
  });

  it("a resource without service.name gets service_name=unknown_service; nested attributes are flattened with underscores", async () => {
    const json = request([{ attrs: { "k8s.pod.name": "pod-1", "custom.map": { "inner.key": "v" } }, records: [{ body: "nameless", attrs: { "user.id": 7, ok: true, ratio: 0.25 } }] }]);
    expect((await sendJson(base(), "nameless", json)).status).toBe(200);
    const [got] = await lines(base(), "nameless", '{service_name="unknown_service"}');
    expect(got!.stream).toEqual({ service_name: "unknown_service", k8s_pod_name: "pod-1" });
    expect(got!.metadata).toMatchObject({ custom_map_inner_key: "v", user_id: "7", ok: "true", ratio: "0.25" });
  });

  it("a tenant's otlp_config chooses index labels, metadata and drops; severity_text_as_label; ignore_defaults", async () => {
    const json = request([
      {
        attrs: { "service.name": "cfg", "host.name": "h1", "secret.token": "s3cr3t" },
        scope: { name: "lib", attrs: { "scope.noise": "x", "scope.keep": "y" } },
        records: [{ body: "configured", severityText: "ERROR", attrs: { level: "high", noise: "n", kept: "k" } }],
      },
    ]);
    expect((await sendJson(base(), "custom", json)).status).toBe(200);
    const [got] = await lines(base(), "custom", '{service_name="cfg"}');
    expect(got!.stream).toEqual({ service_name: "cfg", host_name: "h1", level: "high", severity_text: "ERROR" });
    expect(got!.metadata).toMatchObject({ kept: "k", scope_keep: "y", scope_name: "lib" });
    expect(Object.keys(got!.metadata)).not.toContain("secret_token");
    expect(Object.keys(got!.metadata)).not.toContain("noise");
    expect(Object.keys(got!.metadata)).not.toContain("scope_noise");

    // ignore_defaults: only the tenant's own rules make labels; service.name is then metadata
    expect((await sendJson(base(), "bare", request([{ attrs: { "service.name": "svc-a", "k8s.pod.name": "p", team: "t1" }, records: [{ body: "bare" }] }]))).status).toBe(200);
    const [plain] = await lines(base(), "bare", '{team="t1"}');
    expect(plain!.stream).toEqual({ team: "t1" });
    expect(plain!.metadata).toMatchObject({ service_name: "svc-a", k8s_pod_name: "p" });
    // no label at all is refused, as the real product refuses it
    const none = await sendJson(base(), "bare", request([{ attrs: { "service.name": "svc-a" }, records: [{ body: "unlabelled" }] }]));
    expect(none.status).toBe(400);
    expect(String(none.json!.message)).toMatch(/label/);
  });

  it("review B1: a resource's attributes copied onto many records cost what they make, not their bytes", async () => {
    const type = otlpType("ExportLogsServiceRequest");
    const attrs = Array.from({ length: 1000 }, (_, i) => ({ key: `a${i}`, value: { stringValue: "v" } }));
    const body = type.encode(type.fromObject({ resourceLogs: [{ resource: { attributes: attrs }, scopeLogs: [{ logRecords: Array.from({ length: 50_000 }, () => ({})) }] }] })).finish();
    expect(body.length).toBeLessThan(200 * 1024);
    // over the per-entry metadata count (128, the real product's): every record refused at once
    const limited = await send(base(), body, { "Content-Type": "application/x-protobuf", "X-Scope-OrgID": "amplify" });
    expect(limited.status).toBe(400);
    expect(statusOf(limited).message).toBe(
      "stream '{service_name=\"unknown_service\"}' has too many structured metadata labels: '1000', limit: '128'. Please see `limits_config.max_structured_metadata_entries_count` or contact your svc administrator to increase it.",
    );
    // without those limits, what the mapping makes is charged against max_recv_msg_size: 413, nothing built past it
    const unlimited = await send(base(), body, { "Content-Type": "application/x-protobuf", "X-Scope-OrgID": "nometalimits" });
    expect(unlimited.status).toBe(413);
    expect(statusOf(unlimited).message).toMatch(/^request body too large/);
  });

  it("the per-entry structured metadata limits hold for pushes too, with the real product's messages", async () => {
    const metadata = Object.fromEntries(Array.from({ length: 130 }, (_, i) => [`m${i}`, "v"]));
    const r = await logClient(base()).push("pushmeta", [{ stream: { app: "m" }, values: [[nsAgo(1), "too many", metadata], [nsAgo(1), "fine", { a: "b" }]] }]);
    expect(r.status).toBe(400);
    expect(r.text).toContain("stream '{app=\"m\"}' has too many structured metadata labels: '130', limit: '128'.");
    const big = await logClient(base()).push("pushmeta", [{ stream: { app: "m" }, values: [[nsAgo(1), "too large", { big: "x".repeat(70_000) }]] }]);
    expect(big.status).toBe(400);
    expect(big.text).toContain("has structured metadata too large: '70003' bytes, limit: '65536' bytes.");
    expect((await lines(base(), "pushmeta", '{app="m"}')).map((l) => l.line)).toEqual(["fine"]);
  });

  it("an empty request is a success with nothing stored", async () => {
    const r = await sendJson(base(), "empty", { resourceLogs: [] });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({});
  });
});

describe("OTLP logs: refusals", () => {
  const t = useServer({ "logs.runtime_config_file": runtime, "server.max_recv_msg_size": 64 * 1024 });
  const base = () => t.server.urls.logs!;

  it("another content type is a 400 naming it, with a google.rpc.Status body", async () => {
    const r = await send(base(), "hello", { "Content-Type": "text/plain", "X-Scope-OrgID": "bad" });
    expect(r.status).toBe(400);
    expect(statusOf(r).message).toBe("content type: text/plain is not supported");
    expect(statusOf(r).code).toBe(3);
  });

  it("a truncated protobuf body is a 400; unknown fields are skipped", async () => {
    const whole = protobuf(request([{ attrs: { "service.name": "trunc" }, records: [{ body: "x".repeat(50) }] }]));
    const r = await send(base(), whole.slice(0, whole.length - 10), { "Content-Type": "application/x-protobuf", "X-Scope-OrgID": "bad" });
    expect(r.status).toBe(400);
    expect(statusOf(r).message).toMatch(/cannot parse the OTLP protobuf body/);
    // field 99 (varint) at the top and inside the record: a newer sender's fields
    const withUnknown = new Uint8Array([...protobuf(request([{ attrs: { "service.name": "unknown-fields" }, records: [{ body: "still read" }] }])), 0x98, 0x06, 0x01]);
    const ok = await send(base(), withUnknown, { "Content-Type": "application/x-protobuf", "X-Scope-OrgID": "bad" });
    expect(ok.status).toBe(200);
    expect((await lines(base(), "bad", '{service_name="unknown-fields"}')).map((l) => l.line)).toEqual(["still read"]);
  });

  it("a JSON field of the wrong type is a 400 naming the field", async () => {
    const r = await sendJson(base(), "bad", { resourceLogs: [{ scopeLogs: [{ logRecords: [{ severityText: 5 }] }] }] });
    expect(r.status).toBe(400);
    expect(r.json!.message).toBe("invalid OTLP logs request: resourceLogs[0].scopeLogs[0].logRecords[0].severityText must be a string");
    const notJson = await send(base(), "{", { "Content-Type": "application/json", "X-Scope-OrgID": "bad" });
    expect(notJson.status).toBe(400);
    expect(String(notJson.json!.message)).toMatch(/cannot parse the OTLP\/JSON body/);
    const notList = await sendJson(base(), "bad", { resourceLogs: {} });
    expect(notList.status).toBe(400);
    expect(notList.json!.message).toBe("invalid OTLP logs request: resourceLogs.resourceLogs must be an array");
  });

  it("a body over max_recv_msg_size, as sent or once inflated, is a 413; so are many tiny records", async () => {
    const big = request([{ attrs: { "service.name": "big" }, records: [{ body: "y".repeat(70 * 1024) }] }]);
    expect((await sendJson(base(), "bad", big)).status).toBe(413);
    const bomb = gzipSync(JSON.stringify(big));
    expect(bomb.length).toBeLessThan(64 * 1024);
    expect((await send(base(), bomb, { "Content-Type": "application/json", "Content-Encoding": "gzip", "X-Scope-OrgID": "bad" })).status).toBe(413);
    // ~10k empty records: 2 bytes each on the wire (20 KB), far more once decoded
    const type = otlpType("ExportLogsServiceRequest");
    const empties = type.encode(type.fromObject({ resourceLogs: [{ scopeLogs: [{ logRecords: Array.from({ length: 10_000 }, () => ({})) }] }] })).finish();
    expect(empties.length).toBeLessThan(64 * 1024);
    const r = await send(base(), empties, { "Content-Type": "application/x-protobuf", "X-Scope-OrgID": "bad" });
    expect(r.status).toBe(413);
    expect(statusOf(r).message).toMatch(/^request body too large/);
  });

  it("no tenant is a 401 in OTLP's shape", async () => {
    const r = await sendJson(base(), undefined, request([{ records: [{ body: "x" }] }]));
    expect(r.status).toBe(401);
    expect(r.json!.message).toBe("no org id");
  });

  it("some records refused and others stored: 200 with partial_success counting the refused and saying why", async () => {
    const old = String((BigInt(Date.now()) - 30n * 24n * 3600n * 1000n) * 1_000_000n);
    const json = request([{ attrs: { "service.name": "partial" }, records: [{ body: "fresh" }, { body: "ancient", time: old }, { body: "ancient too", time: old }] }]);
    const r = await sendJson(base(), "partial", json);
    expect(r.status).toBe(200);
    const partial = r.json!.partialSuccess as { rejectedLogRecords: string; errorMessage: string };
    expect(partial.rejectedLogRecords).toBe("2");
    expect(partial.errorMessage).toContain("has timestamp too old");
    expect((await lines(base(), "partial", '{service_name="partial"}')).map((l) => l.line)).toEqual(["fresh"]);
    // the same in protobuf
    const pb = await send(base(), protobuf(json), { "Content-Type": "application/x-protobuf", "X-Scope-OrgID": "partial" });
    expect(pb.status).toBe(200);
    const response = otlpType("ExportLogsServiceResponse").toObject(otlpType("ExportLogsServiceResponse").decode(pb.bytes), { longs: String }) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } };
    expect(response.partialSuccess.rejectedLogRecords).toBe("2");
  });

  it("every record refused is a 400; the stream limit refuses the new streams as partial success", async () => {
    const old = String((BigInt(Date.now()) - 30n * 24n * 3600n * 1000n) * 1_000_000n);
    const all = await sendJson(base(), "partial", request([{ attrs: { "service.name": "none" }, records: [{ body: "ancient", time: old }] }]));
    expect(all.status).toBe(400);
    expect(String(all.json!.message)).toContain("has timestamp too old");
    const two = request([{ attrs: { "service.name": "first" }, records: [{ body: "1" }] }, { attrs: { "service.name": "second" }, records: [{ body: "2" }, { body: "3" }] }]);
    const r = await sendJson(base(), "onestream", two);
    expect(r.status).toBe(200);
    const partial = r.json!.partialSuccess as { rejectedLogRecords: string; errorMessage: string };
    expect(partial.rejectedLogRecords).toBe("2");
    expect(partial.errorMessage).toContain("Maximum active stream limit exceeded");
  });

  it("over the tenant's ingestion rate: 429 with the real product's message, nothing stored", async () => {
    const r = await sendJson(base(), "tiny", request([{ attrs: { "service.name": "rate" }, records: [{ body: "z".repeat(500) }] }]));
    expect(r.status).toBe(429);
    expect(String(r.json!.message)).toMatch(/^Ingestion rate limit exceeded for user tiny/);
    expect(await lines(base(), "tiny", '{service_name="rate"}')).toEqual([]);
  });

  it("review B2: an OTLP/JSON body of empty records is charged per object before it is parsed (413)", async () => {
    const text = `{"resourceLogs":[{"scopeLogs":[{"logRecords":[${Array.from({ length: 20_000 }, () => "{}").join(",")}]}]}]}`;
    expect(text.length).toBeLessThan(64 * 1024);
    const r = await send(base(), gzipSync(text), { "Content-Type": "application/json", "Content-Encoding": "gzip", "X-Scope-OrgID": "bad" });
    expect(r.status).toBe(413);
  });

  it("review B3: a nested attribute whose joined name passes 1,024 characters is refused, naming the field", async () => {
    const long = "k".repeat(600);
    const nested = { key: long, value: { kvlistValue: { values: [{ key: long, value: { stringValue: "leaf" } }] } } };
    const json = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: "x" }, attributes: [nested] }] }] }] };
    const r = await sendJson(base(), "bad", json);
    expect(r.status).toBe(400);
    expect(r.json!.message).toBe(
      "invalid OTLP logs request: resourceLogs[0].scopeLogs[0].logRecords[0].attributes[0].value.kvlistValue.values[0].key: the attribute's name is longer than 1024 characters once joined to its map's keys",
    );
  });

  it("review B5: times and integers outside their 64-bit ranges are refused, naming the field", async () => {
    const record = (extra: Record<string, unknown>) => ({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: "x" }, ...extra }] }] }] });
    const wrapped = await sendJson(base(), "bad", record({ timeUnixNano: String((1n << 64n) + BigInt(Date.now()) * 1_000_000n) }));
    expect(wrapped.status).toBe(400);
    expect(String(wrapped.json!.message)).toMatch(/^invalid OTLP logs request: resourceLogs\[0\]\.scopeLogs\[0\]\.logRecords\[0\]\.timeUnixNano: \d+ is not a 64-bit unsigned time$/);
    expect((await sendJson(base(), "bad", record({ timeUnixNano: "-1" }))).status).toBe(400);
    const big = await sendJson(base(), "bad", record({ attributes: [{ key: "n", value: { intValue: "99999999999999999999" } }] }));
    expect(big.status).toBe(400);
    expect(String(big.json!.message)).toContain("out of the int64 range");
  });

  it("review B6: a map body with a __proto__ key keeps it in the line", async () => {
    const json = { resourceLogs: [{ resource: { attributes: kv({ "service.name": "proto" }) }, scopeLogs: [{ logRecords: [{ timeUnixNano: nsAgo(1), body: { kvlistValue: { values: [{ key: "__proto__", value: { kvlistValue: { values: [{ key: "a", value: { stringValue: "kept" } }] } } }, { key: "b", value: { stringValue: "c" } }] } } }] }] }] };
    expect((await sendJson(base(), "protokey", json)).status).toBe(200);
    const [got] = await lines(base(), "protokey", '{service_name="proto"}');
    expect(JSON.parse(got!.line)).toEqual(JSON.parse('{"__proto__":{"a":"kept"},"b":"c"}'));
    // written as Go's json.Marshal writes pdata's map: keys sorted, <, > and & escaped
    const sorted = { resourceLogs: [{ resource: { attributes: kv({ "service.name": "proto" }) }, scopeLogs: [{ logRecords: [{ timeUnixNano: nsAgo(0.5), body: { kvlistValue: { values: [{ key: "z", value: { stringValue: "<b>&" } }, { key: "a", value: { intValue: "1" } }] } } }] }] }] };
    expect((await sendJson(base(), "protokey", sorted)).status).toBe(200);
    const all = (await lines(base(), "protokey", '{service_name="proto"}')).map((l) => l.line);
    expect(all).toContain('{"a":1,"z":"\\u003cb\\u003e\\u0026"}');
  });

  it("tenants are isolated", async () => {
    expect((await sendJson(base(), "tenant-a", request([{ attrs: { "service.name": "iso" }, records: [{ body: "a's secret" }] }]))).status).toBe(200);
    expect((await lines(base(), "tenant-a", '{service_name="iso"}')).map((l) => l.line)).toEqual(["a's secret"]);
    expect(await lines(base(), "tenant-b", '{service_name="iso"}')).toEqual([]);
  });
});

describe("OTLP logs: the default index labels and tokens mode", () => {
  const t = useServer({
    "logs.otlp.default_resource_attributes_as_index_labels": ["service.name", "team"],
    "logs.auth.type": "tokens",
    "metrics.admin_token": ADMIN_TOKEN,
  });

  it("the process's default list replaces the real product's", async () => {
    const admin = adminApi(t.server.urls.metrics!);
    await admin.policy("otlp-writer", ["ta"], ["logs:write", "logs:read"]);
    const token = await admin.token("otlp-writer", "otlp-writer");
    const auth = { Authorization: basic("ta", token) };
    const json = request([{ attrs: { "service.name": "defaults", team: "core", "k8s.pod.name": "p1" }, records: [{ body: "listed" }] }]);
    expect((await sendJson(t.server.urls.logs!, undefined, json, auth)).status).toBe(200);
    const r = await fetch(`${t.server.urls.logs}/svc/api/v1/query_range?${new URLSearchParams({ query: '{service_name="defaults"}', since: "1h" })}`, { headers: auth });
    const result = ((await r.json()) as { data: { result: Array<{ stream: Record<string, string> }> } }).data.result;
    expect(result[0]!.stream).toEqual({ service_name: "defaults", team: "core", k8s_pod_name: "p1" });
  });

  it("tokens mode: no token is a 401, a token without logs:write a 403, another tenant's a 403", async () => {
    const admin = adminApi(t.server.urls.metrics!);
    await admin.policy("otlp-reader", ["ta"], ["logs:read"]);
    const reader = await admin.token("otlp-reader", "otlp-reader");
    const json = request([{ attrs: { "service.name": "denied" }, records: [{ body: "x" }] }]);
    expect((await sendJson(t.server.urls.logs!, "ta", json)).status).toBe(401);
    const noScope = await sendJson(t.server.urls.logs!, undefined, json, { Authorization: basic("ta", reader) });
    expect(noScope.status).toBe(403);
    await admin.policy("otlp-other", ["tb"], ["logs:write"]);
    const other = await admin.token("otlp-other", "otlp-other");
    expect((await sendJson(t.server.urls.logs!, "ta", json, { Authorization: `Bearer ${other}` })).status).toBe(403);
    expect(await pollUntil(async () => true)).toBe(true);
  });
});
