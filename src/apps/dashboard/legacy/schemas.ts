// Shared pieces of request schemas, and of reading query parameters.
import type { Context } from "hono";
import { type } from "../../../lib/arktype.ts";
import { positiveInt } from "../../../lib/http/query.ts";
import type { PageQuery } from "../core/identity/user-lists.ts";

/** a row id: a positive Postgres integer */
export const dbId = type("0 < number.integer <= 2147483647").describe("a positive whole number (at most 2147483647)");

/** a JSON object: arrays are objects to arktype's Record, so they are refused here */
export const jsonObject = type("Record<string, unknown>").narrow((v, ctx) => !Array.isArray(v) || ctx.mustBe("a JSON object"));

/** perpage defaults to 1000 and page to 1, as in the real product (values below 1 take the default) */
export function pageQuery(c: Context): PageQuery {
  return {
    query: c.req.query("query") ?? "",
    page: positiveInt(c.req.query("page"), 1),
    perPage: positiveInt(c.req.query("perpage"), 1000),
  };
}
