// Compression bombs for the tests of issue 16 #5: `size` zero bytes
// compressed by a zlib stream fed 1 MiB at a time, so the input is never in
// memory all at once (1 GiB of zeros makes about 1 MB of gzip). The run-length
// strategy makes the same ~1032:1 stream as level 9's match search, 5-15x
// faster (1 GiB: seconds, not tens of seconds, under each runner).
import { constants, createDeflate, createGzip, type Gzip } from "node:zlib";

export async function zerosBomb(encoding: "gzip" | "deflate", size: number): Promise<Uint8Array<ArrayBuffer>> {
  const options = { level: 9, strategy: constants.Z_RLE };
  const stream: Gzip = encoding === "gzip" ? createGzip(options) : createDeflate(options);
  const chunks: Buffer[] = [];
  stream.on("data", (c: Buffer) => chunks.push(c));
  const ended = new Promise((resolve) => stream.on("end", resolve));
  const zero = Buffer.alloc(1 << 20);
  for (let written = 0; written < size; written += zero.length) {
    if (!stream.write(zero)) await new Promise((resolve) => stream.once("drain", resolve));
  }
  stream.end();
  await ended;
  return new Uint8Array(Buffer.concat(chunks));
}
