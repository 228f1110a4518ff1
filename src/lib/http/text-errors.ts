// Plain-text error bodies, as Go's http.Error writes them (the log store's
// real counterpart answers its errors this way): the message and a newline.
import type { Context } from "hono";
import type { ApiError } from "../errors.ts";
import { withHeaders, type ErrorRenderer } from "./base-app.ts";

export const renderTextError: ErrorRenderer = (c: Context, error: ApiError) =>
  withHeaders(
    c.text(`${error.message}\n`, error.status as 400, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" }),
    error,
  );
