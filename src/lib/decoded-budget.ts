// What a decoded push costs in memory, not just in bytes (issue 16, review of
// #0/#4): an empty protobuf message is 2 bytes on the wire but one or more
// JavaScript objects once decoded, and snappy compresses the repetition ~21x,
// so a 190 KB body of empty log entries grew the process by ~480 MB. Each
// decoded item (stream, entry, series, label, sample, metadata...) is charged
// a fixed cost on top of the decoded bytes, against the same limit
// (max_recv_msg_size). The protobuf wire format is counted before anything
// is built, with protobufjs's reader skipping fields: no allocation.
import protobuf from "protobufjs/light.js";

/**
 * Bytes charged per decoded item. Measured (Bun, heap and RSS with every
 * decoded form alive): ~240 bytes for an empty log entry (decoded message,
 * its plain object and the entry with its BigInt), ~230 for an empty series,
 * 45-60 for a label, sample or metadata: the largest, rounded up.
 */
export const ITEM_COST = 256;

/** the bytes a decoded body of `bytes` bytes holding `items` items is charged */
export function chargedSize(bytes: number, items: number): number {
  return bytes + items * ITEM_COST;
}

/**
 * Which length-delimited fields of a message are items, by field number,
 * with the fields of their own messages to count in turn; LEAF counts the
 * field without reading inside it.
 */
export interface ItemShape {
  readonly [field: number]: ItemShape;
}

export const LEAF: ItemShape = Object.freeze({});

/**
 * A repeated 64-bit field, packed or not: FIXED64_VALUES for fixed64 and
 * double values, VARINT_VALUES for varint ones. protobufjs makes an object
 * (a Long) of each 64-bit integer, ~40 bytes for 8 or fewer on the wire, so
 * their values are charged one item per VALUES_PER_ITEM (~32 bytes each):
 * a small body of zeros cannot decode into millions of objects uncharged.
 */
export const FIXED64_VALUES: ItemShape = Object.freeze({});
export const VARINT_VALUES: ItemShape = Object.freeze({});
const VALUES_PER_ITEM = 8;

/**
 * The items of a protobuf message of `shape` in `buf`, counting stopped as
 * soon as the charged size (`buf` bytes + items × ITEM_COST) passes `limit`:
 * the answer is then over `limit`, and the count need not be exact. Throws
 * the reader's error on malformed input (the caller's decoder would too).
 */
export function countProtobufItems(buf: Uint8Array, shape: ItemShape, limit: number): number {
  const budget = Math.floor((limit - buf.length) / ITEM_COST) + 1;
  if (budget <= 0) return 0;
  const r = protobuf.Reader.create(buf);
  let items = 0;
  let values = 0;
  const walk = (end: number, s: ItemShape): void => {
    while (r.pos < end && items + Math.floor(values / VALUES_PER_ITEM) < budget) {
      const tag = r.uint32();
      const scalar = s[tag >>> 3];
      if (scalar === FIXED64_VALUES || scalar === VARINT_VALUES) {
        values += scalarValues(scalar, tag & 7, end);
        continue;
      }
      const inner = (tag & 7) === 2 ? scalar : undefined;
      if (!inner) {
        r.skipType(tag & 7);
        continue;
      }
      const len = r.uint32();
      const stop = r.pos + len;
      if (stop > end) throw new Error(`index out of range: ${stop} + 0 > ${end}`);
      items++;
      if (inner !== LEAF) walk(stop, inner);
      r.pos = stop;
    }
  };
  /** the values of one field of a repeated 64-bit scalar: each packed one, or the field's one */
  const scalarValues = (kind: ItemShape, wireType: number, end: number): number => {
    if (wireType !== 2) {
      r.skipType(wireType);
      return 1;
    }
    const len = r.uint32();
    const stop = r.pos + len;
    if (stop > end) throw new Error(`index out of range: ${stop} + 0 > ${end}`);
    let n = 0;
    if (kind === FIXED64_VALUES) n = len >>> 3;
    else for (let p = r.pos; p < stop; p++) if (buf[p]! < 0x80) n++;
    r.pos = stop;
    return n;
  };
  walk(r.len, shape);
  return items + Math.ceil(values / VALUES_PER_ITEM);
}
