// Writes a backup archive as a stream, never whole in memory: the files are
// read a MiB at a time (the runtime's thread pool does the reading, zlib's
// stream the compressing), hashed once to write the manifest that goes first,
// then again as they go into the tar, so a file that changed between the two
// passes fails the backup instead of making an archive that lies.
import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createWriteStream } from "node:fs";
import { createGzip } from "node:zlib";
import { pack as tarPack, type Pack } from "tar-stream";
import { DATA_PREFIX, MANIFEST_NAME, type Manifest } from "./manifest.ts";

/** a file to archive: read from `source`, its first `size` bytes, named `path` under data/ */
export interface ArchiveFile {
  source: string;
  path: string;
  size: number;
}

const READ_BYTES = 1024 * 1024;
/**
 * zlib's level: 3 compresses the database's pages about as well as 6 (they
 * are mostly zeros and repeated catalog rows) at well under half the CPU,
 * and log chunks are deflated already.
 */
const GZIP_LEVEL = 3;

export class FileChangedError extends Error {}

/** the file's first `size` bytes, a MiB at a time; throws when it is shorter now */
async function* chunksOf(f: ArchiveFile, signal: AbortSignal | undefined): AsyncGenerator<Buffer> {
  let fh: FileHandle;
  try {
    fh = await open(f.source, "r");
  } catch (err) {
    throw new FileChangedError(`${f.path} could not be read while backed up: ${(err as Error).message}`);
  }
  try {
    for (let at = 0; at < f.size; ) {
      signal?.throwIfAborted();
      const buf = Buffer.allocUnsafe(Math.min(READ_BYTES, f.size - at));
      const { bytesRead } = await fh.read(buf, 0, buf.length, at);
      if (bytesRead === 0) throw new FileChangedError(`${f.path} became shorter (${at} of ${f.size} bytes) while backed up`);
      at += bytesRead;
      yield bytesRead === buf.length ? buf : buf.subarray(0, bytesRead);
    }
  } finally {
    await fh.close();
  }
}

/** SHA-256 (hex) of each file's first `size` bytes */
export async function hashFiles(files: readonly ArchiveFile[], signal?: AbortSignal): Promise<string[]> {
  const out: string[] = [];
  for (const f of files) {
    const hash = createHash("sha256");
    for await (const chunk of chunksOf(f, signal)) hash.update(chunk);
    out.push(hash.digest("hex"));
  }
  return out;
}

/**
 * Writes the archive to `target` (created, mode 0600, synced): the manifest,
 * the folders, then each file, checked against the manifest's checksum as it
 * goes. Returns the archive's size.
 */
export async function writeArchive(target: string, manifest: Manifest, files: readonly ArchiveFile[], signal?: AbortSignal): Promise<number> {
  const pack = tarPack();
  // every stream of it has a listener for its errors: an error event nobody hears ends the process
  pack.on("error", () => {});
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      done(null, chunk);
    },
  });
  const writing = pipeline(pack as unknown as NodeJS.ReadableStream, createGzip({ level: GZIP_LEVEL }), count, createWriteStream(target, { flags: "wx", mode: 0o600 }));
  // a failure on either side ends both: the pipeline's error is the one reported
  const failed = writing.then(() => undefined, (err: unknown) => err);
  /** rejects once the pipeline has ended (with its error) before the archive was finished */
  const stopped = failed.then((err) => Promise.reject(err ?? new Error("the archive stream ended early")));
  stopped.catch(() => {});
  const addEntry = (header: EntryHeader, chunks: Iterable<Buffer> | AsyncIterable<Buffer>) => entryOf(pack, header, chunks, stopped);
  try {
    const mtime = new Date(manifest.createdAt);
    const json = Buffer.from(JSON.stringify(manifest));
    await addEntry({ name: MANIFEST_NAME, size: json.length, mode: 0o600, mtime }, [json]);
    for (const dir of manifest.dirs) await addEntry({ name: `${DATA_PREFIX}${dir}/`, type: "directory", mode: 0o700, mtime }, []);
    const sums = new Map(manifest.files.map((f) => [f.path, f.sha256]));
    for (const f of files) {
      const hash = createHash("sha256");
      const hashed = (async function* () {
        for await (const chunk of chunksOf(f, signal)) {
          hash.update(chunk);
          yield chunk;
        }
      })();
      await addEntry({ name: `${DATA_PREFIX}${f.path}`, size: f.size, mode: 0o600, mtime }, hashed);
      if (hash.digest("hex") !== sums.get(f.path)) throw new FileChangedError(`${f.path} changed while backed up`);
    }
    pack.finalize();
  } catch (err) {
    pack.destroy(err as Error);
    await failed;
    throw err;
  }
  const err = await failed;
  if (err) throw err;
  const fd = openSync(target, "r");
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return bytes;
}

type EntryHeader = Parameters<Pack["entry"]>[0];

/** one tar entry, its chunks written as the pack takes them (its backpressure respected); `stopped` rejects when the output failed */
async function entryOf(pack: Pack, header: EntryHeader, chunks: Iterable<Buffer> | AsyncIterable<Buffer>, stopped: Promise<never>): Promise<void> {
  let settle!: (err?: Error | null) => void;
  const done = new Promise<void>((resolve, reject) => (settle = (err) => (err ? reject(err) : resolve())));
  const entry = pack.entry(header, (err) => settle(err));
  entry.on("error", (err: Error) => settle(err));
  try {
    for await (const chunk of chunks) {
      if (!entry.write(chunk)) await Promise.race([new Promise<void>((resolve) => entry.once("drain", () => resolve())), stopped]);
    }
  } catch (err) {
    entry.destroy(err as Error);
    throw err;
  }
  entry.end(undefined);
  await Promise.race([done, stopped]);
}
