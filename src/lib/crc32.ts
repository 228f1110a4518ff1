// CRC-32 (IEEE, as zlib and gzip compute it) of bytes, as an unsigned number:
// zlib's native one where the runtime has it (Bun, Deno, Node >= 20.15;
// ~5 GB/s), else the crc-32 package (~0.8 GB/s). The same value either way.
import * as zlib from "node:zlib";
import CRC32 from "crc-32";

/** `seed`: the CRC of the bytes before `data` (0 to start), so parts can be summed in turn */
export const crc32: (data: Uint8Array, seed?: number) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === "function"
    ? (data, seed = 0) => zlib.crc32(data, seed >>> 0) >>> 0
    : (data, seed = 0) => CRC32.buf(data, seed | 0) >>> 0;
