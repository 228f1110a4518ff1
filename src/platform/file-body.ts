// A file's first `size` bytes as a response body, never whole in memory. Under
// Bun, its file Blob: Bun.serve sends it with a Content-Length (it sends a
// stream chunked, dropping the length). Elsewhere a stream read a MiB at a
// time as the client takes them. The file is opened at the first read and
// closed at the end or when the client goes: a file deleted meanwhile is
// still read whole (POSIX keeps it until closed).
import { open, type FileHandle } from "node:fs/promises";
import { runtime } from "./runtime.ts";

const CHUNK = 1024 * 1024;

export function fileBody(path: string, size: number): Blob | ReadableStream<Uint8Array> {
  if (runtime === "bun") return Bun.file(path).slice(0, size);
  return fileStream(path, size);
}

function fileStream(path: string, size: number): ReadableStream<Uint8Array> {
  let fh: FileHandle | undefined;
  let at = 0;
  const close = async () => {
    const f = fh;
    fh = undefined;
    await f?.close();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        fh ??= await open(path, "r");
        if (at >= size) {
          await close();
          controller.close();
          return;
        }
        const buf = new Uint8Array(Math.min(CHUNK, size - at));
        const { bytesRead } = await fh.read(buf, 0, buf.length, at);
        if (bytesRead === 0) throw new Error(`${path} ended at ${at} of ${size} bytes`);
        at += bytesRead;
        controller.enqueue(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
      } catch (err) {
        await close().catch(() => {});
        controller.error(err);
      }
    },
    cancel: close,
  }, { highWaterMark: 0 });
}
