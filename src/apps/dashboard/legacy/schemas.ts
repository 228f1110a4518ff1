// Shared pieces of request schemas.
import { type } from "../../../lib/arktype.ts";

/** a row id: a positive Postgres integer */
export const dbId = type("0 < number.integer <= 2147483647").describe("a positive whole number (at most 2147483647)");

/** a JSON object: arrays are objects to arktype's Record, so they are refused here */
export const jsonObject = type("Record<string, unknown>").narrow((v, ctx) => !Array.isArray(v) || ctx.mustBe("a JSON object"));
