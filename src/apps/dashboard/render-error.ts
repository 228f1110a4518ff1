// One ApiError, two bodies: the legacy /api family's JSON (plain {message}
// or the structured {message, messageId, statusCode, traceID} shape), and the
// Kubernetes Status object for /apis (reference §1.1, §6.3).
import type { Context } from "hono";
import { reasonOf, type ApiError } from "../../lib/errors.ts";
import { withHeaders } from "../../lib/http/base-app.ts";

export function renderDashboardError(c: Context, error: ApiError): Response {
  const status = error.status as 400;
  const body = c.req.path === "/apis" || c.req.path.startsWith("/apis/") ? statusObject(error) : legacyBody(error);
  return withHeaders(c.json(body, status), error);
}

function legacyBody(error: ApiError): Record<string, unknown> {
  const { messageId, extra, body } = error.options;
  if (!messageId) return { message: error.message, ...body };
  return {
    message: error.message,
    messageId,
    statusCode: error.status,
    traceID: "",
    ...(extra && Object.keys(extra).length ? { extra } : {}),
    ...body,
  };
}

function statusObject(error: ApiError): Record<string, unknown> {
  const { messageId, extra } = error.options;
  const causes = extra
    ? Object.entries(extra).map(([field, value]) => ({ field, message: JSON.stringify(value) }))
    : undefined;
  const details = {
    ...error.options.details,
    ...(messageId ? { uid: messageId } : {}),
    ...(causes?.length ? { causes } : {}),
  };
  return {
    kind: "Status",
    apiVersion: "v1",
    metadata: {},
    status: "Failure",
    message: error.message,
    reason: error.options.reason ?? reasonOf(error.status),
    ...(Object.keys(details).length ? { details } : {}),
    code: error.status,
  };
}
