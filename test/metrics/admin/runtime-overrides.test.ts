// The runtime overrides reader shared by the log and metrics stores: what a
// file may say, checked against the defaults' keys and types.
import { describe, expect, it } from "vitest";
import { durationValue, floatValue, oneOf, parseOverrides, sizeValue } from "../../../src/lib/runtime-overrides.ts";

const defaults = { rate: 4, count: 10, size: 1024, age: 60_000, on: true, mode: "global" };
const converters = { rate: floatValue, size: sizeValue, age: durationValue, mode: oneOf("global", "local") };
const parse = (doc: unknown) => parseOverrides(doc, defaults, converters);

describe("runtime overrides", () => {
  it("converts sizes, durations, rates and words, per tenant", () => {
    const out = parse({ overrides: { a: { rate: 1.5, size: "2KiB", age: "1h", on: false, mode: "local" }, b: { count: 3 } } });
    expect(out.get("a")).toEqual({ rate: 1.5, size: 2048, age: 3_600_000, on: false, mode: "local" });
    expect(out.get("b")).toEqual({ count: 3 });
  });

  it("an empty document, or one without overrides, has none", () => {
    expect(parse(null).size).toBe(0);
    expect(parse({}).size).toBe(0);
    expect(parse({ overrides: null }).size).toBe(0);
  });

  const refused: Array<[string, unknown, string]> = [
    ["a document that is not a map", "text", "the file must be a map"],
    ["overrides that are a list", { overrides: [1] }, "overrides must be a map of tenant to limits"],
    ["a tenant that is not a map", { overrides: { a: 3 } }, "overrides.a must be a map of limits"],
    ["an unknown key", { overrides: { a: { nope: 1 } } }, "overrides.a.nope is not a limit"],
    ["a fraction where the default is whole", { overrides: { a: { count: 1.5 } } }, "overrides.a.count: 1.5 is not a valid value"],
    ["a negative number", { overrides: { a: { rate: -1 } } }, "overrides.a.rate: -1 is not a valid value"],
    ["a number as text", { overrides: { a: { count: "3" } } }, "overrides.a.count"],
    ["a duration without a unit", { overrides: { a: { age: 5 } } }, "overrides.a.age"],
    ["a bad size", { overrides: { a: { size: "lots" } } }, "overrides.a.size"],
    ["a word not allowed", { overrides: { a: { mode: "both" } } }, "overrides.a.mode"],
    ["a boolean as text", { overrides: { a: { on: "yes" } } }, "overrides.a.on"],
  ];
  for (const [what, doc, message] of refused) {
    it(`refuses ${what}`, () => {
      expect(() => parse(doc)).toThrow(message);
    });
  }
});
