// The house rules of docs/design.md and ARCHITECTURE.md that a machine can
// check: imports point one way, runtime-specific APIs stay in platform/,
// core/ knows no HTTP, the dashboard's services sit in feature folders that
// reach each other only through their entry files, route files stand alone.
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

  it("cluster/ (nodes on a shared PostgreSQL database) imports no app", () => {
    expect(violations((file, target) => file.startsWith("cluster/") && /^(apps|cli|server)\b/.test(target))).toEqual([]);
  });

  it("store-access/ (the stores' policies and tokens, shared by the three apps) imports no app", () => {
    expect(violations((file, target) => file.startsWith("store-access/") && /^(apps|cli|server)\b/.test(target))).toEqual([]);
  });

  it("backup/ (the server's backups and restore, used by the CLI, server.ts and the dashboard's routes) imports no app; the stores reach it only through lib/backup-pin.ts", () => {
    expect(violations((file, target) => file.startsWith("backup/") && /^(apps|cli|server)\b/.test(target))).toEqual([]);
    expect(violations((file, target) => /^apps\/(logstore|metrics)\//.test(file) && target.startsWith("backup/"))).toEqual([]);
  });

  it("core/ never imports hono", () => {
    expect(violations((file, target) => file.includes("/core/") && target.startsWith("hono"))).toEqual([]);
  });

  // the dashboard's services by feature (ARCHITECTURE.md): each folder of core/ is one feature, the
  // others reach it only through its entry file, and the arrows between them go one way
  const dashboardCore = "apps/dashboard/core/";
  const featureOf = (path: string) => (path.startsWith(dashboardCore) ? path.slice(dashboardCore.length).split("/")[0] : undefined);
  /** the feature folders each feature folder may import */
  const featureArrows: Record<string, string[]> = {
    identity: [],
    secrets: [],
    admin: [],
    content: ["identity", "secrets"],
    datasources: ["identity", "secrets"],
    queries: ["datasources", "identity", "secrets"],
  };

  it("the dashboard's services sit in feature folders, none loose in core/", () => {
    const loose = files.filter((f) => f.path.startsWith(dashboardCore) && !f.path.slice(dashboardCore.length).includes("/")).map((f) => f.path);
    expect(loose).toEqual([]);
    const folders = [...new Set(files.map((f) => featureOf(f.path)).filter((g) => g !== undefined))].sort();
    expect(folders).toEqual(Object.keys(featureArrows).sort());
  });

  it("a feature folder of the dashboard's core imports another only through its entry file (index.ts)", () => {
    expect(
      violations((file, target) => {
        const from = featureOf(file);
        const to = featureOf(target);
        return from !== undefined && to !== undefined && from !== to && !target.endsWith(`${dashboardCore}${to}/index.ts`);
      }),
    ).toEqual([]);
  });

  it("the dashboard's feature folders import each other only along the allowed arrows (no cycles)", () => {
    expect(
      violations((file, target) => {
        const from = featureOf(file);
        const to = featureOf(target);
        return from !== undefined && to !== undefined && from !== to && !featureArrows[from]!.includes(to);
      }),
    ).toEqual([]);
  });

  it("no route file imports another route file (shared pieces live in their own modules)", () => {
    const routeFiles = new Set(files.filter((f) => f.path.startsWith("apps/") && /^export (async )?function register[A-Z]/m.test(f.text)).map((f) => f.path));
    expect(routeFiles.size).toBeGreaterThan(20);
    expect(violations((file, target) => routeFiles.has(file) && routeFiles.has(target))).toEqual([]);
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

  it("only db/ knows the database engines (PGlite, node-postgres): everything else uses db/sql.ts", () => {
    expect(violations((file, target) => /^(@electric-sql\/pglite|pg)(\/|$)/.test(target) && !file.startsWith("db/") && !file.startsWith("platform/"))).toEqual([]);
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
