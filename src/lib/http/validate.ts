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

/** the body checked against a schema; a top-level array is refused unless the route takes one */
export async function parseBody<T>(c: Context, schema: Validator<T>, options: { array?: boolean } = {}): Promise<T> {
  const data = await readJson(c);
  if (Array.isArray(data) && !options.array) throw new ApiError(400, "bad request data: the body must be a JSON object", { messageId: "bad-request.invalid-field" });
  return check(schema, data);
}
