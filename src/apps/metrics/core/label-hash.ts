// Hashes that index series without a string per series: of a label set (its
// pairs in name order), and of the raw bytes of a series' labels in a push
// (senders repeat the same bytes for the same series, so a push finds its
// series without decoding them). Two 32-bit lanes with different
// multipliers (FNV-1a over the characters of a label set; over the raw
// bytes four at a time, finished by a mix of both lanes): 53 bits as the
// key, 32 more bits of the raw hash kept to check a hit.

export interface LabelPair {
  name: string;
  value: string;
}

let laneA = 0;
let laneB = 0;
const start = () => {
  laneA = 0x811c9dc5;
  laneB = 0x01000193;
};
/** the two lanes as a 53-bit key */
const key = () => (laneA >>> 0) * 0x200000 + (laneB >>> 11);

/** mixes a string and a separator after it into both lanes */
function mixString(s: string, separator: number): void {
  let a = laneA;
  let b = laneB;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
  laneA = Math.imul(a ^ separator, 0x01000193);
  laneB = Math.imul(b ^ separator, 0x5bd1e995);
}

/**
 * mixes bytes [from, to) into both lanes four at a time (a multiply, then a
 * shift that brings the high bits down), then the 0-3 bytes left with their
 * count: a push's labels are ~100 bytes a series, hashed for every series of
 * every push
 */
function mixBytes(buf: Uint8Array, from: number, to: number): void {
  let a = laneA;
  let b = laneB;
  let i = from;
  for (; i + 4 <= to; i += 4) {
    const w = buf[i]! | (buf[i + 1]! << 8) | (buf[i + 2]! << 16) | (buf[i + 3]! << 24);
    a = Math.imul(a ^ w, 0x01000193);
    a ^= a >>> 15;
    b = Math.imul(b ^ w, 0x5bd1e995);
    b ^= b >>> 13;
  }
  let w = (to - i) << 24;
  for (let k = 0; i < to; i++, k += 8) w |= buf[i]! << k;
  a = Math.imul(a ^ w, 0x01000193);
  a ^= a >>> 15;
  b = Math.imul(b ^ w, 0x5bd1e995);
  b ^= b >>> 13;
  laneA = a;
  laneB = b;
}

/** a 53-bit hash of a label set given as pairs in name order */
export function labelsHash(sorted: ReadonlyArray<LabelPair>): number {
  start();
  for (const l of sorted) {
    mixString(l.name, 0xff);
    mixString(l.value, 0xfe);
  }
  return key();
}

/** the check of the last rawLabelsHash: 32 more bits of it */
export let rawCheck = 0;

/**
 * a 53-bit hash of the label fields of a series in a push: the bytes
 * [ranges[0], ranges[1]), [ranges[2], ranges[3]), ... each followed by a
 * separator unless `contiguous` (then ranges[0] to the last end at once);
 * 0 for no labels. Sets rawCheck.
 */
export function rawLabelsHash(buf: Uint8Array, ranges: readonly number[], contiguous: boolean, first: number, last: number): number {
  if (ranges.length === 0) {
    rawCheck = 0;
    return 0;
  }
  start();
  if (contiguous) mixBytes(buf, first, last);
  else {
    for (let i = 0; i < ranges.length; i += 2) {
      mixBytes(buf, ranges[i]!, ranges[i + 1]!);
      laneA = Math.imul(laneA ^ 0x100, 0x01000193);
      laneB = Math.imul(laneB ^ 0x100, 0x5bd1e995);
    }
  }
  // both lanes mixed through (each bit of the input reaches every bit of the key), then the check from both
  let a = laneA;
  let b = laneB;
  a = Math.imul(a ^ (a >>> 16), 0x85ebca6b);
  a = Math.imul(a ^ (a >>> 13), 0xc2b2ae35) ^ b;
  a ^= a >>> 16;
  b = Math.imul(b ^ (b >>> 16), 0x7feb352d);
  b = Math.imul(b ^ (b >>> 15), 0x846ca68b) ^ a;
  b ^= b >>> 16;
  laneA = a;
  laneB = b;
  rawCheck = (Math.imul(a ^ (b >>> 16), 0x27d4eb2d) ^ b) >>> 0;
  return key() || 1;
}
