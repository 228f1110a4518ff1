// Builds the admin page (web-admin/src, Preact) into web-admin/dist with Bun's
// bundler: one script and one stylesheet named by their content hash (served
// as immutable), and index.html pointing at them (revalidated on every load).
// No CDN, no external font: the page must work with no network at all.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { adminOutDir, adminSrcDir } from "./paths.ts";

export async function buildAdmin(): Promise<string> {
  rmSync(adminOutDir, { recursive: true, force: true });
  mkdirSync(adminOutDir, { recursive: true });
  const result = await Bun.build({
    entrypoints: [join(adminSrcDir, "main.tsx")],
    outdir: adminOutDir,
    naming: { entry: "[name]-[hash].[ext]", asset: "[name]-[hash].[ext]", chunk: "[name]-[hash].[ext]" },
    target: "browser",
    minify: true,
    sourcemap: "none",
    define: { "process.env.NODE_ENV": '"production"' },
  });
  if (!result.success) {
    throw new Error(`the admin page does not build:\n${result.logs.map((l) => String(l)).join("\n")}`);
  }
  const outputs = result.outputs.map((o) => basename(o.path));
  const script = outputs.find((n) => n.endsWith(".js"));
  const styles = outputs.filter((n) => n.endsWith(".css"));
  if (!script) throw new Error("the admin page build produced no script");
  const html = readFileSync(join(adminSrcDir, "index.html"), "utf8")
    .replace("<!-- styles -->", styles.map((s) => `<link rel="stylesheet" href="/${s}">`).join("\n  "))
    .replace("<!-- script -->", `<script type="module" src="/${script}"></script>`);
  writeFileSync(join(adminOutDir, "index.html"), html);
  writeFileSync(join(adminOutDir, "favicon.svg"), readFileSync(join(adminSrcDir, "favicon.svg")));
  return adminOutDir;
}

if (import.meta.main) console.log(`built the admin page into ${await buildAdmin()}`);
