// The real OpenTelemetry JS SDK (@opentelemetry/sdk-logs) with its OTLP/HTTP
// log exporters, JSON (exporter-logs-otlp-http) and protobuf
// (exporter-logs-otlp-proto), pointed at the log store's /otlp/v1/logs
// (issue 24): the records come back through LogQL with the resource's index
// labels, the rest as structured metadata, severity, trace and span ids,
// and object bodies as JSON lines.
import { context, trace, TraceFlags } from "@opentelemetry/api";
import { SeverityNumber } from "@opentelemetry/api-logs";
import { OTLPLogExporter as JsonExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPLogExporter as ProtoExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { LoggerProvider, SimpleLogRecordProcessor } from "@opentelemetry/sdk-logs";
import { describe, expect, it } from "vitest";
import { eventually } from "../helpers/eventually.ts";
import { useServer } from "../helpers/server.ts";
import { logClient } from "../logstore/helpers.ts";

const TRACE_ID = "5b8efff798038103d269b633813fc60c";
const SPAN_ID = "eee19b7ec3c1b174";

type Entry = [string, string, { structuredMetadata?: Record<string, string> }];
interface Result {
  stream: Record<string, string>;
  values: Entry[];
}

describe.each([
  ["JSON", (url: string, tenant: string) => new JsonExporter({ url, headers: { "X-Scope-OrgID": tenant } })],
  ["protobuf", (url: string, tenant: string) => new ProtoExporter({ url, headers: { "X-Scope-OrgID": tenant } })],
])("the OpenTelemetry SDK's OTLP/HTTP %s log exporter", (variant, exporterFor) => {
  const t = useServer();
  const tenant = `otel-${variant.toLowerCase()}`;

  it("sends records that come back through LogQL with labels, metadata and bodies", async () => {
    const exporter = exporterFor(`${t.server.urls.logs}/otlp/v1/logs`, tenant);
    const provider = new LoggerProvider({
      resource: resourceFromAttributes({ "service.name": `checkout-${variant}`, "k8s.namespace.name": "shop", "host.name": "node-7" }),
      processors: [new SimpleLogRecordProcessor({ exporter })],
    });
    const logger = provider.getLogger("payments", "2.1.0");
    const spanContext = { traceId: TRACE_ID, spanId: SPAN_ID, traceFlags: TraceFlags.SAMPLED };
    logger.emit({
      severityNumber: SeverityNumber.WARN,
      severityText: "WARN",
      body: "payment declined",
      attributes: { "http.route": "/pay", retries: 3 },
      context: trace.setSpanContext(context.active(), spanContext),
    });
    logger.emit({ severityNumber: SeverityNumber.INFO, severityText: "INFO", body: { order: 42, items: ["book"] } });
    await provider.forceFlush();
    await provider.shutdown();

    const logs = logClient(t.server.urls.logs!);
    let result: Result[] = [];
    await eventually(
      async () => {
        const r = await logs.get("/svc/api/v1/query_range", tenant, { query: `{service_name="checkout-${variant}"}`, since: "10m" }, { "X-Loki-Response-Encoding-Flags": "categorize-labels" });
        expect(r.status).toBe(200);
        return (r.body as { data: { result: Result[] } }).data.result;
      },
      (streams) => {
        result = streams;
        expect(streams.reduce((n, s) => n + s.values.length, 0)).toBe(2);
      },
    );
    expect(result).toHaveLength(1);
    expect(result[0]!.stream).toEqual({ service_name: `checkout-${variant}`, k8s_namespace_name: "shop" });
    const byLine = new Map(result[0]!.values.map((v) => [v[1], v[2].structuredMetadata ?? {}]));
    const declined = byLine.get("payment declined")!;
    expect(declined).toMatchObject({
      host_name: "node-7",
      http_route: "/pay",
      retries: "3",
      severity_text: "WARN",
      severity_number: String(SeverityNumber.WARN),
      trace_id: TRACE_ID,
      span_id: SPAN_ID,
      flags: "1",
      scope_name: "payments",
      scope_version: "2.1.0",
    });
    expect(declined.observed_timestamp).toMatch(/^\d{19}$/);
    const objectLine = [...byLine.keys()].find((l) => l.startsWith("{"))!;
    expect(JSON.parse(objectLine)).toEqual({ order: 42, items: ["book"] });
    expect(byLine.get(objectLine)).toMatchObject({ severity_text: "INFO", host_name: "node-7" });

    // the label filter and the metadata work in queries as for pushed lines
    const filtered = await logs.get("/svc/api/v1/query_range", tenant, { query: `{k8s_namespace_name="shop"} | trace_id="${TRACE_ID}"`, since: "10m" });
    expect(filtered.status).toBe(200);
    const lines = (filtered.body as { data: { result: Result[] } }).data.result.flatMap((s) => s.values.map((v) => v[1]));
    expect(lines).toEqual(["payment declined"]);
  });
});
