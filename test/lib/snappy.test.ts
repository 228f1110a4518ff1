// The checked snappy block decoder against a corpus of malformed streams
// (issue 16 #0, #4, #19): the review's exact bytes, every truncation of a
// valid block, hand-made out-of-bounds elements and seeded random
// corruptions. Each must be refused with a SnappyError, or decode to exactly
// its declared length; nothing may hang, throw anything else or allocate
// more than the limit.
import snappy from "snappyjs";
import { describe, expect, it } from "vitest";
import { SnappyError, snappyDecodedLength, snappyUncompress } from "../../src/lib/snappy.ts";
import { mulberry32 as random } from "../helpers/rng.ts";

const hex = (s: string) => Uint8Array.from(Buffer.from(s.replace(/\s/g, ""), "hex"));
const LIMIT = 100 * 1024 * 1024;


/** text with repeats (copies of every kind) and noise (literals) */
function sample(rnd: () => number, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = rnd() < 0.2 ? Math.floor(rnd() * 256) : 97 + Math.floor(rnd() * 4);
  return out;
}

function refusal(input: Uint8Array, limit = LIMIT): SnappyError {
  try {
    snappyUncompress(input, limit);
  } catch (err) {
    expect(err).toBeInstanceOf(SnappyError);
    return err as SnappyError;
  }
  throw new Error(`accepted ${Buffer.from(input).toString("hex")}`);
}

describe("snappy block decoder", () => {
  it("decodes what snappyjs compresses, byte for byte", () => {
    const rnd = random(1);
    for (const length of [0, 1, 15, 16, 60, 61, 255, 256, 65535, 65536, 70_000, 300_000]) {
      const data = sample(rnd, length);
      expect(Buffer.from(snappyUncompress(snappy.compress(data), LIMIT)).equals(Buffer.from(data))).toBe(true);
    }
  });

  it("overlapping copies repeat what they write (run-length)", () => {
    // literal "ab", then copy-1 of 11 bytes at offset 2
    expect(Buffer.from(snappyUncompress(hex("0d 04 61 62 1d 02"), LIMIT)).toString()).toBe("ababababababa");
  });

  it("the review's 6 bytes (a 4-byte literal length that turned negative) are corrupt input", () => {
    const e = refusal(hex("05 fc 00 00 00 80"));
    expect(e.message).toBe("snappy: corrupt input");
    expect(e.kind).toBe("corrupt");
  });

  it("the review's 7-byte bomb (2 GiB declared) is refused by its declared length, before allocating", () => {
    const bomb = hex("f0 ff ff ff 07 00 00");
    expect(snappyDecodedLength(bomb).length).toBe(2147483632);
    const e = refusal(bomb);
    expect(e.kind).toBe("too-large");
    expect(e.declared).toBe(2147483632);
    // with no limit, 2 bytes cannot honestly decode to 2 GiB: refused as corrupt, still without allocating
    expect(refusal(bomb, Number.POSITIVE_INFINITY).kind).toBe("corrupt");
  });

  it("refuses lengths and offsets outside the input or the output", () => {
    const cases: Record<string, string> = {
      "empty input": "",
      "unterminated varint": "ff ff",
      "overlong varint": "ff ff ff ff ff ff ff ff ff 7f",
      "declared length but no elements": "05",
      "literal longer than the input": "05 10 61",
      "literal longer than declared": "01 04 61 62",
      "literal length bytes missing": "05 f0",
      "4-byte literal length at 2^32-1": "05 fc ff ff ff ff 61",
      "copy before any output": "05 01 00",
      "copy offset 0": "05 00 61 01 00",
      "copy offset past the output": "08 00 61 01 05",
      "copy longer than declared": "03 00 61 09 01",
      "copy-2 offset bytes missing": "05 00 61 02 01",
      "copy-4 offset 0xffffffff (negative when signed)": "05 00 61 0f ff ff ff ff",
      "fewer bytes than declared": "05 08 61 62 63",
    };
    for (const [what, bytes] of Object.entries(cases)) {
      expect(refusal(hex(bytes)).message, what).toBe("snappy: corrupt input");
    }
    const huge = refusal(hex("ff ff ff ff 1f"), Number.POSITIVE_INFINITY);
    expect(huge.message).toBe("snappy: decoded block is too large");
  });

  it("refuses every truncation of a valid block", () => {
    const block = snappy.compress(sample(random(2), 5000));
    for (let n = 0; n < block.length; n++) {
      const e = refusal(block.subarray(0, n));
      expect(e.kind).toBe("corrupt");
    }
  });

  it("seeded random corruptions are refused or decode to exactly the declared length", () => {
    const rnd = random(3);
    const valid = snappy.compress(sample(rnd, 4000));
    let refused = 0;
    for (let i = 0; i < 3000; i++) {
      const input = Uint8Array.from(valid);
      const edits = 1 + Math.floor(rnd() * 4);
      for (let j = 0; j < edits; j++) input[Math.floor(rnd() * input.length)] = Math.floor(rnd() * 256);
      try {
        const out = snappyUncompress(input, 1 << 20);
        expect(out.length).toBe(snappyDecodedLength(input).length);
      } catch (err) {
        expect(err).toBeInstanceOf(SnappyError);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(0);
  });

  it("random garbage is refused or decoded, never anything else", () => {
    const rnd = random(4);
    for (let i = 0; i < 3000; i++) {
      const input = Uint8Array.from({ length: 1 + Math.floor(rnd() * 40) }, () => Math.floor(rnd() * 256));
      try {
        snappyUncompress(input, 1 << 20);
      } catch (err) {
        expect(err).toBeInstanceOf(SnappyError);
      }
    }
  });
});
