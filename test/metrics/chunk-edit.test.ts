// Taking a time range out of an XOR chunk (delete_series): the samples
// outside it come back bit for bit (a stale marker's NaN payload included),
// none in it leaves the chunk as it is, all in it leaves nothing.
import { describe, expect, it } from "vitest";
import { chunkWithout } from "../../src/apps/metrics/core/chunk-edit.ts";
import { STALE_HI, STALE_LO, WORD_HI } from "../../src/apps/metrics/core/head.ts";
import { decodeXorChunkBits, XorAppender } from "../../src/apps/metrics/core/xor-chunk.ts";

function chunkOf(n: number, staleAt: number): Uint8Array {
  const a = new XorAppender();
  for (let i = 0; i < n; i++) {
    if (i === staleAt) a.appendBits(i * 1000, STALE_HI, STALE_LO);
    else a.append(i * 1000, i * 1.5);
  }
  return a.bytes();
}

function decoded(data: Uint8Array) {
  const t = new Float64Array(200);
  const bits = new Uint32Array(400);
  const n = decodeXorChunkBits(data, t, bits, 0);
  return Array.from({ length: n }, (_, k) => [t[k]!, bits[2 * k + WORD_HI]!, bits[2 * k + 1 - WORD_HI]!]);
}

describe("chunkWithout", () => {
  it("keeps the samples outside the range, bit for bit, stale marker included", () => {
    const data = chunkOf(120, 100);
    const left = chunkWithout(data, 10_000, 49_999)!;
    const all = decoded(data);
    expect(left.samples).toBe(80);
    expect(left.removed).toBe(40);
    expect([left.minT, left.maxT]).toEqual([0, 119_000]);
    expect(decoded(left.data)).toEqual([...all.slice(0, 10), ...all.slice(50)]);
    expect(decoded(left.data)[60]).toEqual([100_000, STALE_HI, STALE_LO]);
  });

  it("a range at either end moves the chunk's first or last time", () => {
    const data = chunkOf(120, -1);
    expect(chunkWithout(data, -5, 29_000)).toMatchObject({ minT: 30_000, maxT: 119_000, samples: 90 });
    expect(chunkWithout(data, 90_000, 500_000)).toMatchObject({ minT: 0, maxT: 89_000, samples: 90 });
  });

  it("nothing in the range: undefined (unchanged); everything: null", () => {
    const data = chunkOf(10, -1);
    expect(chunkWithout(data, 500, 999)).toBeUndefined();
    expect(chunkWithout(data, 0, 9_000)).toBeNull();
  });
});
