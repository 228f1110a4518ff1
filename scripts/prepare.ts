// What development runs and tests need before they start: the database seed
// and the built admin page. Fast when both are current.
import { buildAdmin } from "./build-admin.ts";
import { ensureSeed } from "./gen-seed.ts";

await ensureSeed();
await buildAdmin();
