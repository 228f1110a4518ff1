// POST /otlp/v1/metrics: OpenTelemetry metrics over OTLP/HTTP (protobuf or
// JSON, optionally gzip or deflate), as Mimir's OTLP endpoint serves them
// (pkg/distributor/otel.go): translated into series (core/otlp-translate.ts)
// and stored through remote write's own ingest, so validation, the series
// limits, the ingestion rate and the write-ahead log apply alike, with the
// same messages (docs/opentelemetry.md).
//
// Answers, in the request's encoding: 200 with an empty
// ExportMetricsServiceResponse when everything was stored; 200 with
// partial_success (the refused data points, and why) when some were refused
// but others stored, or when the ingester refused them (a series limit, a
// sample out of order: Mimir's soft errors); otherwise the refusal's status
// with a google.rpc.Status: 400 (nothing stored: an invalid series, a delta
// metric), 413, 415, 429 (the rate limit, with Retry-After), 503 (the
// decoder's worker ended on the body).
//
// rejected_data_points counts data points, not samples: those the
// translation refused, and those of which the store refused a series (a
// histogram point whose one bucket was refused is a refused point: it was
// not stored whole); target_info, made of no data point, counts none.
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { otlpAnswer, otlpEncodingOf, otlpHandler } from "../../../lib/otlp/http.ts";
import { ingest, ingestPacked } from "../core/ingest.ts";
import { decodeOtlpOn, otlpTooLarge } from "../core/otlp-decode.ts";
import type { OtlpSettings } from "../core/otlp-translate.ts";
import { unpackWriteRequest } from "../core/push-decode.ts";
import { OTLP_METRICS_PATH, type PushDeps, pushMemoryPacer, retryHeaders } from "./push-shared.ts";
import { tenantOf } from "./tenant.ts";

export interface OtlpPushDeps extends PushDeps {
  settings: OtlpSettings;
  /** a push decoded for a tenant, with its data points (the tenant's OTLP statistics) */
  otlpReceived(tenant: string, dataPoints: number): void;
}

const RESPONSE = "ExportMetricsServiceResponse";

/** Content-Encoding values the body may have (Mimir's are gzip and lz4; deflate is the log store's too) */
const COMPRESSIONS = new Set(["", "identity", "gzip", "deflate"]);

export function registerOtlpPush(app: Hono, deps: OtlpPushDeps): void {
  const paced = pushMemoryPacer();
  app.post(OTLP_METRICS_PATH, (c: Context) =>
    otlpHandler(c, async () => {
      const tenant = tenantOf(c, deps.gate, "metrics:write");
      const raw = new Uint8Array(await c.req.arrayBuffer());
      const compression = (c.req.header("Content-Encoding") ?? "").trim().toLowerCase();
      // Mimir's order: the size, then the compression, then the content type
      if (raw.length > deps.maxRecvMsgSize) throw otlpTooLarge(deps.maxRecvMsgSize, raw.length, compression !== "" && compression !== "identity");
      if (!COMPRESSIONS.has(compression)) {
        throw new ApiError(415, `unsupported compression: ${c.req.header("Content-Encoding")}. Only "gzip", "deflate", or no compression supported`);
      }
      const encoding = otlpEncodingOf(
        c.req.header("Content-Type"),
        (type) => new ApiError(415, `unsupported content type: ${type}, supported: [application/json, application/x-protobuf]`),
      );
      // a protobuf body of series decodes to several times its size, and comes back from the decoder as much again
      paced(raw.length * 8);
      const decoded = await decodeOtlpOn(deps.decoder, { body: raw, contentEncoding: compression, encoding, maxBytes: deps.maxRecvMsgSize, settings: deps.settings });
      deps.otlpReceived(tenant, decoded.dataPoints);
      if (decoded.dropped) deps.counters.discarded(tenant, "otlp_parse_error", decoded.dropped);
      // series the tenant's head knows by their labels' bytes are not decoded into strings again (a worker packed them)
      const known = (key: number, check: number) => deps.store.peek(tenant)?.findRaw(key, check) !== undefined;
      // the data points some of whose series the store refused
      const refusedPoints = new Set<number>();
      const refused = (series: number) => {
        const point = decoded.seriesPoints[series] ?? -1;
        if (point >= 0) refusedPoints.add(point);
      };
      const result =
        "packed" in decoded
          ? (ingestPacked(deps, tenant, decoded.packed, decoded.wal) ?? ingest(deps, tenant, unpackWriteRequest(decoded.packed, known), decoded.wal, refused))
          : ingest(deps, tenant, decoded.request, undefined, refused);
      if (result.appended) await deps.store.durable();
      if (result.appended) deps.gate.auth.wrote(c, result.appended, raw.length);
      if (result.status === 429) throw new ApiError(429, result.message ?? "", { headers: retryHeaders(c) });
      const parseError = decoded.errors ? `otlp parse error: ${decoded.errors}` : "";
      const message = [result.message ?? "", parseError].filter((m) => m !== "").join("; ");
      if (message === "") return otlpAnswer(c, RESPONSE, encoding, {});
      const rejected = decoded.dropped + refusedPoints.size;
      // nothing stored and something refused: the request is refused as a whole (not retryable), unless the
      // ingester refused it (Mimir's soft errors are partial successes)
      if (rejected > 0 && !result.appended && !result.soft) throw new ApiError(400, message);
      return otlpAnswer(c, RESPONSE, encoding, { partialSuccess: { rejectedDataPoints: String(rejected), errorMessage: message } });
    }),
  );
}
