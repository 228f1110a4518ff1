// The decoded-item count of a protobuf body (src/lib/decoded-budget.ts): the
// messages of a shape, and the values of repeated 64-bit fields (each decoded
// into a Long by protobufjs), packed or not, charged one item per eight.
import protobuf from "protobufjs/light.js";
import { describe, expect, it } from "vitest";
import { countProtobufItems, FIXED64_VALUES, LEAF, VARINT_VALUES } from "../../src/lib/decoded-budget.ts";

const LIMIT = 1 << 30;

/** field 1: messages, each with field 6 (fixed64 values, packed) and field 2 (varint values) */
function body(messages: number, fixed: number[], varints: number[], packed: boolean): Uint8Array {
  const w = protobuf.Writer.create();
  for (let m = 0; m < messages; m++) {
    w.uint32(10).fork();
    if (packed) {
      w.uint32(50).fork();
      for (const v of fixed) w.fixed64(v);
      w.ldelim();
      w.uint32(18).fork();
      for (const v of varints) w.uint64(v);
      w.ldelim();
    } else {
      for (const v of fixed) w.uint32(49).fixed64(v);
      for (const v of varints) w.uint32(16).uint64(v);
    }
    w.uint32(58).string("skipped");
    w.ldelim();
  }
  return w.finish();
}

describe("countProtobufItems", () => {
  const shape = { 1: { 6: FIXED64_VALUES, 2: VARINT_VALUES } };

  it("counts the messages, and a repeated 64-bit field's values one item per eight, packed or not", () => {
    for (const packed of [true, false]) {
      // 3 messages; 3 × (16 + 8) values = 72 values = 9 items
      const buf = body(3, Array.from({ length: 16 }, (_, i) => i), [0, 1, 300, 70000, 2 ** 40, 5, 6, 7], packed);
      expect(countProtobufItems(buf, shape, LIMIT), packed ? "packed" : "unpacked").toBe(3 + 9);
    }
  });

  it("a field named LEAF is one item whatever it holds; fields not in the shape are skipped", () => {
    const buf = body(2, [1, 2, 3], [4], true);
    expect(countProtobufItems(buf, { 1: LEAF }, LIMIT)).toBe(2);
    expect(countProtobufItems(buf, {}, LIMIT)).toBe(0);
  });

  it("stops once over the limit, and refuses a length past the end", () => {
    const zeros = body(1, new Array(100_000).fill(0), [], true);
    const limit = zeros.length + 100 * 256;
    expect(countProtobufItems(zeros, shape, limit) * 256 + zeros.length).toBeGreaterThan(limit);
    expect(() => countProtobufItems(new Uint8Array([10, 5, 50, 200, 1]), shape, LIMIT)).toThrow(/index out of range/);
  });
});
