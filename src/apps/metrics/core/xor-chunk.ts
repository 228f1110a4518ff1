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
// that of current Prometheus (since PR 14854): older versions sometimes left one
// more, empty, byte at the end, which this decoder, like Prometheus's, ignores.
//
// Values travel as their bit patterns (two 32-bit halves), never as arithmetic:
// NaN payloads (the stale marker is 0x7ff0000000000002) and -0 round-trip
// exactly. JavaScriptCore (Bun) canonicalises every NaN it reads out of a typed
// array into a Number, so a stale marker survives only as bits: pass values as
// a Float64Array (its bits are read directly) or use XorAppender.appendBits, and
// read them back from the decoded Float64Array's bits (Uint32Array view).

/** the most samples a chunk can hold: the count header is a u16 */
export const MAX_XOR_CHUNK_SAMPLES = 65535;

export const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
/** index of the high / low 32-bit half of a float64 in a Uint32Array view */
const HI = LITTLE_ENDIAN ? 1 : 0;
const LO = LITTLE_ENDIAN ? 0 : 1;

const TWO_32 = 4294967296;
const TWO_63 = 9223372036854775808;
const TWO_64 = 18446744073709551616;
const MAX_SAFE = Number.MAX_SAFE_INTEGER;
/** no leading/trailing window yet: Prometheus's 0xff, never reusable */
const NO_WINDOW = 255;
/**
 * the most bytes one sample can add: dod '1111' + 64 bits and value '11' + 11 + 64
 * bits, with up to 7 pending bits, is 152 bits; the first sample is at most 10 + 8 bytes
 */
const MAX_SAMPLE_BYTES = 24;

/** the encoder's state between calls: where the bit stream is, and what the next sample is encoded against */
interface EncoderState {
  buf: Uint8Array;
  /** next whole byte to write (the header takes bytes 0 and 1) */
  p: number;
  /** bits not yet making a whole byte: the low `nacc` (< 8) bits of acc */
  acc: number;
  nacc: number;
  n: number;
  lastT: number;
  tDelta: number;
  vHi: number;
  vLo: number;
  leading: number;
  trailing: number;
}

function newState(buf: Uint8Array): EncoderState {
  return { buf, p: 2, acc: 0, nacc: 0, n: 0, lastT: 0, tDelta: 0, vHi: 0, vLo: 0, leading: NO_WINDOW, trailing: 0 };
}

function badTimestamp(t: number, lastT: number, n: number): RangeError {
  if (!Number.isSafeInteger(t)) return new RangeError(`sample timestamp ${t} is not a safe integer number of ms`);
  if (n > 0 && t < lastT) return new RangeError(`sample timestamp ${t} is before the previous one, ${lastT}`);
  return new RangeError(`timestamp delta ${t - lastT} is too large`);
}

/**
 * Appends samples from..to-1 to the stream in s: t[i] and the float64 bits
 * (u[2i + HI], u[2i + LO]). One function with the bit writer inlined on local
 * variables (`acc = (acc << k) | v; nacc += k; flush`), which engines run several
 * times faster than the same writes as method calls. k is at most 24 per write:
 * with up to 7 pending bits that never overflows the 32-bit accumulator
 * (bits already flushed fall off its top). A bad timestamp throws, the samples
 * before it kept.
 */
function encodeSamples(s: EncoderState, t: ArrayLike<number>, u: Uint32Array, from: number, to: number): void {
  let buf = s.buf;
  let p = s.p;
  let acc = s.acc;
  let nacc = s.nacc;
  let n = s.n;
  let lastT = s.lastT;
  let tDelta = s.tDelta;
  let vHi = s.vHi;
  let vLo = s.vLo;
  let leading = s.leading;
  let trailing = s.trailing;
  let bad: RangeError | undefined;
  if (p + (to - from) * MAX_SAMPLE_BYTES > buf.length) {
    const next = new Uint8Array(Math.max(buf.length * 2, p + (to - from) * MAX_SAMPLE_BYTES));
    next.set(buf.subarray(0, p));
    buf = s.buf = next;
  }
  for (let i = from; i < to; i++) {
    const ti = t[i]!;
    const hi = u[2 * i + HI]! | 0;
    const lo = u[2 * i + LO]! | 0;
    if (n === 0) {
      if (!Number.isSafeInteger(ti)) {
        bad = badTimestamp(ti, lastT, n);
        break;
      }
      // Go binary.PutVarint: zig-zag 2m + s (m = t, s = 0; or m = -t - 1, s = 1), as a uvarint;
      // 2m + s can pass 2^53, so its first 7 bits are made from m's low 6 (the stream is byte-aligned here)
      const neg = ti < 0;
      let m = neg ? -ti - 1 : ti;
      const low6 = m % 64;
      m = (m - low6) / 64;
      buf[p++] = (low6 << 1) | (neg ? 1 : 0) | (m > 0 ? 0x80 : 0);
      while (m > 0) {
        const b = m % 128;
        m = (m - b) / 128;
        buf[p++] = m > 0 ? b | 0x80 : b;
      }
      buf[p++] = hi >>> 24;
      buf[p++] = hi >>> 16;
      buf[p++] = hi >>> 8;
      buf[p++] = hi;
      buf[p++] = lo >>> 24;
      buf[p++] = lo >>> 16;
      buf[p++] = lo >>> 8;
      buf[p++] = lo;
    } else {
      const delta = ti - lastT;
      if (!(delta >= 0 && delta <= MAX_SAFE && ti <= MAX_SAFE && Math.floor(ti) === ti)) {
        bad = badTimestamp(ti, lastT, n);
        break;
      }
      if (n === 1) {
        // Go binary.PutUvarint; still byte-aligned after sample 0
        let m = delta;
        while (m >= 128) {
          const b = m % 128;
          buf[p++] = b | 0x80;
          m = (m - b) / 128;
        }
        buf[p++] = m;
      } else {
        // both deltas are non-negative safe integers, so dod is exact
        const dod = delta - tDelta;
        if (dod === 0) {
          acc <<= 1;
          nacc += 1;
        } else if (dod >= -8191 && dod <= 8192) {
          acc = (acc << 16) | (0b10 << 14) | (dod & 0x3fff);
          nacc += 16;
        } else if (dod >= -65535 && dod <= 65536) {
          acc = (acc << 20) | (0b110 << 17) | (dod & 0x1ffff);
          nacc += 20;
        } else if (dod >= -524287 && dod <= 524288) {
          acc = (acc << 24) | (0b1110 << 20) | (dod & 0xfffff);
          nacc += 24;
        } else {
          // '1111' and the 64-bit two's complement, in pieces of 4, 24, 8, 24, 8
          const h = Math.floor(dod / TWO_32);
          const l = dod - h * TWO_32;
          acc = (acc << 4) | 0b1111;
          nacc += 4;
          while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
          acc = (acc << 24) | ((h >>> 8) & 0xffffff);
          nacc += 24;
          while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
          acc = (acc << 8) | (h & 0xff);
          nacc += 8;
          while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
          acc = (acc << 24) | ((l >>> 8) & 0xffffff);
          nacc += 24;
          while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
          acc = (acc << 8) | (l & 0xff);
          nacc += 8;
        }
        while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
      }
      tDelta = delta;

      // the value (Prometheus's writeVDelta)
      const xh = hi ^ vHi;
      const xl = lo ^ vLo;
      if (xh === 0 && xl === 0) {
        acc <<= 1;
        nacc += 1;
        if (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
      } else {
        let lz = xh !== 0 ? Math.clz32(xh) : 32 + Math.clz32(xl);
        const tz = xl !== 0 ? 31 - Math.clz32(xl & -xl) : 63 - Math.clz32(xh & -xh);
        if (lz > 31) lz = 31;
        let shift: number;
        let sig: number;
        if (lz >= leading && tz >= trailing) {
          // '10': the previous window holds it
          acc = (acc << 2) | 0b10;
          nacc += 2;
          shift = trailing;
          sig = 64 - leading - trailing;
        } else {
          // '11', 5 bits leading zeros, 6 bits significant count (64 → 0)
          leading = lz;
          trailing = tz;
          shift = tz;
          sig = 64 - lz - tz;
          acc = (acc << 13) | (0b11 << 11) | (lz << 6) | (sig & 63);
          nacc += 13;
        }
        while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
        // the sig bits of (xh:xl) >> shift, as h:l; everything above them is zero
        let h: number;
        let l: number;
        if (shift === 0) {
          h = xh;
          l = xl;
        } else if (shift < 32) {
          h = xh >>> shift;
          l = (xl >>> shift) | (xh << (32 - shift));
        } else {
          h = 0;
          l = xh >>> (shift - 32);
        }
        if (sig > 32) {
          const hk = sig - 32;
          if (hk > 24) {
            acc = (acc << (hk - 8)) | (h >>> 8);
            nacc += hk - 8;
            while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
            acc = (acc << 8) | (h & 0xff);
            nacc += 8;
          } else {
            acc = (acc << hk) | h;
            nacc += hk;
          }
          while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
          acc = (acc << 24) | (l >>> 8);
          nacc += 24;
          while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
          acc = (acc << 8) | (l & 0xff);
          nacc += 8;
        } else if (sig > 24) {
          acc = (acc << (sig - 8)) | (l >>> 8);
          nacc += sig - 8;
          while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
          acc = (acc << 8) | (l & 0xff);
          nacc += 8;
        } else {
          acc = (acc << sig) | l;
          nacc += sig;
        }
        while (nacc >= 8) buf[p++] = acc >>> (nacc -= 8);
      }
    }
    lastT = ti;
    vHi = hi;
    vLo = lo;
    n++;
  }
  s.p = p;
  s.acc = acc;
  s.nacc = nacc;
  s.n = n;
  s.lastT = lastT;
  s.tDelta = tDelta;
  s.vHi = vHi;
  s.vLo = vLo;
  s.leading = leading;
  s.trailing = trailing;
  if (bad) throw bad;
}

/** the chunk encoded in s so far, as a new array of its exact length */
function finish(s: EncoderState): Uint8Array<ArrayBuffer> {
  const len = s.p + (s.nacc > 0 ? 1 : 0);
  const out = s.buf.slice(0, len);
  out[0] = s.n >>> 8;
  out[1] = s.n & 0xff;
  if (s.nacc > 0) out[len - 1] = s.acc << (8 - s.nacc);
  return out;
}

// the one sample being appended, in the shape encodeSamples reads; shared by
// every appender (appending is synchronous), so an appender costs only its state
const oneV = new Float64Array(1);
const one = { t: new Float64Array(1), v: oneV, bits: new Uint32Array(oneV.buffer) };

/** an open chunk's first buffer (bytes): a few samples fit before it grows */
export const APPENDER_BYTES = 64;

/**
 * the buffer an appender of a chunk of `length` bytes has when it was
 * appended to sample by sample (doubled from APPENDER_BYTES while a sample
 * could not fit): an appender made again from a checkpoint gets the same,
 * so a restart neither grows a million of them at the next sample nor
 * holds more than the process it replaces
 */
export function appenderRoom(length: number): number {
  let room = APPENDER_BYTES;
  while (room < length + MAX_SAMPLE_BYTES) room *= 2;
  return room;
}

/** how many numbers XorAppender.exportState writes */
export const XOR_STATE_FIELDS = 10;
/** the fields of exportState that are the last timestamp and the last value's high and low 32 bits (the others are small integers) */
export const XOR_STATE_LAST_T = 4;
export const XOR_STATE_V_HI = 6;
export const XOR_STATE_V_LO = 7;

/**
 * builds one XOR chunk a sample at a time; bytes() may be called at any
 * point. The appender is its own encoder state (one object per open chunk,
 * not two: a million series have one each); its fields are the encoder's.
 */
export class XorAppender implements EncoderState {
  buf: Uint8Array;
  p = 2;
  acc = 0;
  nacc = 0;
  n = 0;
  lastT = 0;
  tDelta = 0;
  vHi = 0;
  vLo = 0;
  leading = NO_WINDOW;
  trailing = 0;

  /** initialBytes: a capacity hint (the buffer grows as needed), or the buffer itself */
  constructor(initialBytes: number | Uint8Array = 128) {
    this.buf = typeof initialBytes === "number" ? new Uint8Array(Math.max(32, initialBytes | 0)) : initialBytes;
  }

  /** this appender as the encoder's state */
  private get s(): EncoderState {
    return this;
  }

  /** samples appended so far */
  get count(): number {
    return this.s.n;
  }

  /** the encoded chunk's length so far, in bytes */
  get byteLength(): number {
    return this.s.p + (this.s.nacc > 0 ? 1 : 0);
  }

  /** timestamp of the last sample appended (undefined before the first) */
  get lastTimestamp(): number | undefined {
    return this.s.n > 0 ? this.s.lastT : undefined;
  }

  /**
   * appends one sample: t in integer ms, not before the previous sample's.
   * A NaN's payload survives only on engines that keep it in a Number (V8, not
   * Bun's JavaScriptCore); for a bit-exact stale marker use appendBits.
   */
  append(t: number, v: number): void {
    if (this.s.n >= MAX_XOR_CHUNK_SAMPLES) throw new RangeError(`an XOR chunk holds at most ${MAX_XOR_CHUNK_SAMPLES} samples`);
    one.t[0] = t;
    one.v[0] = v;
    encodeSamples(this.s, one.t, one.bits, 0, 1);
  }

  /** appends one sample whose value is given as the high and low 32 bits of its float64 pattern */
  appendBits(t: number, hi: number, lo: number): void {
    if (this.s.n >= MAX_XOR_CHUNK_SAMPLES) throw new RangeError(`an XOR chunk holds at most ${MAX_XOR_CHUNK_SAMPLES} samples`);
    one.t[0] = t;
    one.bits[HI] = hi;
    one.bits[LO] = lo;
    encodeSamples(this.s, one.t, one.bits, 0, 1);
  }

  /** a copy of the chunk encoded so far (a complete, decodable chunk) */
  bytes(): Uint8Array<ArrayBuffer> {
    return finish(this.s);
  }

  /**
   * decodes the samples appended so far into t and the bits of v (as
   * decodeXorChunkBits) without copying the chunk first; returns their count
   */
  decodeInto(ts: Float64Array, vu: Uint32Array, offset = 0): number {
    const s = this.s;
    if (!Number.isInteger(offset) || offset < 0 || offset + s.n > ts.length || 2 * (offset + s.n) > vu.length)
      throw new RangeError(`no room for ${s.n} samples at ${offset}`);
    if (s.n === 0) return 0;
    // the pending bits as the last byte, where the next write overwrites it (the buffer always has room past p)
    if (s.nacc > 0) s.buf[s.p] = s.acc << (8 - s.nacc);
    return decodeSamples(s.buf, s.p + (s.nacc > 0 ? 1 : 0), s.n, ts, vu, offset);
  }

  /**
   * the appender's state, to be saved (a checkpoint): the numbers of
   * XOR_STATE_FIELDS into `into`, and its buffer, whose first into[0] bytes
   * are the chunk so far (valid until the next append; no view is made: a
   * checkpoint saves a million of them); fromState makes the same appender
   * again
   */
  exportState(into: Float64Array): Uint8Array {
    const s = this.s;
    into[0] = s.p;
    into[1] = s.acc;
    into[2] = s.nacc;
    into[3] = s.n;
    into[4] = s.lastT;
    into[5] = s.tDelta;
    into[6] = s.vHi;
    into[7] = s.vLo;
    into[8] = s.leading;
    into[9] = s.trailing;
    return s.buf;
  }

  /** an appender in the state exportState saved (the bytes are copied) */
  static fromState(state: ArrayLike<number>, bytes: Uint8Array): XorAppender {
    // room past p, as the encoder keeps it: the pending bits are written there
    const buf = new Uint8Array(appenderRoom(bytes.length));
    buf.set(bytes);
    return XorAppender.adopt(state, buf, bytes.length);
  }

  /** an appender in the state exportState saved, whose first `length` bytes are in `buf` (kept, not copied; it needs room past them) */
  static adopt(state: ArrayLike<number>, buf: Uint8Array, length: number): XorAppender {
    const p = state[0]!;
    if (!(p >= 2 && p === length && buf.length >= length + 16) || !(state[3]! >= 0 && state[3]! <= MAX_XOR_CHUNK_SAMPLES)) throw new RangeError("not an XOR appender's state");
    const a = new XorAppender(buf);
    const s = a.s;
    s.p = p;
    s.acc = state[1]!;
    s.nacc = state[2]!;
    s.n = state[3]!;
    s.lastT = state[4]!;
    s.tDelta = state[5]!;
    s.vHi = state[6]! >>> 0;
    s.vLo = state[7]! >>> 0;
    s.leading = state[8]!;
    s.trailing = state[9]!;
    return a;
  }

  /** empties the appender for a new chunk, keeping its buffer */
  reset(): void {
    this.p = 2;
    this.acc = 0;
    this.nacc = 0;
    this.n = 0;
    this.lastT = 0;
    this.tDelta = 0;
    this.vHi = 0;
    this.vLo = 0;
    this.leading = NO_WINDOW;
    this.trailing = 0;
  }
}

/** encodeXorChunk's working buffer, reused between calls (encoding is synchronous) */
let scratch: Uint8Array = new Uint8Array(4096);
const SCRATCH_KEEP = 1 << 20;

/**
 * encodes n samples (t ms integers ascending, v float64) as one Prometheus XOR
 * chunk. Pass v as a Float64Array to keep NaN payloads on every engine: its bits
 * are read directly.
 */
export function encodeXorChunk(t: ArrayLike<number>, v: ArrayLike<number>, n: number = t.length): Uint8Array<ArrayBuffer> {
  if (!Number.isInteger(n) || n < 0) throw new RangeError(`bad sample count ${n}`);
  if (n > t.length || n > v.length) throw new RangeError(`${n} samples asked for, ${Math.min(t.length, v.length)} given`);
  if (n > MAX_XOR_CHUNK_SAMPLES) throw new RangeError(`an XOR chunk holds at most ${MAX_XOR_CHUNK_SAMPLES} samples, not ${n}`);
  let bits: Uint32Array;
  if (v instanceof Float64Array) {
    bits = new Uint32Array(v.buffer, v.byteOffset, n * 2);
  } else {
    const copy = new Float64Array(n);
    for (let i = 0; i < n; i++) copy[i] = v[i]!;
    bits = new Uint32Array(copy.buffer);
  }
  const s = newState(scratch);
  try {
    encodeSamples(s, t, bits, 0, n);
    return finish(s);
  } finally {
    scratch = s.buf.length <= SCRATCH_KEEP ? s.buf : new Uint8Array(4096);
  }
}

/** the sample count of a chunk without decoding it */
export function xorChunkSamples(bytes: Uint8Array): number {
  if (bytes.length < 2) throw new Error("XOR chunk: shorter than its header");
  return (bytes[0]! << 8) | bytes[1]!;
}

function truncated(): Error {
  return new Error("XOR chunk: truncated");
}

/**
 * decodes a chunk into arrays. Values are written as bit patterns, so NaN
 * payloads (the stale marker) are kept: read them through a Uint32Array view.
 */
export function decodeXorChunk(bytes: Uint8Array): { t: Float64Array; v: Float64Array } {
  const total = xorChunkSamples(bytes);
  const t = new Float64Array(total);
  const v = new Float64Array(total);
  decodeXorChunkInto(bytes, t, v, 0);
  return { t, v };
}

/**
 * decodes a chunk into t and v from index `offset` on (to gather a series'
 * chunks into one pair of arrays without an allocation per chunk); returns the
 * chunk's sample count. The arrays need room for offset + that count.
 */
export function decodeXorChunkInto(bytes: Uint8Array, ts: Float64Array, vs: Float64Array, offset = 0): number {
  const total = xorChunkSamples(bytes);
  if (!Number.isInteger(offset) || offset < 0 || offset + total > ts.length || offset + total > vs.length)
    throw new RangeError(`no room for ${total} samples at ${offset}`);
  if (total === 0) return 0;
  return decodeSamples(bytes, bytes.length, total, ts, new Uint32Array(vs.buffer, vs.byteOffset, vs.length * 2), offset);
}

/**
 * decodes a chunk into t and the bits of v (a Uint32Array over the values'
 * buffer: two words per sample, in the platform's order) from index `offset`
 * on; returns the sample count. For callers that hold the values' buffer
 * already: JavaScriptCore makes reading a typed array's .buffer costly.
 */
export function decodeXorChunkBits(bytes: Uint8Array, ts: Float64Array, vu: Uint32Array, offset = 0): number {
  const total = xorChunkSamples(bytes);
  if (!Number.isInteger(offset) || offset < 0 || offset + total > ts.length || 2 * (offset + total) > vu.length)
    throw new RangeError(`no room for ${total} samples at ${offset}`);
  if (total === 0) return 0;
  return decodeSamples(bytes, bytes.length, total, ts, vu, offset);
}

/** the decoder: `total` samples from the first `len` bytes of `bytes` (the header is not read) */
function decodeSamples(bytes: Uint8Array, len: number, total: number, ts: Float64Array, vu: Uint32Array, offset: number): number {

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
  ts[offset] = t;
  vu[2 * offset + HI] = vHi;
  vu[2 * offset + LO] = vLo;
  if (total === 1) return 1;

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

  // the bit reader, inlined: acc holds `nacc` (<= 32) unread bits in its low end;
  // bytes past the end read as zeros, and whether any of those were used is checked at the end
  let acc = 0;
  let nacc = 0;
  let leading = 0;
  let trailing = 0;
  const end = offset + total;
  for (let i = offset + 1; i < end; i++) {
    if (i > offset + 1) {
      // delta of delta: a prefix of up to 4 bits and up to 20 more, so one refill to 24 bits covers it
      while (nacc < 24) {
        acc = (acc << 8) | (p < len ? bytes[p]! : 0);
        p++;
        nacc += 8;
      }
      const prefix = (acc >>> (nacc - 4)) & 0b1111;
      if (prefix < 0b1000) {
        nacc -= 1; // '0': the same delta
      } else {
        let dod: number;
        if (prefix < 0b1100) {
          nacc -= 16; // '10' + 14 bits
          dod = (acc >>> nacc) & 0x3fff;
          if (dod > 8192) dod -= 16384;
        } else if (prefix < 0b1110) {
          nacc -= 20; // '110' + 17 bits
          dod = (acc >>> nacc) & 0x1ffff;
          if (dod > 65536) dod -= 131072;
        } else if (prefix === 0b1110) {
          nacc -= 24; // '1110' + 20 bits
          dod = (acc >>> nacc) & 0xfffff;
          if (dod > 524288) dod -= 1048576;
        } else {
          // '1111' + 64 bits, two's complement, read 16 at a time
          nacc -= 4;
          let h = 0;
          let l = 0;
          for (let k = 0; k < 4; k++) {
            while (nacc < 16) {
              acc = (acc << 8) | (p < len ? bytes[p]! : 0);
              p++;
              nacc += 8;
            }
            nacc -= 16;
            h = (h << 16) | (l >>> 16);
            l = (l << 16) | ((acc >>> nacc) & 0xffff);
          }
          dod = (h | 0) * TWO_32 + (l >>> 0);
        }
        tDelta += dod;
      }
    }
    t += tDelta;
    ts[i] = t;

    // the value: '0' | '10' + bits in the window | '11' + 5 bits leading + 6 bits count + bits
    while (nacc < 24) {
      acc = (acc << 8) | (p < len ? bytes[p]! : 0);
      p++;
      nacc += 8;
    }
    if (((acc >>> (nacc - 1)) & 1) === 0) {
      nacc -= 1;
    } else {
      if (((acc >>> (nacc - 2)) & 1) === 0) {
        nacc -= 2;
      } else {
        nacc -= 13;
        const ctl = acc >>> nacc;
        leading = (ctl >>> 6) & 31;
        const count = ctl & 63;
        trailing = 64 - leading - (count === 0 ? 64 : count);
        if (trailing < 0) throw new Error("XOR chunk: corrupt value encoding");
      }
      // the significant bits as h:l, 24 at a time at most
      let h = 0;
      let l = 0;
      let left = 64 - leading - trailing;
      while (left > 0) {
        const k = left > 24 ? 24 : left;
        while (nacc < k) {
          acc = (acc << 8) | (p < len ? bytes[p]! : 0);
          p++;
          nacc += 8;
        }
        nacc -= k;
        h = (h << k) | (l >>> (32 - k));
        l = (l << k) | ((acc >>> nacc) & ((1 << k) - 1));
        left -= k;
      }
      // shifted left by trailing, XORed into the previous value
      if (trailing === 0) {
        vHi ^= h;
        vLo ^= l;
      } else if (trailing < 32) {
        vHi ^= (h << trailing) | (l >>> (32 - trailing));
        vLo ^= l << trailing;
      } else {
        vHi ^= l << (trailing - 32);
      }
    }
    vu[2 * i + HI] = vHi;
    vu[2 * i + LO] = vLo;
  }
  // refills read up to 4 bytes past the end (as zeros); only bits actually consumed count
  if (p * 8 - nacc > len * 8) throw truncated();
  return total;
}
