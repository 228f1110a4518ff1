// Shared pieces of request schemas.
import { type } from "arktype";

/** a row id: a positive Postgres integer */
export const dbId = type("0 < number.integer <= 2147483647").describe("a positive whole number (at most 2147483647)");
