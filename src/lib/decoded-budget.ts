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
  const walk = (end: number, s: ItemShape): void => {
    while (r.pos < end && items < budget) {
      const tag = r.uint32();
      const inner = (tag & 7) === 2 ? s[tag >>> 3] : undefined;
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
  walk(r.len, shape);
  return items;
}
