// Reads a backup archive as a stream: the manifest first (checked before
// anything else is read, so a newer or foreign archive is refused at once),
// then every entry against it. An archive is trusted for nothing: an entry
// must be a plain file or folder under data/ with a name of plain segments
// (no absolute path, no "..", no link, no device), listed in the manifest,
// of the size it lists, read no further than that size, with its checksum;
// every listed file must come, once. Files are created new (never over
// anything) in a folder the caller made for them.
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { mkdir, open, statfs } from "node:fs/promises";
import { dirname, join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createGunzip } from "node:zlib";
import { extract as tarExtract } from "tar-stream";
import { type } from "../lib/arktype.ts";
import { DATA_PREFIX, isSafeRelativePath, MANIFEST_MAX_BYTES, MANIFEST_NAME, manifestSchema, type Manifest } from "./manifest.ts";

/** an archive that cannot be restored: damaged, not a backup, or crafted; the message says which */
export class ArchiveError extends Error {}

export interface ReadOptions {
  /** checks the manifest before anything else is read (refuse a newer archive by throwing) */
  onManifest?: (m: Manifest) => void;
  /** writes the data dir's files under this folder (which must be empty); without it the archive is only checked */
  into?: string;
  /** stops after the manifest */
  manifestOnly?: boolean;
  signal?: AbortSignal;
}

export async function readArchive(path: string, o: ReadOptions = {}): Promise<Manifest> {
  const extract = tarExtract();
  const reading = pipeline(createReadStream(path), createGunzip(), extract as unknown as NodeJS.WritableStream);
  const failed = reading.then(() => undefined, (err: unknown) => err as Error);
  let manifest: Manifest;
  try {
    manifest = await readEntries(extract, o);
  } catch (err) {
    extract.destroy();
    await failed;
    throw err;
  }
  if (!o.manifestOnly) {
    const streamError = await failed;
    if (streamError) throw new ArchiveError(`not a readable backup archive: ${streamError.message}`);
  } else extract.destroy();
  return manifest;
}

async function readEntries(extract: ReturnType<typeof tarExtract>, o: ReadOptions): Promise<Manifest> {
  let manifest: Manifest | undefined;
  let files = new Map<string, { size: number; sha256: string }>();
  let dirs = new Set<string>();
  const seen = new Set<string>();
  for await (const entry of guarded(extract)) {
    o.signal?.throwIfAborted();
    const h = entry.header;
    if (!manifest) {
      if (h.name !== MANIFEST_NAME || h.type !== "file") throw new ArchiveError(`not an Outpost backup: the first entry is "${h.name.slice(0, 200)}", not ${MANIFEST_NAME}`);
      if (h.size > MANIFEST_MAX_BYTES) throw new ArchiveError(`the manifest is ${h.size} bytes: more than any backup's (${MANIFEST_MAX_BYTES})`);
      manifest = parseManifest(await readAll(entry as unknown as AsyncIterable<Buffer>, MANIFEST_MAX_BYTES));
      o.onManifest?.(manifest);
      if (o.manifestOnly) return manifest;
      files = new Map(manifest.files.map((f) => [f.path, f]));
      dirs = new Set(manifest.dirs);
      if (files.size !== manifest.files.length || dirs.size !== manifest.dirs.length || manifest.dirs.some((d) => files.has(d))) throw new ArchiveError("the manifest lists a path twice");
      if (o.into) await checkRoom(o.into, manifest);
      continue;
    }
    const shown = JSON.stringify(h.name.slice(0, 200));
    if (!h.name.startsWith(DATA_PREFIX)) throw new ArchiveError(`unexpected entry ${shown}: a backup holds only data/`);
    const rel = h.name.slice(DATA_PREFIX.length).replace(/\/$/, "");
    if (!isSafeRelativePath(rel)) throw new ArchiveError(`entry ${shown} is not a plain relative path: refused`);
    if (h.type === "directory") {
      if (!dirs.has(rel)) throw new ArchiveError(`entry ${shown} is not in the manifest`);
      if (o.into) await mkdir(join(o.into, rel), { recursive: true, mode: 0o700 });
      entry.resume();
      continue;
    }
    if (h.type !== "file") throw new ArchiveError(`entry ${shown} is a ${h.type}: a backup holds only files and folders`);
    const want = files.get(rel);
    if (!want) throw new ArchiveError(`entry ${shown} is not in the manifest`);
    if (seen.has(rel)) throw new ArchiveError(`entry ${shown} comes twice`);
    if (h.size !== want.size) throw new ArchiveError(`${rel}: ${h.size} bytes in the archive, ${want.size} in the manifest`);
    seen.add(rel);
    const hash = createHash("sha256");
    let n = 0;
    let fh: Awaited<ReturnType<typeof open>> | undefined;
    if (o.into) {
      const to = join(o.into, rel);
      await mkdir(dirname(to), { recursive: true, mode: 0o700 });
      fh = await open(to, "wx", 0o600);
    }
    try {
      for await (const chunk of guarded(entry as unknown as AsyncIterable<Buffer>)) {
        n += chunk.length;
        if (n > want.size) throw new ArchiveError(`${rel}: more bytes than the manifest lists`);
        hash.update(chunk);
        if (fh) await fh.write(chunk);
      }
    } finally {
      await fh?.close();
    }
    if (n !== want.size) throw new ArchiveError(`${rel}: the archive ends inside it (${n} of ${want.size} bytes)`);
    if (hash.digest("hex") !== want.sha256) throw new ArchiveError(`${rel}: checksum mismatch: the archive is damaged`);
  }
  if (!manifest) throw new ArchiveError(`not an Outpost backup: no ${MANIFEST_NAME} (an empty archive)`);
  const missing = manifest.files.filter((f) => !seen.has(f.path));
  if (missing.length) throw new ArchiveError(`the archive ends before ${missing.length} file(s) of its manifest (the first: ${missing[0]!.path}): it is truncated`);
  return manifest;
}

/** the stream's items; its failure (a bad gzip stream, a torn tar) is the archive's */
async function* guarded<T>(stream: AsyncIterable<T>): AsyncGenerator<T> {
  const it = stream[Symbol.asyncIterator]();
  for (;;) {
    let r: IteratorResult<T>;
    try {
      r = await it.next();
    } catch (err) {
      throw new ArchiveError(`not a readable backup archive: ${(err as Error).message}`);
    }
    if (r.done) return;
    yield r.value;
  }
}

async function readAll(stream: AsyncIterable<Buffer>, max: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  let n = 0;
  for await (const chunk of guarded(stream)) {
    n += chunk.length;
    if (n > max) throw new ArchiveError(`the manifest is longer than ${max} bytes`);
    parts.push(chunk);
  }
  return Buffer.concat(parts);
}

function parseManifest(bytes: Buffer): Manifest {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch (err) {
    throw new ArchiveError(`the manifest is not JSON: ${(err as Error).message}`);
  }
  const m = manifestSchema(json);
  if (m instanceof type.errors) throw new ArchiveError(`the manifest is not an Outpost backup manifest: ${m.summary.split("\n")[0]}`);
  return m;
}

/** refuses a restore the filesystem has no room for (where the runtime can tell) */
async function checkRoom(dir: string, m: Manifest): Promise<void> {
  const need = m.files.reduce((n, f) => n + f.size, 0);
  let free: number | undefined;
  try {
    const s = await statfs(dir);
    free = Number(s.bavail) * Number(s.bsize);
  } catch {
    return;
  }
  if (need > free) throw new ArchiveError(`the restored data dir needs ${gib(need)}, and ${dir}'s filesystem has ${gib(free)} free`);
}

const gib = (n: number) => `${(n / 1024 ** 3).toFixed(2)} GiB`;
