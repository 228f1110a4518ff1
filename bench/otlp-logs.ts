// OTLP log ingest against the compiled binary (issue 24), beside the Loki
// push of the same lines in the same run: batches of 1,000 records of ~200
// bytes over 100 resources (= 100 streams: service.name × service.instance.id),
// each record with two attributes, 8 requests in flight, SECONDS_PER_RUN (20)
// seconds per shape: Loki push JSON (its lines carry the same two values as
// structured metadata), OTLP protobuf, OTLP JSON. Figures: records/s and MB/s of
// lines per shape, and OTLP over push as a ratio.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { otlpType } from "../src/lib/otlp/proto.ts";
import { report, startBinary, stopBinary } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");
const SECONDS = Number(process.env.SECONDS_PER_RUN ?? 20);
const CONCURRENCY = 8;
const RECORDS = 1000;
const RESOURCES = 100;
const filler = "x".repeat(150);

const dir = mkdtempSync(join(tmpdir(), "outpost-bench-otlp-logs-"));
const server = await startBinary(binary, [
  "serve", "--data-dir", join(dir, "data"), "--http-port", "0", "--logs-port", "0", "--no-metrics", "--log-level", "warn",
  "--logs-ingestion-rate-mb", "100000", "--logs-ingestion-burst-size-mb", "100000",
], 2);

interface Batch {
  body: string | Uint8Array;
  bytes: number;
}

let seq = 0;
function lines() {
  const now = BigInt(Date.now()) * 1_000_000n;
  const per = RECORDS / RESOURCES;
  return Array.from({ length: RESOURCES }, (_, r) =>
    Array.from({ length: per }, (_, i) => {
      const n = seq++;
      return { ts: String(now + BigInt(i)), line: `level=info seq=${n} resource=${r} msg="request handled" ${filler}`, route: `/api/${r % 7}`, status: 200 + (n % 3) };
    }),
  );
}
const size = (rs: ReturnType<typeof lines>) => rs.reduce((a, r) => a + r.reduce((b, l) => b + l.line.length, 0), 0);

function pushBatch(): Batch {
  const rs = lines();
  const streams = rs.map((r, i) => ({
    stream: { service_name: `app-${i % 10}`, service_instance_id: `i-${i}` },
    values: r.map((l) => [l.ts, l.line, { http_route: l.route, http_status: String(l.status) }]),
  }));
  return { body: JSON.stringify({ streams }), bytes: size(rs) };
}

function otlpRequest() {
  const rs = lines();
  return {
    bytes: size(rs),
    request: {
      resourceLogs: rs.map((r, i) => ({
        resource: { attributes: [{ key: "service.name", value: { stringValue: `app-${i % 10}` } }, { key: "service.instance.id", value: { stringValue: `i-${i}` } }] },
        scopeLogs: [{
          logRecords: r.map((l) => ({
            timeUnixNano: l.ts,
            body: { stringValue: l.line },
            attributes: [{ key: "http.route", value: { stringValue: l.route } }, { key: "http.status", value: { intValue: String(l.status) } }],
          })),
        }],
      })),
    },
  };
}

const LogsRequest = otlpType("ExportLogsServiceRequest");
const otlpProtobuf = (): Batch => {
  const { request, bytes } = otlpRequest();
  return { body: LogsRequest.encode(LogsRequest.fromObject(request)).finish(), bytes };
};
const otlpJson = (): Batch => {
  const { request, bytes } = otlpRequest();
  return { body: JSON.stringify(request), bytes };
};

async function run(what: string, path: string, contentType: string, make: () => Batch, okStatus: number) {
  // bodies are made before the clock starts: the figure is the server's, not the encoder's
  const bodies = Array.from({ length: 16 }, make);
  let records = 0;
  let bytes = 0;
  let failures = 0;
  let next = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < deadline) {
        const b = bodies[next++ % bodies.length]!;
        const res = await fetch(`${server.urls.logs}${path}`, { method: "POST", headers: { "Content-Type": contentType, "X-Scope-OrgID": `bench-${what.replace(/[^a-zA-Z]+/g, "-")}` }, body: b.body as BodyInit });
        const answer = await res.arrayBuffer();
        if (res.status === okStatus) {
          records += RECORDS;
          bytes += b.bytes;
        } else if (failures++ === 0) console.log(`${what}: first failure ${res.status} ${new TextDecoder().decode(answer).slice(0, 300)}`);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const perSecond = records / elapsed;
  console.log(`${what}: ${Math.round(perSecond)} records/s, ${(bytes / 1e6 / elapsed).toFixed(1)} MB/s of lines, ${failures} failed`);
  report.figure(`${what}: records per second`, perSecond, "records/s", null, { failed: failures, mbPerSecond: bytes / 1e6 / elapsed });
  return perSecond;
}

try {
  const push = await run("Loki push, JSON", "/svc/api/v1/push", "application/json", pushBatch, 204);
  const pb = await run("OTLP, protobuf", "/otlp/v1/logs", "application/x-protobuf", otlpProtobuf, 200);
  const json = await run("OTLP, JSON", "/otlp/v1/logs", "application/json", otlpJson, 200);
  console.log(`OTLP protobuf / push: ${(pb / push).toFixed(2)}, OTLP JSON / push: ${(json / push).toFixed(2)}`);
  report.figure("OTLP protobuf records/s over Loki push JSON records/s", pb / push, "ratio", null);
  report.figure("OTLP JSON records/s over Loki push JSON records/s", json / push, "ratio", null);
} finally {
  await stopBinary(server.child);
  rmSync(dir, { recursive: true, force: true });
}
report.save();
