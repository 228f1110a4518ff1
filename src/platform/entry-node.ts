// Entry point of the Node.js bundle (dist/outpost.mjs): PGlite loads from
// node_modules as usual; the seed and the admin page are read from beside
// the bundle (dist/gen, web-admin/dist), the worker pool's worker too
// (dist/outpost-worker.mjs).
import { fileURLToPath } from "node:url";
import { run } from "../main.ts";
import { embedAssets, readAdminDir, readSeedFile } from "./embedded.ts";

const here = (relative: string) => fileURLToPath(new URL(relative, import.meta.url));

embedAssets({
  // built beside the bundle by scripts/build.ts
  taskWorker: new URL("./outpost-worker.mjs", import.meta.url),
  seed: async () => readSeedFile(here("./gen/pgdata-seed.tar.gz")),
  admin: async () => readAdminDir(here("../web-admin/dist")),
});

await run(process.argv);
