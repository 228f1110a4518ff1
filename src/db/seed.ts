// Restores the build-time seed (a gzipped tar of a freshly initialised data
// directory) straight onto disk. About twice as fast as handing it to PGlite's
// loadDataDir, which writes every file through the WASM file system.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, normalize, sep } from "node:path";
import { gunzipSync } from "node:zlib";
import { parseTar } from "nanotar";

export async function restoreSeed(seed: Blob, pgDir: string): Promise<number> {
  const tar = gunzipSync(new Uint8Array(await seed.arrayBuffer()));
  let files = 0;
  mkdirSync(pgDir, { recursive: true, mode: 0o700 });
  // nanotar reads tar.buffer from offset 0: hand it a buffer of its own
  const bytes = tar.byteOffset === 0 && tar.byteLength === tar.buffer.byteLength ? tar : tar.slice();
  for (const item of parseTar(bytes)) {
    const target = safeJoin(pgDir, item.name);
    if (item.type === "directory") mkdirSync(target, { recursive: true, mode: 0o700 });
    else if (item.type === "file" || item.type === undefined) {
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, item.data ?? new Uint8Array(), { mode: 0o600 });
      files++;
    }
  }
  return files;
}

/** keeps every entry inside the target directory, whatever its name says */
function safeJoin(root: string, name: string): string {
  const relative = normalize(name.replace(/^\/+/, "")).replace(/^(\.\.(\/|\\|$))+/, "");
  const full = join(root, relative);
  if (full !== root && !full.startsWith(root + sep)) throw new Error(`seed entry escapes the data dir: ${name}`);
  return full;
}
