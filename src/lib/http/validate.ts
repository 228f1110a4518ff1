// Request body validation with arktype: one call reads the JSON and checks
// it, and a failure is a 400 whose message names the field.
import type { Context } from "hono";
import { type } from "../arktype.ts";
import { ApiError } from "../errors.ts";
import { readJson } from "./base-app.ts";

export interface Validator<T> {
  (data: unknown): T | InstanceType<typeof type.errors>;
}

export function check<T>(schema: Validator<T>, data: unknown, prefix = "bad request data"): T {
  const out = schema(data);
  if (out instanceof type.errors) {
    throw new ApiError(400, `${prefix}: ${out.summary.split("\n").join("; ")}`, { messageId: "bad-request.invalid-field" });
  }
  return out;
}

/**
 * A body's top-level fields that are null, taken as absent, as Go servers read
 * them (a field left at its zero value): clients of the real product send
 * every unset field as null (grafana-client's `"panelId": null`). Nested
 * values are the caller's data and stay as sent.
 */
export function nullsAbsent(data: unknown): unknown {
  if (data === null || typeof data !== "object" || Array.isArray(data)) return data;
  let out: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(data)) {
    if (value !== null) continue;
    out ??= { ...(data as Record<string, unknown>) };
    delete out[key];
  }
  return out ?? data;
}

/** the body checked against a schema (top-level nulls absent: nullsAbsent); a top-level array is refused unless the route takes one */
export async function parseBody<T>(c: Context, schema: Validator<T>, options: { array?: boolean } = {}): Promise<T> {
  const data = nullsAbsent(await readJson(c));
  if (Array.isArray(data) && !options.array) throw new ApiError(400, "bad request data: the body must be a JSON object", { messageId: "bad-request.invalid-field" });
  return check(schema, data);
}
