// Initialises a PGlite data directory once, at build time, and dumps it as a
// tarball: first boot restores it (~0.4 s) instead of running initdb (2-4 s).
// Regenerated only when the PGlite version changes.
import { PGlite } from "@electric-sql/pglite";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { genDir, pgliteDist } from "./paths.ts";

export const seedPath = join(genDir, "pgdata-seed.tar.gz");
const stampPath = join(genDir, "pgdata-seed.version");

export async function ensureSeed(): Promise<string> {
  const version = JSON.parse(readFileSync(join(pgliteDist, "..", "package.json"), "utf8")).version as string;
  if (existsSync(seedPath) && existsSync(stampPath) && readFileSync(stampPath, "utf8").trim() === version) {
    return seedPath;
  }
  mkdirSync(genDir, { recursive: true });
  const started = performance.now();
  const pg = await PGlite.create();
  const dump = await pg.dumpDataDir("gzip");
  await pg.close();
  writeFileSync(seedPath, new Uint8Array(await dump.arrayBuffer()));
  writeFileSync(stampPath, version + "\n");
  console.log(`wrote ${seedPath} (${(dump.size / 1e6).toFixed(1)} MB, PGlite ${version}) in ${Math.round(performance.now() - started)} ms`);
  return seedPath;
}

if (import.meta.main) await ensureSeed();
