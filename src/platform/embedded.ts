// Files a build embeds into the executable (PGlite's wasm and data bundle, the
// pre-initialised data directory, the admin page). Build entry points register
// them before the CLI runs; in development the loaders below read them from
// the source tree instead.
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

export interface PGliteAssets {
  pgliteWasmModule: WebAssembly.Module;
  initdbWasmModule?: WebAssembly.Module;
  fsBundle: Blob;
}

export interface EmbeddedAssets {
  pglite?: (needs: { initdb: boolean }) => Promise<PGliteAssets>;
  /** tarball of a freshly initialised data directory (PGlite dumpDataDir) */
  seed?: () => Promise<Blob | undefined>;
  /** admin page files keyed by URL path ("/index.html") */
  admin?: () => Promise<Map<string, Uint8Array>>;
  /** the worker pool's worker entry as this build ships it (platform/workers.ts) */
  taskWorker?: URL;
}

let registered: EmbeddedAssets = {};

export function embedAssets(assets: EmbeddedAssets): void {
  registered = { ...registered, ...assets };
}

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));

/** where scripts/gen-seed.ts writes the seed for development and tests */
export const devSeedPath = join(repoRoot, "dist", "gen", "pgdata-seed.tar.gz");
export const devAdminDir = join(repoRoot, "web-admin", "dist");

export async function pgliteAssets(needs: { initdb: boolean }): Promise<PGliteAssets | undefined> {
  return registered.pglite?.(needs);
}

/** the build's worker entry; undefined when running from the source tree */
export function embeddedTaskWorker(): URL | undefined {
  return registered.taskWorker;
}

export async function seedDataDir(): Promise<Blob | undefined> {
  if (registered.seed) return registered.seed();
  return readSeedFile(devSeedPath);
}

export function readSeedFile(path: string): Blob | undefined {
  if (!existsSync(path)) return undefined;
  return new Blob([readFileSync(path)]);
}

export async function adminFiles(): Promise<Map<string, Uint8Array>> {
  if (registered.admin) return registered.admin();
  return readAdminDir(devAdminDir);
}

export function readAdminDir(dir: string): Map<string, Uint8Array> {
  const files = new Map<string, Uint8Array>();
  if (!existsSync(dir)) return files;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else files.set("/" + relative(dir, full).split(sep).join("/"), new Uint8Array(readFileSync(full)));
    }
  };
  walk(dir);
  return files;
}
