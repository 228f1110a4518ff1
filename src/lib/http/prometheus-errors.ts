// The error body of Prometheus-compatible HTTP APIs (Loki, Mimir):
// {"status":"error","errorType":"bad_data","error":"..."}.
import type { Context } from "hono";
import type { ApiError } from "../errors.ts";
import { withHeaders, type ErrorRenderer } from "./base-app.ts";

export function errorTypeOf(status: number): string {
  if (status === 404) return "not_found";
  if (status === 422) return "execution";
  if (status === 503) return "unavailable";
  if (status === 429) return "too_many_requests";
  if (status >= 500) return "internal";
  return "bad_data";
}

export const renderPrometheusError: ErrorRenderer = (c: Context, error: ApiError) =>
  withHeaders(
    c.json({ status: "error", errorType: (error.options.body?.errorType as string | undefined) ?? errorTypeOf(error.status), error: error.message }, error.status as 400),
    error,
  );
