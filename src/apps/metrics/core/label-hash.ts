// Hashes that index series without a string per series: of a label set (its
// pairs in name order), and of the raw bytes of a series' labels in a push
// (senders repeat the same bytes for the same series, so a push finds its
// series without decoding them). Two 32-bit FNV-1a lanes with different
// primes: 53 bits as the key, the other 32 bits of the raw hash kept to
// check a hit (a false match would need both to collide: ~2^-85).

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

/** mixes bytes [from, to) into both lanes */
function mixBytes(buf: Uint8Array, from: number, to: number): void {
  let a = laneA;
  let b = laneB;
  for (let i = from; i < to; i++) {
    const c = buf[i]!;
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
  }
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
  // the check: the low bits of lane B and lane A mixed once more
  rawCheck = (Math.imul(laneA ^ (laneB >>> 16), 0x27d4eb2d) ^ laneB) >>> 0;
  return key() || 1;
}
