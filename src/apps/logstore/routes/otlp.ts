// POST /otlp/v1/logs: OpenTelemetry log records (OTLP/HTTP, protobuf or JSON,
// optionally gzip) into the same ingest as a push (docs/opentelemetry.md).
// 200 with an ExportLogsServiceResponse; when some records were refused and
// others stored, its partial_success counts the refused and says why (the
// OTLP specification; the real log store answers 204, or 400 for a partial
// push). Nothing stored: the push's status (400, 429) with a google.rpc.Status.
import type { Context, Hono } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { answerEncoding, otlpAnswer, otlpHandler } from "../../../lib/otlp/http.ts";
import type { TaskRunner } from "../../../lib/tasks.ts";
import { memoryPacer } from "../../../platform/memory.ts";
import type { StoreAuth } from "../../../store-access/http.ts";
import { groupErrors, ingest, type IngestDeps } from "../core/ingest.ts";
import { decodeOtlpLogsOn } from "../core/push-tasks.ts";

export interface OtlpLogsDeps extends IngestDeps {
  /** OTLP resource attributes that are stream labels unless a tenant's otlp_config ignores them */
  defaultIndexLabels: readonly string[];
  /** records and bytes that arrived over OTLP, per tenant (core/user-stats.ts) */
  otlpReceived(tenant: string, lines: number, bytes: number): void;
}

const RESPONSE = "ExportLogsServiceResponse";

export function registerOtlpLogs(app: Hono, deps: OtlpLogsDeps, auth: StoreAuth, maxRecvMsgSize: number, decoder?: TaskRunner): void {
  const release = memoryPacer(8 * 1024 * 1024, 100);
  app.post("/otlp/v1/logs", (c: Context) =>
    otlpHandler(c, async () => {
      const tenant = auth.tenant(c, "logs:write");
      await deps.store.admit();
      const body = new Uint8Array(await c.req.arrayBuffer());
      release(body.length);
      const encoding = answerEncoding(c.req.header("Content-Type"));
      const limits = deps.limits(tenant);
      const logs = await decodeOtlpLogsOn(decoder, {
        body,
        contentType: c.req.header("Content-Type"),
        contentEncoding: c.req.header("Content-Encoding"),
        maxBytes: maxRecvMsgSize,
        config: limits.otlp_config,
        metadataCount: limits.max_structured_metadata_entries_count,
        metadataSize: limits.max_structured_metadata_size,
        defaultIndexLabels: deps.defaultIndexLabels,
        nowNs: BigInt(deps.now()) * 1_000_000n,
      });
      const errors = [...logs.errors];
      let refused = logs.refused;
      const offered = logs.streams.reduce((n, s) => n + s.entries.length, 0);
      if (offered > 0) {
        // the body is not a push: the write-ahead log keeps the entries as decoded
        const result = await ingest(deps, tenant, logs.streams);
        if (result.status === 429 && (result.refused ?? offered) >= offered) throw new ApiError(429, result.message ?? "");
        if (result.status !== 204) {
          refused += result.refused ?? 0;
          if (result.message) errors.push(result.message);
        }
        if (result.stored && result.stored.lines > 0) {
          auth.wrote(c, result.stored.lines, body.length);
          deps.otlpReceived(tenant, result.stored.lines, result.stored.bytes);
        }
      }
      // nothing stored of a request that had records: refused as a whole (not retryable)
      if (refused > 0 && refused >= logs.records) throw new ApiError(400, groupErrors(errors));
      if (refused > 0) return otlpAnswer(c, RESPONSE, encoding, { partialSuccess: { rejectedLogRecords: String(refused), errorMessage: groupErrors(errors) } });
      return otlpAnswer(c, RESPONSE, encoding, {});
    }),
  );
}
