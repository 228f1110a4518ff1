// Initialises a PGlite data directory once, at build time, applies the
// migrations, and dumps it as a tarball: first boot restores it (~0.1 s)
// instead of running initdb (2-4 s) and every migration (~0.1 s more).
// Regenerated when the PGlite version or a migration changes. It holds no
// per-installation data: the installation row is made at first boot.
import { PGlite } from "@electric-sql/pglite";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { migrate } from "../src/db/migrate.ts";
import { migrations } from "../src/db/migrations/index.ts";
import { silentLogger } from "../src/lib/logger.ts";
import { genDir, pgliteDist } from "./paths.ts";

export const seedPath = join(genDir, "pgdata-seed.tar.gz");
const stampPath = join(genDir, "pgdata-seed.version");

export async function ensureSeed(): Promise<string> {
  const pglite = JSON.parse(readFileSync(join(pgliteDist, "..", "package.json"), "utf8")).version as string;
  const schema = createHash("sha256").update(JSON.stringify(migrations)).digest("hex").slice(0, 16);
  const version = `pglite ${pglite}, schema ${schema}`;
  if (existsSync(seedPath) && existsSync(stampPath) && readFileSync(stampPath, "utf8").trim() === version) {
    return seedPath;
  }
  mkdirSync(genDir, { recursive: true });
  const started = performance.now();
  const pg = await PGlite.create();
  await migrate(pg, migrations, silentLogger, "the seed");
  const dump = await pg.dumpDataDir("gzip");
  await pg.close();
  writeFileSync(seedPath, new Uint8Array(await dump.arrayBuffer()));
  writeFileSync(stampPath, version + "\n");
  console.log(`wrote ${seedPath} (${(dump.size / 1e6).toFixed(1)} MB, ${version}) in ${Math.round(performance.now() - started)} ms`);
  return seedPath;
}

if (import.meta.main) await ensureSeed();
