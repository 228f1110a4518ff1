// Writes several buffers to a file descriptor back to back without joining
// them first: one writev for the lot (no copy of a 1 MB push body or a group
// of chunks into a new buffer on the event loop), then writes of whatever a
// short write left. Where the runtime lacks writevSync, the parts are joined.
import * as fs from "node:fs";

/** iovecs one writev takes at most (Linux IOV_MAX) */
const IOV_MAX = 1024;

export function writeAllSync(fd: number, parts: readonly Uint8Array[]): number {
  let total = 0;
  for (const p of parts) total += p.length;
  if (typeof fs.writevSync !== "function") {
    const all = parts.length === 1 ? parts[0]! : Buffer.concat(parts as Uint8Array[]);
    let done = 0;
    while (done < all.length) done += fs.writeSync(fd, all, done, all.length - done);
    return total;
  }
  for (let from = 0; from < parts.length; from += IOV_MAX) {
    const batch = parts.slice(from, from + IOV_MAX).filter((p) => p.length > 0);
    let written = batch.length ? fs.writevSync(fd, batch as NodeJS.ArrayBufferView[]) : 0;
    // a short write (a full disk, a signal): the rest part by part
    for (const p of batch) {
      if (written >= p.length) {
        written -= p.length;
        continue;
      }
      let done = written;
      written = 0;
      while (done < p.length) done += fs.writeSync(fd, p, done, p.length - done);
    }
  }
  return total;
}
