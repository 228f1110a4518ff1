// Deletions in the metrics store's write-ahead log, as Prometheus logs its
// head's tombstones: a replay must take out what a deletion took out, at the
// same place among the pushes, or samples deleted from memory would come
// back after a crash, and series removed would keep their ids while the
// pushes after them made new ones.
//
// A push record starts with its tenant name's length (u16, big-endian: a
// name has at most 150 characters), so 0xff 0xff cannot start one. After it:
// u8 kind, u16 tenant length (little-endian), the tenant (UTF-8), u32 count,
// count series ids (u32), and for a deletion count times the first and the
// last time deleted (f64 ms, inclusive; each series' own range).

const MARK = 0xff;
const KIND_DELETE = 1;
const KIND_REMOVE = 2;

export type DeletionRecord =
  | { kind: "delete"; tenant: string; ids: number[]; lo: number[]; hi: number[] }
  | { kind: "remove"; tenant: string; ids: number[] };

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function encode(kind: number, tenant: string, ids: ArrayLike<number>, ranges?: { lo: ArrayLike<number>; hi: ArrayLike<number> }): Uint8Array {
  const name = encoder.encode(tenant);
  const n = ids.length;
  const out = new Uint8Array(2 + 1 + 2 + name.length + 4 + 4 * n + (ranges ? 16 * n : 0));
  const view = new DataView(out.buffer);
  out[0] = MARK;
  out[1] = MARK;
  out[2] = kind;
  view.setUint16(3, name.length, true);
  out.set(name, 5);
  let at = 5 + name.length;
  view.setUint32(at, n, true);
  at += 4;
  for (let i = 0; i < n; i++, at += 4) view.setUint32(at, ids[i]!, true);
  if (ranges) {
    for (let i = 0; i < n; i++, at += 8) view.setFloat64(at, ranges.lo[i]!, true);
    for (let i = 0; i < n; i++, at += 8) view.setFloat64(at, ranges.hi[i]!, true);
  }
  return out;
}

/** the record of samples deleted: series ids[i] lost its samples in [lo[i], hi[i]] */
export const deleteRecord = (tenant: string, ids: ArrayLike<number>, lo: ArrayLike<number>, hi: ArrayLike<number>): Uint8Array =>
  encode(KIND_DELETE, tenant, ids, { lo, hi });

/** the record of series removed (left with no sample) */
export const removeRecord = (tenant: string, ids: ArrayLike<number>): Uint8Array => encode(KIND_REMOVE, tenant, ids);

/** whether a write-ahead record is a deletion's, not a push's */
export const isDeletionRecord = (payload: Uint8Array): boolean => payload.length >= 2 && payload[0] === MARK && payload[1] === MARK;

/** a deletion record read back; throws on one cut short or of an unknown kind */
export function readDeletionRecord(payload: Uint8Array): DeletionRecord {
  const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  const kind = payload[2];
  if (kind !== KIND_DELETE && kind !== KIND_REMOVE) throw new Error(`deletion record of unknown kind ${kind}`);
  const nameLength = view.getUint16(3, true);
  const tenant = decoder.decode(payload.subarray(5, 5 + nameLength));
  let at = 5 + nameLength;
  const n = view.getUint32(at, true);
  at += 4;
  const size = at + 4 * n + (kind === KIND_DELETE ? 16 * n : 0);
  if (size !== payload.length) throw new Error(`deletion record of ${payload.length} bytes, ${size} expected`);
  const ids: number[] = new Array(n);
  for (let i = 0; i < n; i++, at += 4) ids[i] = view.getUint32(at, true);
  if (kind === KIND_REMOVE) return { kind: "remove", tenant, ids };
  const lo: number[] = new Array(n);
  const hi: number[] = new Array(n);
  for (let i = 0; i < n; i++, at += 8) lo[i] = view.getFloat64(at, true);
  for (let i = 0; i < n; i++, at += 8) hi[i] = view.getFloat64(at, true);
  return { kind: "delete", tenant, ids, lo, hi };
}
