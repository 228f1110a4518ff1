// A checked decoder of the snappy block format ("raw snappy", as remote write
// and the log push send it), written to refuse hostile input rather than
// trust it: the declared length is read and checked against the caller's
// limit before anything is allocated, every length and offset is unsigned
// arithmetic checked against both the input and the declared output, and the
// decoded length must equal the declared one. The library used before read a
// 4-byte literal length with `<< 24`, which turned negative and passed its
// bounds check: 6 bytes made it loop 2^31 times (issue 16 #0).
// Messages are Go's snappy package's, which the real stores return.
// Format: https://github.com/google/snappy/blob/main/format_description.txt

export class SnappyError extends Error {
  constructor(
    message: string,
    /** "corrupt": not a valid block; "too-large": its declared length is over the caller's limit */
    readonly kind: "corrupt" | "too-large",
    /** the declared decoded length, when it could be read */
    readonly declared?: number,
  ) {
    super(message);
  }
}

const MAX_EXPANSION = 22;

const corrupt = () => new SnappyError("snappy: corrupt input", "corrupt");

/** the decoded length a block declares, and where its elements start */
export function snappyDecodedLength(src: Uint8Array): { length: number; start: number } {
  let length = 0;
  let shift = 0;
  for (let i = 0; i < src.length && i < 10; i++) {
    const b = src[i]!;
    length += (b & 0x7f) * 2 ** shift;
    if (b < 0x80) {
      // Go's DecodedLen: more than 32 bits is "too large", an overlong varint corrupt
      if (i === 9 && b > 1) throw corrupt();
      if (length > 0xffffffff) throw new SnappyError("snappy: decoded block is too large", "too-large", length);
      return { length, start: i + 1 };
    }
    shift += 7;
  }
  throw corrupt();
}

/**
 * Decodes a snappy block whose declared length is at most `maxLength`;
 * a longer declaration is refused before decoding, with kind "too-large".
 * `into`, when long enough, takes the output (a view of it is returned:
 * many blocks decoded one after another need no new buffer each).
 */
export function snappyUncompress(src: Uint8Array, maxLength: number, into?: Uint8Array<ArrayBuffer>): Uint8Array<ArrayBuffer> {
  const { length, start } = snappyDecodedLength(src);
  if (length > maxLength) throw new SnappyError("snappy: decoded block is too large", "too-large", length);
  // no element writes more than 64 bytes for 3 bytes of input: a longer declaration cannot be honest
  if (length > (src.length - start) * MAX_EXPANSION) throw corrupt();
  const dst = into && into.length >= length ? into.subarray(0, length) : new Uint8Array(length);
  const end = src.length;
  let s = start;
  let d = 0;
  while (s < end) {
    const tag = src[s]!;
    const type = tag & 3;
    if (type === 0) {
      // literal: a length in the tag, or in the 1-4 bytes after it
      let n = tag >>> 2;
      if (n < 60) s += 1;
      else {
        const bytes = n - 59;
        if (s + 1 + bytes > end) throw corrupt();
        n = 0;
        for (let i = bytes; i >= 1; i--) n = n * 256 + src[s + i]!;
        s += 1 + bytes;
      }
      n += 1;
      if (n > end - s || n > length - d) throw corrupt();
      if (n < 16) for (let i = 0; i < n; i++) dst[d + i] = src[s + i]!;
      else dst.set(src.subarray(s, s + n), d);
      s += n;
      d += n;
      continue;
    }
    let n: number;
    let offset: number;
    if (type === 1) {
      if (s + 2 > end) throw corrupt();
      n = 4 + ((tag >>> 2) & 7);
      offset = ((tag & 0xe0) << 3) | src[s + 1]!;
      s += 2;
    } else if (type === 2) {
      if (s + 3 > end) throw corrupt();
      n = 1 + (tag >>> 2);
      offset = src[s + 1]! | (src[s + 2]! << 8);
      s += 3;
    } else {
      if (s + 5 > end) throw corrupt();
      n = 1 + (tag >>> 2);
      offset = (src[s + 1]! | (src[s + 2]! << 8) | (src[s + 3]! << 16) | (src[s + 4]! << 24)) >>> 0;
      s += 5;
    }
    if (offset <= 0 || offset > d || n > length - d) throw corrupt();
    // an overlapping copy (offset < n) repeats what it is writing: byte by byte
    if (offset >= n && n >= 16) dst.copyWithin(d, d - offset, d - offset + n);
    else for (let i = 0; i < n; i++) dst[d + i] = dst[d - offset + i]!;
    d += n;
  }
  if (d !== length) throw corrupt();
  return dst;
}
