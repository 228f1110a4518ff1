import { describe, expect, it } from "vitest";
import { decodeXorChunk, decodeXorChunkInto, encodeXorChunk, MAX_XOR_CHUNK_SAMPLES, XorAppender, xorChunkSamples } from "../../src/apps/metrics/core/xor-chunk.ts";
import { mulberry32 as rng } from "../helpers/rng.ts";

// Values are compared as bit patterns: JavaScriptCore (bun test) canonicalises a
// NaN read out of a typed array, so NaN payloads are set and checked through
// Uint32Array views, never through Numbers.
const LE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const HI = LE ? 1 : 0;
const LO = LE ? 0 : 1;

function valuesFromBits(bits: bigint[]): Float64Array {
  const f = new Float64Array(bits.length);
  const u = new Uint32Array(f.buffer);
  bits.forEach((b, i) => {
    u[2 * i + HI] = Number(b >> 32n);
    u[2 * i + LO] = Number(b & 0xffffffffn);
  });
  return f;
}

function bitsOf(f: Float64Array): bigint[] {
  const u = new Uint32Array(f.buffer, f.byteOffset, f.length * 2);
  return Array.from({ length: f.length }, (_, i) => (BigInt(u[2 * i + HI]!) << 32n) | BigInt(u[2 * i + LO]!));
}

function hex(b: Uint8Array): string {
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** packs a string of 0/1 (spaces ignored) MSB first, zero-padding the last byte */
function packBits(s: string): number[] {
  const bits = s.replace(/\s+/g, "");
  const out: number[] = [];
  for (let i = 0; i < bits.length; i += 8) out.push(parseInt(bits.slice(i, i + 8).padEnd(8, "0"), 2));
  return out;
}

/**
 * A second, deliberately naive encoder (BigInt, bit strings) written straight
 * from Prometheus's xorAppender.Append / writeVDelta, to check the fast one.
 */
function referenceEncode(ts: number[], vbits: bigint[]): Uint8Array {
  let s = "";
  const put = (v: bigint, n: number) => {
    if (n > 0) s += BigInt.asUintN(n, v).toString(2).padStart(n, "0");
  };
  const uvarint = (u: bigint) => {
    for (; u >= 128n; u >>= 7n) put((u & 127n) | 128n, 8);
    put(u, 8);
  };
  const inBits = (x: bigint, n: number) => -((1n << BigInt(n - 1)) - 1n) <= x && x <= 1n << BigInt(n - 1);
  let prevT = 0n;
  let prevDelta = 0n;
  let prevV = 0n;
  let L = 0xff;
  let T = 0;
  ts.forEach((tn, i) => {
    const t = BigInt(tn);
    const v = vbits[i]!;
    if (i === 0) {
      uvarint(BigInt.asUintN(64, (t << 1n) ^ (t >> 63n)));
      put(v, 64);
    } else {
      const delta = t - prevT;
      if (i === 1) uvarint(delta);
      else {
        const dod = delta - prevDelta;
        if (dod === 0n) put(0n, 1);
        else if (inBits(dod, 14)) (put(0b10n, 2), put(dod, 14));
        else if (inBits(dod, 17)) (put(0b110n, 3), put(dod, 17));
        else if (inBits(dod, 20)) (put(0b1110n, 4), put(dod, 20));
        else (put(0b1111n, 4), put(dod, 64));
      }
      prevDelta = delta;
      const x = v ^ prevV;
      if (x === 0n) put(0n, 1);
      else {
        put(1n, 1);
        const b = x.toString(2);
        let leading = 64 - b.length;
        const trailing = b.length - 1 - b.lastIndexOf("1");
        if (leading >= 32) leading = 31;
        if (L !== 0xff && leading >= L && trailing >= T) {
          put(0n, 1);
          put(x >> BigInt(T), 64 - L - T);
        } else {
          L = leading;
          T = trailing;
          const sig = 64 - leading - trailing;
          put(1n, 1);
          put(BigInt(leading), 5);
          put(BigInt(sig), 6);
          put(x >> BigInt(trailing), sig);
        }
      }
    }
    prevT = t;
    prevV = v;
  });
  return Uint8Array.from([ts.length >> 8, ts.length & 0xff, ...packBits(s)]);
}


const F = (x: number) => {
  const f = new Float64Array([x]);
  return bitsOf(f)[0]!;
};
const STALE = 0x7ff0000000000002n;
const SPECIALS = [F(NaN), STALE, F(Infinity), F(-Infinity), F(-0), F(0), 0xfff8000000000001n, 0x7ff0000000000001n, 0xffffffffffffffffn, 1n, F(Number.MAX_VALUE), F(Number.MIN_VALUE)];

type Series = { name: string; t: number[]; v: bigint[] };

function timestamps(kind: string, n: number, r: () => number): number[] {
  const t: number[] = [];
  let cur = kind === "negative" ? -1_700_000_000_000 - Math.floor(r() * 1e9) : 1_700_000_000_000 + Math.floor(r() * 1e9);
  if (kind === "huge") cur = 2 ** 52 + Math.floor(r() * 1e6);
  for (let i = 0; i < n; i++) {
    t.push(cur);
    switch (kind) {
      case "regular":
        cur += 15_000;
        break;
      case "jitter":
      case "negative":
        cur += 15_000 + Math.floor((r() - 0.5) * 200);
        break;
      case "irregular":
        cur += Math.floor(r() * 100_000);
        break;
      case "duplicates":
        cur += r() < 0.3 ? 0 : 1 + Math.floor(r() * 3);
        break;
      case "buckets": {
        // deltas of delta landing in every bucket, both signs, at and past each edge
        const edges = [0, 1, -1, 8191, 8192, -8191, -8192, 8193, 65535, 65536, -65535, -65536, 65537, 524287, 524288, -524287, -524288, 524289, 2 ** 31, 2 ** 33 + 7, 2 ** 40];
        const e = edges[Math.floor(r() * edges.length)]!;
        cur += 600_000 + e * (r() < 0.5 ? 1 : 0); // alternating big/small deltas flips the dod's sign
        break;
      }
      case "jumps":
        cur += r() < 0.1 ? Math.floor(r() * 2 ** 45) : 15_000;
        break;
      case "huge":
        cur += Math.floor(r() * 2 ** 30);
        break;
    }
  }
  return t;
}

function values(kind: string, n: number, r: () => number): bigint[] {
  const v: number[] = [];
  let acc = Math.floor(r() * 1000);
  for (let i = 0; i < n; i++) {
    switch (kind) {
      case "integers":
        v.push(Math.floor((r() - 0.5) * 2 ** 40));
        break;
      case "floats":
        v.push((r() - 0.5) * 10 ** Math.floor(r() * 20 - 10));
        break;
      case "constant":
        v.push(42.5);
        break;
      case "counter":
        acc += Math.floor(r() * 100);
        v.push(acc);
        break;
      case "float-counter":
        acc += r() * 3.7;
        v.push(acc);
        break;
      case "gauge":
      case "gauge-nan":
        v.push(Math.round(50 + 30 * Math.sin(i / 10) + r() * 5) / 4);
        break;
    }
  }
  const bits = v.map(F);
  if (kind === "specials") return Array.from({ length: n }, () => SPECIALS[Math.floor(r() * SPECIALS.length)]!);
  if (kind === "raw") return Array.from({ length: n }, () => (BigInt(Math.floor(r() * 2 ** 32)) << 32n) | BigInt(Math.floor(r() * 2 ** 32)));
  if (kind === "gauge-nan") return bits.map((b) => (r() < 0.15 ? SPECIALS[Math.floor(r() * 6)]! : b));
  return bits;
}

function randomSeries(): Series[] {
  const r = rng(20240611);
  const out: Series[] = [];
  const tk = ["regular", "jitter", "irregular", "duplicates", "buckets", "jumps", "negative", "huge"];
  const vk = ["integers", "floats", "constant", "counter", "float-counter", "gauge", "gauge-nan", "specials", "raw"];
  for (const a of tk)
    for (const b of vk)
      for (const n of [1, 2, 3, 120, 700]) out.push({ name: `${a}/${b}/${n}`, t: timestamps(a, n, r), v: values(b, n, r) });
  return out;
}

describe("XOR chunk", () => {
  it("encodes a small chunk exactly as worked out by hand from the format", () => {
    // (1000, 1.0), (2000, 1.0), (3000, 2.0)
    //   00 03                    count
    //   d0 0f                    varint(1000): zig-zag 2000 = 0b1111_1010000 → 0x80|0x50, 0x0f
    //   3f f0 00 00 00 00 00 00  1.0
    //   e8 07                    uvarint(1000) = 0x80|0x68, 0x07
    //   then bits: '0' (same value) | '0' (dod 0) | '11' 00001 001011 11111111111
    //   (1.0 ^ 2.0 = 0x7ff0_0000_0000_0000: 1 leading zero, 11 significant bits, 52 trailing)
    //   = 0011 0000 | 1001 0111 | 1111 1111 | 11 000000 = 30 97 ff c0
    const bytes = encodeXorChunk([1000, 2000, 3000], [1, 1, 2]);
    expect(hex(bytes)).toBe("0003" + "d00f" + "3ff0000000000000" + "e807" + "3097ffc0");
    expect(xorChunkSamples(bytes)).toBe(3);
    const d = decodeXorChunk(bytes);
    expect(Array.from(d.t)).toEqual([1000, 2000, 3000]);
    expect(Array.from(d.v)).toEqual([1, 1, 2]);

    // one more sample, (4010, 4.0): dod 10 → '10' + 14 bits; 2.0 ^ 4.0 = 0x0010_0000_0000_0000
    // fits the previous window (1 leading, 52 trailing) → '10' + its 11 bits
    const more = encodeXorChunk([1000, 2000, 3000, 4010], [1, 1, 2, 4]);
    const bits = "0 0 11 00001 001011 11111111111" + " 10 00000000001010 10 00000000001";
    expect(hex(more)).toBe("0004d00f3ff0000000000000e807" + hex(Uint8Array.from(packBits(bits))));
  });

  it("matches chunks written by Prometheus itself", () => {
    // from Go chunkenc (via SINTEF/rusty-chunkenc's test data): t = 1234123324 + i, v = 123535.123 + i, i < 10
    const t = Array.from({ length: 10 }, (_, i) => 1234123324 + i);
    const v = Array.from({ length: 10 }, (_, i) => 123535.123 + i);
    const prom = Uint8Array.from(atob("AAr46PmYCUD+KPH3ztkXAe4v0FDQUdBQ0FPA"), (c) => c.charCodeAt(0));
    expect(hex(encodeXorChunk(t, v))).toBe(hex(prom));
    expect(Array.from(decodeXorChunk(prom).t)).toEqual(t);
    expect(Array.from(decodeXorChunk(prom).v)).toEqual(v);

    // one sample (7200000, 12000): Prometheus 3's bytes, and Prometheus 2's with its stray trailing zero byte
    const one = encodeXorChunk([7_200_000], [12_000]);
    expect(hex(one)).toBe("000180f4ee0640c7700000000000");
    const old = Uint8Array.from([...one, 0]);
    expect(Array.from(decodeXorChunk(old).t)).toEqual([7_200_000]);
    expect(Array.from(decodeXorChunk(old).v)).toEqual([12_000]);
  });

  it("writes every delta-of-delta bucket at its edges, as worked out by hand", () => {
    // deltas 10, 10, 8202, 10, 65546, 10, 524298, 1048587, 1040396 → dods 0, 8192, -8192, 65536, -65536, 524288, 524289, -8191
    const deltas = [10, 10, 8202, 10, 65546, 10, 524298, 1048587, 1040396];
    const t = [0];
    for (const d of deltas) t.push(t[t.length - 1]! + d);
    const bits = [
      "0", // sample 1's value: the same
      "0 0", // dod 0, same value
      "10 10000000000000 0", // 8192 is the 14-bit bucket's top
      "110 11110000000000000 0", // -8192 is not in it: 17 bits, two's complement
      "110 10000000000000000 0", // 65536
      "1110 11110000000000000000 0", // -65536: 20 bits
      "1110 10000000000000000000 0", // 524288
      "1111 " + "0".repeat(44) + "10000000000000000001 0", // 524289: 64 bits
      "10 10000000000001 0", // -8191 fits 14 bits
    ].join(" ");
    const bytes = encodeXorChunk(t, new Array(t.length).fill(0));
    expect(hex(bytes)).toBe("000a" + "00" + "0000000000000000" + "0a" + hex(Uint8Array.from(packBits(bits))));
    expect(Array.from(decodeXorChunk(bytes).t)).toEqual(t);
  });

  it("caps leading zeros at 31 and writes 64 significant bits as 0, as worked out by hand", () => {
    // values by bits: 0, 1 (xor 1: 63 leading → 31, 33 significant), 0xffff_ffff_ffff_fffe (xor all ones: 64 → 000000)
    const v = valuesFromBits([0n, 1n, 0xfffffffffffffffen]);
    const bytes = encodeXorChunk([0, 1, 2], v);
    const bits = "1 1 11111 100001 " + "0".repeat(32) + "1" + " 0 1 1 00000 000000 " + "1".repeat(64);
    expect(hex(bytes)).toBe("0003" + "00" + "0000000000000000" + "01" + hex(Uint8Array.from(packBits(bits))));
    expect(bitsOf(decodeXorChunk(bytes).v)).toEqual([0n, 1n, 0xfffffffffffffffen]);
  });

  it("round-trips random series bit-exactly and matches a naive reference encoder", () => {
    for (const s of randomSeries()) {
      const v = valuesFromBits(s.v);
      const bytes = encodeXorChunk(s.t, v);
      expect(hex(bytes), s.name).toBe(hex(referenceEncode(s.t, s.v)));
      expect(xorChunkSamples(bytes), s.name).toBe(s.t.length);
      const d = decodeXorChunk(bytes);
      expect(Array.from(d.t), s.name).toEqual(s.t);
      expect(bitsOf(d.v), s.name).toEqual(s.v);
    }
  });

  it("keeps NaN payloads, the stale marker, infinities and -0 exact", () => {
    const vbits = [F(1), STALE, STALE, F(NaN), F(-0), F(0), F(Infinity), F(-Infinity), 0xfff8000000000001n, STALE, F(2.5)];
    const t = vbits.map((_, i) => 1_700_000_000_000 + i * 15_000);
    const d = decodeXorChunk(encodeXorChunk(t, valuesFromBits(vbits)));
    expect(bitsOf(d.v)).toEqual(vbits);
    expect(Object.is(d.v[4], -0)).toBe(true);
    expect(d.v[6]).toBe(Infinity);
    expect(d.v[7]).toBe(-Infinity);

    // the appender takes bit patterns too
    const a = new XorAppender();
    vbits.forEach((b, i) => a.appendBits(t[i]!, Number(b >> 32n), Number(b & 0xffffffffn)));
    expect(bitsOf(decodeXorChunk(a.bytes()).v)).toEqual(vbits);
  });

  it("takes values from plain arrays and Float64Array views alike", () => {
    const t = [0, 15_000, 30_000, 45_000, 60_000];
    const plain = [1.5, -0, Infinity, -Infinity, 3];
    const backing = new Float64Array(8);
    backing.set(plain, 2);
    const view = backing.subarray(2, 7);
    expect(hex(encodeXorChunk(t, plain))).toBe(hex(encodeXorChunk(t, view)));
    expect(bitsOf(decodeXorChunk(encodeXorChunk(t, plain)).v)).toEqual(plain.map(F));
    // n encodes a prefix
    expect(hex(encodeXorChunk(t, plain, 3))).toBe(hex(encodeXorChunk(t.slice(0, 3), plain.slice(0, 3))));
  });

  it("decodes several chunks into one pair of arrays", () => {
    const a = encodeXorChunk([1000, 2000, 3000], valuesFromBits([F(1), STALE, F(2)]));
    const b = encodeXorChunk([4000], [5]);
    const c = encodeXorChunk([5000, 6000], [-0, 7]);
    const t = new Float64Array(8);
    const v = new Float64Array(8);
    let at = 1;
    for (const chunk of [a, b, encodeXorChunk([], []), c]) at += decodeXorChunkInto(chunk, t, v, at);
    expect(at).toBe(7);
    expect(Array.from(t)).toEqual([0, 1000, 2000, 3000, 4000, 5000, 6000, 0]);
    expect(bitsOf(v)).toEqual([0n, F(1), STALE, F(2), F(5), F(-0), F(7), 0n]);
    expect(() => decodeXorChunkInto(a, t, v, 6)).toThrow(RangeError);
    expect(() => decodeXorChunkInto(a, new Float64Array(3), new Float64Array(2))).toThrow(RangeError);
  });

  it("handles empty, single-sample and two-sample chunks", () => {
    const empty = encodeXorChunk([], []);
    expect(Array.from(empty)).toEqual([0, 0]);
    expect(xorChunkSamples(empty)).toBe(0);
    expect(decodeXorChunk(empty).t.length).toBe(0);

    const one = encodeXorChunk([-5], [-1.25]);
    expect(hex(one)).toBe("0001" + "09" + "bff4000000000000"); // zig-zag(-5) = 9
    expect(Array.from(decodeXorChunk(one).t)).toEqual([-5]);
    expect(Array.from(decodeXorChunk(one).v)).toEqual([-1.25]);

    const two = encodeXorChunk([100, 300], [7, 7]);
    // uvarint(200) = c8 01, then '0' (same value)
    expect(hex(two)).toBe("0002" + "c801" + "401c000000000000" + "c801" + "00");
    expect(Array.from(decodeXorChunk(two).t)).toEqual([100, 300]);
    expect(Array.from(decodeXorChunk(two).v)).toEqual([7, 7]);
  });

  it("encodes the largest timestamps exactly (varint across 2^53)", () => {
    const t = [-(2 ** 53 - 1), -(2 ** 52), 0, 2 ** 52, 2 ** 53 - 1];
    for (const x of t) {
      const b = encodeXorChunk([x], [0]);
      expect(hex(b)).toBe(hex(referenceEncode([x], [0n])));
      expect(decodeXorChunk(b).t[0]).toBe(x);
    }
    const wide = [-(2 ** 52), 0, 2 ** 52 - 1];
    expect(Array.from(decodeXorChunk(encodeXorChunk(wide, [1, 2, 3])).t)).toEqual(wide);
  });

  it("lets an appender's chunk be decoded at any point", () => {
    const r = rng(7);
    const t = timestamps("jitter", 300, r);
    const v = values("gauge-nan", 300, r);
    const vf = valuesFromBits(v);
    const u = new Uint32Array(vf.buffer);
    const a = new XorAppender(8); // a tiny start forces growth
    for (let i = 0; i < t.length; i++) {
      a.appendBits(t[i]!, u[2 * i + HI]!, u[2 * i + LO]!);
      expect(a.count).toBe(i + 1);
      const bytes = a.bytes();
      expect(bytes.length).toBe(a.byteLength);
      expect(xorChunkSamples(bytes)).toBe(i + 1);
      if (i % 37 === 0 || i < 4) {
        expect(hex(bytes)).toBe(hex(encodeXorChunk(t, vf, i + 1)));
        const d = decodeXorChunk(bytes);
        expect(Array.from(d.t)).toEqual(t.slice(0, i + 1));
        expect(bitsOf(d.v)).toEqual(v.slice(0, i + 1));
      }
    }
    // bytes() is a copy
    const b = a.bytes();
    b[5] = b[5]! ^ 0xff;
    expect(hex(a.bytes())).toBe(hex(encodeXorChunk(t, vf)));

    // append(t, number) writes the same as the bits for ordinary numbers
    const c = new XorAppender();
    [3, 3, 4.5, -0, 1e300].forEach((x, i) => c.append(i * 1000, x));
    expect(hex(c.bytes())).toBe(hex(encodeXorChunk([0, 1000, 2000, 3000, 4000], [3, 3, 4.5, -0, 1e300])));
    expect(c.lastTimestamp).toBe(4000);
  });

  it("holds at most 65535 samples", () => {
    const n = MAX_XOR_CHUNK_SAMPLES;
    const t = Float64Array.from({ length: n + 1 }, (_, i) => i * 1000);
    const v = Float64Array.from({ length: n + 1 }, (_, i) => i);
    const full = encodeXorChunk(t, v, n);
    expect(xorChunkSamples(full)).toBe(65535);
    const d = decodeXorChunk(full);
    expect(d.t[n - 1]).toBe((n - 1) * 1000);
    expect(d.v[n - 1]).toBe(n - 1);
    expect(() => encodeXorChunk(t, v)).toThrow(RangeError);

    const a = new XorAppender();
    for (let i = 0; i < n; i++) a.append(i, 1);
    expect(() => a.append(n, 1)).toThrow(RangeError);
    expect(a.count).toBe(n);
  });

  it("rejects bad input and corrupt chunks", () => {
    expect(() => encodeXorChunk([2000, 1000], [1, 1])).toThrow(RangeError);
    expect(() => encodeXorChunk([1.5], [1])).toThrow(RangeError);
    expect(() => encodeXorChunk([NaN], [1])).toThrow(RangeError);
    expect(() => encodeXorChunk([0, 1], [1], 2)).toThrow(RangeError);
    expect(() => encodeXorChunk([-(2 ** 53 - 1), 2 ** 53 - 1], [1, 1])).toThrow(RangeError); // delta past 2^53
    const a = new XorAppender();
    a.append(1000, 1);
    expect(() => a.append(999, 1)).toThrow(RangeError);
    expect(a.count).toBe(1);

    expect(() => xorChunkSamples(new Uint8Array(1))).toThrow();
    const good = encodeXorChunk([1000, 2000, 3000, 4010], [1, 1, 2, 4]);
    for (let cut = 2; cut < good.length; cut++) expect(() => decodeXorChunk(good.subarray(0, cut)), `cut at ${cut}`).toThrow();
    // a count larger than the data
    const liar = Uint8Array.from(good);
    liar[1] = 200;
    expect(() => decodeXorChunk(liar)).toThrow();
  });
});
