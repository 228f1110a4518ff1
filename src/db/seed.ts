// Restores the build-time seed (a gzipped tar of a freshly initialised data
// directory) straight onto disk. About twice as fast as handing it to PGlite's
// loadDataDir, which writes every file through the WASM file system. The
// ~1200 files are written many at a time: creating a file costs a wait on the
// file system's journal more than CPU, and on a busy disk those waits add up
// to most of first boot when taken one after another.
import { mkdirSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { dirname, join, normalize, sep } from "node:path";
import { promisify } from "node:util";
import { gunzip } from "node:zlib";
import { parseTar } from "nanotar";

/** files written at once (libuv's thread pool has 4 threads; more keeps them busy) */
const PARALLEL_WRITES = 16;

export async function restoreSeed(seed: Blob, pgDir: string): Promise<number> {
  // gunzip off the main thread
  const tar: Uint8Array = await promisify(gunzip)(new Uint8Array(await seed.arrayBuffer()));
  mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  // nanotar reads tar.buffer from offset 0: hand it a buffer of its own
  const bytes = tar.byteOffset === 0 && tar.byteLength === tar.buffer.byteLength ? tar : tar.slice();
  const dirs = new Set<string>([pgDir]);
  const makeDir = (dir: string) => {
    if (dirs.has(dir)) return;
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    dirs.add(dir);
  };
  const files: Array<[string, Uint8Array]> = [];
  for (const item of parseTar(bytes)) {
    const target = safeJoin(pgDir, item.name);
    if (item.type === "directory") makeDir(target);
    else if (item.type === "file" || item.type === undefined) {
      makeDir(dirname(target));
      files.push([target, item.data ?? new Uint8Array()]);
    }
  }
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (next < files.length && !failure) {
      const [target, data] = files[next++]!;
      await writeSparse(target, data).catch((err: unknown) => { failure ??= { err }; });
    }
  };
  // every write has ended before this returns or throws: the caller may remove the directory
  await Promise.all(Array.from({ length: Math.min(PARALLEL_WRITES, files.length) }, worker));
  if (failure) throw failure.err;
  return files.length;
}

/** keeps every entry inside the target directory, whatever its name says */
function safeJoin(root: string, name: string): string {
  const relative = normalize(name.replace(/^\/+/, "")).replace(/^(\.\.(\/|\\|$))+/, "");
  const full = join(root, relative);
  if (full !== root && !full.startsWith(root + sep)) throw new Error(`seed entry escapes the data dir: ${name}`);
  return full;
}

const BLOCK = 8192;

/**
 * Writes a file leaving all-zero 8 KiB blocks as holes: a fresh data
 * directory is a quarter zeros (mostly the tail of the first WAL segment),
 * and not writing them shortens first boot.
 */
async function writeSparse(path: string, data: Uint8Array): Promise<void> {
  const file = await open(path, "w", 0o600);
  try {
    let start = -1;
    for (let off = 0; off < data.length; off += BLOCK) {
      const end = Math.min(off + BLOCK, data.length);
      if (isZero(data, off, end)) {
        if (start >= 0) await writeRun(file, data, start, off);
        start = -1;
      } else if (start < 0) start = off;
    }
    if (start >= 0) await writeRun(file, data, start, data.length);
    // only a file ending in a hole needs its length set
    if (start < 0 && data.length > 0) await file.truncate(data.length);
  } finally {
    await file.close();
  }
}

async function writeRun(file: FileHandle, data: Uint8Array, from: number, to: number): Promise<void> {
  let written = from;
  while (written < to) written += (await file.write(data, written, to - written, written)).bytesWritten;
}

const ZEROS = Buffer.alloc(BLOCK);

function isZero(data: Uint8Array, from: number, to: number): boolean {
  // Buffer.equals is a memcmp
  return Buffer.from(data.buffer, data.byteOffset + from, to - from).equals(ZEROS.subarray(0, to - from));
}
