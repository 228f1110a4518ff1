// Builds the admin page into web-admin/dist, which the dashboard listener
// serves (and the compiled binary embeds).
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { adminOutDir, adminSrcDir } from "./paths.ts";

export function buildAdmin(): string {
  rmSync(adminOutDir, { recursive: true, force: true });
  mkdirSync(adminOutDir, { recursive: true });
  cpSync(adminSrcDir, adminOutDir, { recursive: true });
  return adminOutDir;
}

if (import.meta.main) console.log(`built the admin page into ${buildAdmin()}`);
