// Paths the build scripts share.
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const root = fileURLToPath(new URL("..", import.meta.url));
export const distDir = join(root, "dist");
export const genDir = join(root, "dist", "gen");
export const pgliteDist = join(root, "node_modules", "@electric-sql", "pglite", "dist");
export const adminSrcDir = join(root, "web-admin", "src");
export const adminOutDir = join(root, "web-admin", "dist");
