// What development runs and tests need before they start: the database seed,
// the built admin page and the worker pool's worker for Node.js from the
// source tree (src/platform/workers.ts). Fast when all are current.
import { buildAdmin } from "./build-admin.ts";
import { ensureSeed } from "./gen-seed.ts";
import { ensureDevNodeWorker } from "../src/platform/workers.ts";

await ensureSeed();
await buildAdmin();
ensureDevNodeWorker();
