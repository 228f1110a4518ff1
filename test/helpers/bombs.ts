// Compression bombs for the tests of issue 16 #5: `size` zero bytes
// compressed by a zlib stream fed 1 MiB at a time, so the input is never in
// memory all at once (1 GiB of zeros makes about 1 MB of gzip).
import { createDeflate, createGzip, type Gzip } from "node:zlib";

export async function zerosBomb(encoding: "gzip" | "deflate", size: number): Promise<Uint8Array<ArrayBuffer>> {
  const stream: Gzip = encoding === "gzip" ? createGzip({ level: 9 }) : createDeflate({ level: 9 });
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
