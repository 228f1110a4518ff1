// npm run bench: every benchmark in turn. Figures are printed, never asserted.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { isBuildCurrent } from "../scripts/build.ts";

const root = join(import.meta.dirname, "..");
if (!isBuildCurrent()) execFileSync(process.execPath, [join(root, "scripts", "build.ts")], { stdio: "inherit" });
for (const bench of ["first-boot.ts", "auth.ts", "resources.ts", "annotations.ts", "logs-ingest.ts", "metrics-ingest.ts", "query-cost.ts", "datasources.ts", "admin-page.ts", "regex.ts", "attacks.ts", "soak.ts"]) {
  console.log(`# ${bench}`);
  execFileSync(process.execPath, [join(root, "bench", bench)], { stdio: "inherit" });
}
