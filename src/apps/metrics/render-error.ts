// How the metrics store writes errors, as Mimir does: the Prometheus HTTP API
// (queries, /api/v1/rules, /api/v1/alerts) answers Prometheus-style JSON; the
// write path, the ruler's configuration API and the admin API answer plain
// text (Go's http.Error). A missing tenant is refused before any handler, so
// it is always plain text ("no org id").
import type { Context } from "hono";
import type { ApiError } from "../../lib/errors.ts";
import type { ErrorRenderer } from "../../lib/http/base-app.ts";
import { renderPrometheusError } from "../../lib/http/prometheus-errors.ts";
import { renderTextError } from "../../lib/http/text-errors.ts";

const QUERY_API = /^(\/prometheus)?\/api\/v1\/(query|query_range|query_exemplars|series|labels|label\/|metadata|status\/|format_query|admin\/tsdb\/)/;
// without the prefix, /api/v1/rules is the ruler's legacy configuration API (plain text)
const RULES_API = /^\/prometheus\/api\/v1\/(rules|alerts)/;

export function isPrometheusApi(path: string): boolean {
  return QUERY_API.test(path) || RULES_API.test(path);
}

export const renderMetricsError: ErrorRenderer = (c: Context, error: ApiError) =>
  error.status !== 401 && isPrometheusApi(c.req.path) ? renderPrometheusError(c, error) : renderTextError(c, error);
