// The house rules of docs/design.md that a machine can check: imports
// point one way, runtime-specific APIs stay in platform/, core/ knows no HTTP.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers/paths.ts";

const src = join(repoRoot, "src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return name.endsWith(".ts") ? [full] : [];
  });
}

const files = sourceFiles(src).map((full) => ({
  path: relative(src, full).split(sep).join("/"),
  text: readFileSync(full, "utf8"),
}));

function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"\n]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g)].map(
    (m) => m[1] ?? m[2]!,
  );
}

function resolveImport(from: string, spec: string): string {
  if (!spec.startsWith(".")) return spec;
  const parts = from.split("/").slice(0, -1);
  for (const seg of spec.split("/")) {
    if (seg === "..") parts.pop();
    else if (seg !== ".") parts.push(seg);
  }
  return parts.join("/");
}

const violations = (rule: (file: string, target: string) => boolean) =>
  files.flatMap((f) => importsOf(f.text).map((spec) => resolveImport(f.path, spec)).filter((t) => rule(f.path, t)).map((t) => `${f.path} -> ${t}`));

describe("architecture rules", () => {
  it("lib/ imports no product code", () => {
    expect(violations((file, target) => file.startsWith("lib/") && /^(apps|db|config|cli|platform|server)\b/.test(target))).toEqual([]);
  });

  it("apps never import each other", () => {
    expect(
      violations((file, target) => {
        const [, app] = /^apps\/([^/]+)\//.exec(file) ?? [];
        const [, other] = /^apps\/([^/]+)\//.exec(target) ?? [];
        return app !== undefined && other !== undefined && app !== other;
      }),
    ).toEqual([]);
  });

  it("core/ never imports hono", () => {
    expect(violations((file, target) => file.includes("/core/") && target.startsWith("hono"))).toEqual([]);
  });

  it("Bun- and Deno-specific APIs appear only in platform/", () => {
    const offenders = files
      .filter((f) => !f.path.startsWith("platform/"))
      .filter((f) => /\bBun\.|\bDeno\.|from\s+["']bun:|with\s*\{\s*type:\s*["']file["']/.test(f.text.replace(/\/\/.*$/gm, "")))
      .map((f) => f.path);
    expect(offenders).toEqual([]);
  });

  it("arktype is imported only through lib/arktype.ts, which configures it (jitless) before loading it", () => {
    expect(violations((file, target) => /^arktype(\/|$)/.test(target) && !file.startsWith("lib/arktype"))).toEqual([]);
    const wrapper = files.find((f) => f.path === "lib/arktype.ts")!.text;
    const settings = wrapper.indexOf('import "./arktype-jitless.ts"');
    expect(settings).toBeGreaterThanOrEqual(0);
    expect(settings).toBeLessThan(wrapper.indexOf('export { type } from "arktype"'));
    expect(files.find((f) => f.path === "lib/arktype-jitless.ts")!.text).toMatch(/configure\(\{ jitless: true \}\)/);
  });

  it("node-forge (lib/pki.ts) is loaded on demand by `outpost certs`, not by every start", () => {
    const staticImports = files.filter((f) => f.path !== "lib/pki.ts" && /^\s*import\s[^;]*?from\s*["'][^"']*(pki\.ts|node-forge)["']/m.test(f.text));
    expect(staticImports.map((f) => f.path)).toEqual([]);
  });

  it("only config/ and main.ts read process.env; only main.ts reads process.argv", () => {
    const env = files.filter((f) => /process\.env/.test(f.text) && !f.path.startsWith("config/") && f.path !== "main.ts");
    const argv = files.filter((f) => /process\.argv/.test(f.text) && f.path !== "main.ts" && !f.path.startsWith("platform/entry"));
    expect(env.map((f) => f.path)).toEqual([]);
    expect(argv.map((f) => f.path)).toEqual([]);
  });
});
