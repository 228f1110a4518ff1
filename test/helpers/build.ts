// Builds dist/outpost and dist/outpost.mjs when missing or older than any input.
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { isBuildCurrent } from "../../scripts/build.ts";
import { bunBin, repoRoot } from "./paths.ts";

export function ensureBuilt(): void {
  if (isBuildCurrent()) return;
  execFileSync(bunBin, [join(repoRoot, "scripts", "build.ts")], { cwd: repoRoot, stdio: "pipe" });
}
