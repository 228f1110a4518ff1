// Prometheus's XOR chunk (tsdb/chunkenc/xor.go), byte for byte: the Gorilla
// encoding with Prometheus's millisecond timestamp buckets.
//
//   header      u16 big-endian sample count
//   sample 0    t as a signed varint (zig-zag, Go binary.PutVarint), v as 64 raw bits
//   sample 1    t - t0 as an unsigned varint (Go binary.PutUvarint), v XOR-encoded
//   sample 2..  delta of delta of t: 0 → '0'; in [-8191, 8192] → '10' + 14 bits;
//               [-65535, 65536] → '110' + 17; [-524287, 524288] → '1110' + 20;
//               otherwise '1111' + 64 bits (two's complement); then v XOR-encoded
//   XOR value   v bits XOR previous v bits: 0 → '0'; when its leading and trailing
//               zeros both cover the previous window → '10' + the window's bits;
//               otherwise '11' + 5 bits leading zeros (capped at 31) + 6 bits
//               significant bit count (64 written as 0) + the significant bits
//
// Bits go most significant first; the last byte is zero-padded. The length is
// that of Prometheus 3 (PR 14854): older Prometheus sometimes left one more zero
// byte at the end, which this decoder, like Prometheus's, ignores.
//
// Values travel as their bit patterns (two 32-bit halves), never as arithmetic:
// NaN payloads (the stale marker is 0x7ff0000000000002) and -0 round-trip
// exactly. JavaScriptCore (Bun) canonicalises every NaN it reads out of a typed
// array into a Number, so a stale marker survives only as bits: pass values as
// a Float64Array (its bits are read directly) or use XorAppender.appendBits, and
// read them back from the decoded Float64Array's bits (Uint32Array view).

/** the most samples a chunk can hold: the count header is a u16 */
export const MAX_XOR_CHUNK_SAMPLES = 65535;

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** index of the high / low 32-bit half of a float64 in a Uint32Array view */
const HI = LITTLE_ENDIAN ? 1 : 0;
const LO = LITTLE_ENDIAN ? 0 : 1;

const scratchF64 = new Float64Array(1);
const scratchU32 = new Uint32Array(scratchF64.buffer);

const TWO_32 = 4294967296;
const TWO_63 = 9223372036854775808;
const TWO_64 = 18446744073709551616;
/** no leading/trailing window yet: Prometheus's 0xff, never reusable */
const NO_WINDOW = 255;
/** the most bytes one sample can take: 4 + 64 bits of dod, 2 + 11 + 64 bits of value (or varint + 8 bytes) */
const MAX_SAMPLE_BYTES = 24;

function ctz32(x: number): number {
  return 31 - Math.clz32(x & -x);
}

/** builds one XOR chunk a sample at a time; bytes() may be called at any point */
export class XorAppender {
  private buf: Uint8Array;
  /** next whole byte to write (the header takes bytes 0 and 1) */
  private p = 2;
  /** pending bits not yet making up a whole byte (the low `nacc` bits of acc) */
  private acc = 0;
  private nacc = 0;
  private n = 0;
  private lastT = 0;
  private tDelta = 0;
  private vHi = 0;
  private vLo = 0;
  private leading = NO_WINDOW;
  private trailing = 0;

  /** initialBytes: a capacity hint; the buffer grows as needed */
  constructor(initialBytes = 128) {
    this.buf = new Uint8Array(Math.max(32, initialBytes | 0));
  }

  /** samples appended so far */
  get count(): number {
    return this.n;
  }

  /** the encoded chunk's length so far, in bytes */
  get byteLength(): number {
    return this.p + (this.nacc > 0 ? 1 : 0);
  }

  /** timestamp of the last sample appended (undefined before the first) */
  get lastTimestamp(): number | undefined {
    return this.n > 0 ? this.lastT : undefined;
  }

  /**
   * appends one sample: t in integer ms, not before the previous sample's.
   * A NaN's payload survives only on engines that keep it in a Number (V8);
   * for a bit-exact stale marker use appendBits.
   */
  append(t: number, v: number): void {
    scratchF64[0] = v;
    this.appendBits(t, scratchU32[HI]!, scratchU32[LO]!);
  }

  /** appends one sample whose value is given as the high and low 32 bits of its float64 pattern */
  appendBits(t: number, hi: number, lo: number): void {
    const n = this.n;
    if (n >= MAX_XOR_CHUNK_SAMPLES) throw new RangeError(`an XOR chunk holds at most ${MAX_XOR_CHUNK_SAMPLES} samples`);
    if (!Number.isSafeInteger(t)) throw new RangeError(`sample timestamp ${t} is not an integer number of ms`);
    if (this.p + MAX_SAMPLE_BYTES > this.buf.length) this.grow();
    hi |= 0;
    lo |= 0;
    if (n === 0) {
      this.writeVarint(t);
      this.w(hi >>> 16, 16);
      this.w(hi & 0xffff, 16);
      this.w(lo >>> 16, 16);
      this.w(lo & 0xffff, 16);
    } else {
      const delta = t - this.lastT;
      if (delta < 0) throw new RangeError(`sample timestamp ${t} is before the previous one, ${this.lastT}`);
      if (!Number.isSafeInteger(delta)) throw new RangeError(`timestamp delta ${delta} is too large`);
      if (n === 1) {
        this.writeUvarint(delta);
      } else {
        // both deltas are non-negative safe integers, so dod is exact
        const dod = delta - this.tDelta;
        if (dod === 0) {
          this.w(0, 1);
        } else if (dod >= -8191 && dod <= 8192) {
          this.w((0b10 << 14) | (dod & 0x3fff), 16);
        } else if (dod >= -65535 && dod <= 65536) {
          this.w((0b110 << 17) | (dod & 0x1ffff), 20);
        } else if (dod >= -524287 && dod <= 524288) {
          this.w((0b1110 << 20) | (dod & 0xfffff), 24);
        } else {
          const h = Math.floor(dod / TWO_32);
          this.w(0b1111, 4);
          this.w32(h >>> 0);
          this.w32(dod - h * TWO_32);
        }
      }
      this.writeValue(hi, lo);
      this.tDelta = delta;
    }
    this.lastT = t;
    this.vHi = hi;
    this.vLo = lo;
    this.n = n + 1;
  }

  /** a copy of the chunk encoded so far (a complete, decodable chunk) */
  bytes(): Uint8Array {
    const len = this.byteLength;
    const out = this.buf.slice(0, len);
    out[0] = this.n >>> 8;
    out[1] = this.n & 0xff;
    if (this.nacc > 0) out[len - 1] = this.acc << (8 - this.nacc);
    return out;
  }

  private grow(): void {
    const next = new Uint8Array(this.buf.length * 2 + MAX_SAMPLE_BYTES);
    next.set(this.buf.subarray(0, this.p));
    this.buf = next;
  }

  /** writes the low k bits of v (0 <= v < 2^k, k <= 25), most significant first */
  private w(v: number, k: number): void {
    // bits already flushed fall off the top of the 32-bit accumulator; at most 7 + 25 are live
    const acc = (this.acc << k) | v;
    let nacc = this.nacc + k;
    const buf = this.buf;
    let p = this.p;
    while (nacc >= 8) {
      nacc -= 8;
      buf[p++] = acc >>> nacc;
    }
    this.p = p;
    this.acc = acc;
    this.nacc = nacc;
  }

  /** writes the low k bits of v (an int32 or uint32; k <= 32, higher bits zero unless k = 32) */
  private wn(v: number, k: number): void {
    if (k > 16) {
      this.w(v >>> 16, k - 16);
      this.w(v & 0xffff, 16);
    } else {
      this.w(v & 0xffff, k);
    }
  }

  private w32(v: number): void {
    this.w(v >>> 16, 16);
    this.w(v & 0xffff, 16);
  }

  private writeValue(hi: number, lo: number): void {
    const xh = hi ^ this.vHi;
    const xl = lo ^ this.vLo;
    if (xh === 0 && xl === 0) {
      this.w(0, 1);
      return;
    }
    let leading = xh !== 0 ? Math.clz32(xh) : 32 + Math.clz32(xl);
    const trailing = xl !== 0 ? ctz32(xl) : 32 + ctz32(xh);
    if (leading > 31) leading = 31;
    let shift: number;
    let sig: number;
    if (leading >= this.leading && trailing >= this.trailing) {
      this.w(0b10, 2);
      shift = this.trailing;
      sig = 64 - this.leading - shift;
    } else {
      this.leading = leading;
      this.trailing = trailing;
      shift = trailing;
      sig = 64 - leading - trailing;
      this.w((0b11 << 11) | (leading << 6) | (sig & 63), 13);
    }
    // the sig bits of (xh:xl) >> shift; everything above them is zero
    if (shift === 0) {
      if (sig > 32) {
        this.wn(xh, sig - 32);
        this.w32(xl);
      } else {
        this.wn(xl, sig);
      }
    } else if (shift < 32) {
      const l = (xl >>> shift) | (xh << (32 - shift));
      if (sig > 32) {
        this.wn(xh >>> shift, sig - 32);
        this.w32(l);
      } else {
        this.wn(l, sig);
      }
    } else {
      this.wn(xh >>> (shift - 32), sig);
    }
  }

  /** Go binary.PutVarint: zig-zag, then uvarint; exact for any safe integer */
  private writeVarint(t: number): void {
    // zigzag(t) = 2m + s with m = t (s = 0) or m = -t - 1 (s = 1); 2m + s may exceed 2^53, so split off the first 7 bits
    const neg = t < 0;
    const m = neg ? -t - 1 : t;
    const low6 = m % 64;
    const rest = (m - low6) / 64;
    const first = (low6 << 1) | (neg ? 1 : 0);
    if (rest === 0) {
      this.w(first, 8);
      return;
    }
    this.w(first | 0x80, 8);
    this.writeUvarint(rest);
  }

  /** Go binary.PutUvarint of a non-negative safe integer */
  private writeUvarint(u: number): void {
    while (u >= 128) {
      const b = u % 128;
      this.w(b | 0x80, 8);
      u = (u - b) / 128;
    }
    this.w(u, 8);
  }
}

/** encodes n samples (t ms integers ascending, v float64) as one Prometheus XOR chunk */
export function encodeXorChunk(t: ArrayLike<number>, v: ArrayLike<number>, n: number = t.length): Uint8Array {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`bad sample count ${n}`);
  if (n > t.length || n > v.length) throw new RangeError(`${n} samples asked for, ${Math.min(t.length, v.length)} given`);
  if (n > MAX_XOR_CHUNK_SAMPLES) throw new RangeError(`an XOR chunk holds at most ${MAX_XOR_CHUNK_SAMPLES} samples, not ${n}`);
  const a = new XorAppender(n * 2 + 32);
  if (v instanceof Float64Array) {
    // read the bit patterns directly, so NaN payloads are kept on every engine
    const u = new Uint32Array(v.buffer, v.byteOffset, n * 2);
    for (let i = 0; i < n; i++) a.appendBits(t[i]!, u[2 * i + HI]!, u[2 * i + LO]!);
  } else {
    for (let i = 0; i < n; i++) a.append(t[i]!, v[i]!);
  }
  return a.bytes();
}

/** the sample count of a chunk without decoding it */
export function xorChunkSamples(bytes: Uint8Array): number {
  if (bytes.length < 2) throw new Error("XOR chunk: shorter than its header");
  return (bytes[0]! << 8) | bytes[1]!;
}

function truncated(): Error {
  return new Error("XOR chunk: truncated");
}

/** decodes a chunk into arrays; values are written as bit patterns (NaN payloads kept) */
export function decodeXorChunk(bytes: Uint8Array): { t: Float64Array; v: Float64Array } {
  const total = xorChunkSamples(bytes);
  const ts = new Float64Array(total);
  const vs = new Float64Array(total);
  if (total === 0) return { t: ts, v: vs };
  const vu = new Uint32Array(vs.buffer);
  const len = bytes.length;

  // sample 0: varint t, 64 raw bits of v (byte-aligned)
  let p = 2;
  let b = bytes[p++];
  if (b === undefined) throw truncated();
  const neg = (b & 1) === 1;
  let m = (b & 0x7f) >>> 1;
  if (b >= 0x80) {
    let scale = 64;
    for (let i = 1; ; i++) {
      b = bytes[p++];
      if (b === undefined) throw truncated();
      if (i >= 10) throw new Error("XOR chunk: varint overflow");
      m += (b & 0x7f) * scale;
      if (b < 0x80) break;
      scale *= 128;
    }
  }
  let t = neg ? -m - 1 : m;
  if (p + 8 > len) throw truncated();
  let vHi = ((bytes[p]! << 24) | (bytes[p + 1]! << 16) | (bytes[p + 2]! << 8) | bytes[p + 3]!) | 0;
  let vLo = ((bytes[p + 4]! << 24) | (bytes[p + 5]! << 16) | (bytes[p + 6]! << 8) | bytes[p + 7]!) | 0;
  p += 8;
  ts[0] = t;
  vu[HI] = vHi;
  vu[LO] = vLo;
  if (total === 1) return { t: ts, v: vs };

  // sample 1: uvarint delta (still byte-aligned), then the bit stream starts
  let tDelta = 0;
  let scale = 1;
  for (let i = 0; ; i++) {
    b = bytes[p++];
    if (b === undefined) throw truncated();
    if (i >= 10) throw new Error("XOR chunk: uvarint overflow");
    tDelta += (b & 0x7f) * scale;
    if (b < 0x80) break;
    scale *= 128;
  }
  if (tDelta >= TWO_63) tDelta -= TWO_64; // int64(tDelta), as Prometheus adds it

  // the bit reader, inlined: acc holds `nacc` unread bits in its low end
  let acc = 0;
  let nacc = 0;
  let leading = 0;
  let trailing = 0;
  for (let i = 1; i < total; i++) {
    if (i > 1) {
      // delta of delta: up to four prefix bits
      if (nacc < 4) {
        acc = (acc << 8) | (bytes[p++] ?? 0);
        nacc += 8;
      }
      let dod = 0;
      let sz = 0;
      if (((acc >>> (nacc - 1)) & 1) === 0) {
        nacc -= 1;
      } else if (((acc >>> (nacc - 2)) & 1) === 0) {
        nacc -= 2;
        sz = 14;
      } else if (((acc >>> (nacc - 3)) & 1) === 0) {
        nacc -= 3;
        sz = 17;
      } else if (((acc >>> (nacc - 4)) & 1) === 0) {
        nacc -= 4;
        sz = 20;
      } else {
        nacc -= 4;
        let h = 0;
        let l = 0;
        for (let k = 0; k < 8; k++) {
          if (nacc < 8) {
            acc = (acc << 8) | (bytes[p++] ?? 0);
            nacc += 8;
          }
          nacc -= 8;
          const byte = (acc >>> nacc) & 0xff;
          if (k < 4) h = (h << 8) | byte;
          else l = (l << 8) | byte;
        }
        dod = (h | 0) * TWO_32 + (l >>> 0);
      }
      if (sz !== 0) {
        while (nacc < sz) {
          acc = (acc << 8) | (bytes[p++] ?? 0);
          nacc += 8;
        }
        nacc -= sz;
        dod = (acc >>> nacc) & ((1 << sz) - 1);
        if (dod > 1 << (sz - 1)) dod -= 1 << sz;
      }
      tDelta += dod;
    }
    t += tDelta;
    ts[i] = t;

    // value
    if (nacc < 2) {
      acc = (acc << 8) | (bytes[p++] ?? 0);
      nacc += 8;
    }
    if (((acc >>> (nacc - 1)) & 1) === 1) {
      let sig: number;
      if (((acc >>> (nacc - 2)) & 1) === 0) {
        nacc -= 2;
        sig = 64 - leading - trailing;
      } else {
        nacc -= 2;
        while (nacc < 11) {
          acc = (acc << 8) | (bytes[p++] ?? 0);
          nacc += 8;
        }
        nacc -= 11;
        const ctl = (acc >>> nacc) & 0x7ff;
        leading = ctl >>> 6;
        sig = ctl & 63 || 64;
        trailing = 64 - leading - sig;
        if (trailing < 0) throw new Error("XOR chunk: corrupt value encoding");
      }
      // read sig bits as h:l, 16 at a time at most
      let h = 0;
      let l = 0;
      let left = sig;
      while (left > 0) {
        const k = left > 16 ? 16 : left;
        while (nacc < k) {
          acc = (acc << 8) | (bytes[p++] ?? 0);
          nacc += 8;
        }
        nacc -= k;
        const bits = (acc >>> nacc) & ((1 << k) - 1);
        h = (h << k) | (l >>> (32 - k));
        l = (l << k) | bits;
        left -= k;
      }
      // shift left by trailing and fold in
      if (trailing === 0) {
        vHi ^= h;
        vLo ^= l;
      } else if (trailing < 32) {
        vHi ^= (h << trailing) | (l >>> (32 - trailing));
        vLo ^= l << trailing;
      } else {
        vHi ^= l << (trailing - 32);
      }
    } else {
      nacc -= 1;
    }
    vu[2 * i + HI] = vHi;
    vu[2 * i + LO] = vLo;
  }
  // refills may read a byte or two past the end (as zeros); only bits actually consumed count
  if (p * 8 - nacc > len * 8) throw truncated();
  return { t: ts, v: vs };
}
