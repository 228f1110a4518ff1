import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
export const binDir = join(repoRoot, "node_modules", ".bin");
export const bunBin = join(binDir, "bun");
export const denoBin = join(binDir, "deno");
export const distBinary = join(repoRoot, "dist", "outpost");
export const nodeBundle = join(repoRoot, "dist", "outpost.mjs");

export function requireFile(path: string): string {
  if (!existsSync(path)) throw new Error(`missing ${path}`);
  return path;
}
