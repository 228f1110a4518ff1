// A fresh clone stands alone (issue 17): nothing cites files outside the
// repository, the documents' links lead somewhere, and package.json's
// `engines` promises no Node.js version that `npm ci` would warn about.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import semver from "semver";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers/paths.ts";

const tracked = execFileSync("git", ["ls-files"], { cwd: repoRoot, encoding: "utf8" }).split("\n").filter(Boolean);
const read = (path: string) => readFileSync(join(repoRoot, path), "utf8");

describe("a fresh clone stands alone", () => {
  it("no tracked file cites the folder beside the repository the contract used to live in", () => {
    const outside = ["../" + "shared/", "/work/" + "shared"];
    const texts = tracked.filter((f) => /\.(ts|tsx|md|json|toml|sh|yml|yaml|html|css)$/.test(f) || f === ".ci/run").filter((f) => f !== "package-lock.json");
    const citing = texts.filter((f) => existsSync(join(repoRoot, f)) && outside.some((o) => read(f).includes(o)));
    expect(citing).toEqual([]);
  });

  it("the contract, the design card and the reference notes are in docs/", () => {
    for (const f of ["docs/spec/observability-service-api.md", "docs/design.md", "docs/reference/dashboard-api-behaviour.md", "docs/reference/log-and-metrics-store-behaviour.md"]) {
      expect(tracked).toContain(f);
    }
  });

  it("every relative link and backticked docs/ path in README.md and docs/*.md names a file or folder of the repository", () => {
    const docs = tracked.filter((f) => f === "README.md" || /^docs\/[^/]+\.md$/.test(f));
    const broken: string[] = [];
    for (const doc of docs) {
      const text = read(doc);
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split("#")[0]!;
        if (!target || /^[a-z]+:/i.test(target)) continue;
        if (!existsSync(join(repoRoot, dirname(doc), target))) broken.push(`${doc}: (${m[1]})`);
      }
      for (const m of text.matchAll(/`(docs\/[\w./-]+)`/g)) {
        if (!existsSync(join(repoRoot, m[1]!))) broken.push(`${doc}: \`${m[1]}\``);
      }
    }
    expect(broken).toEqual([]);
  });

  it("package.json's engines admit only Node.js versions every locked package accepts (npm ci warns otherwise)", () => {
    const ours = (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node;
    const lock = JSON.parse(read("package-lock.json")) as { packages: Record<string, { version?: string; optional?: boolean; engines?: { node?: string } | string[] }> };
    const refusing: string[] = [];
    for (const [path, p] of Object.entries(lock.packages)) {
      // optional packages are platform builds npm skips where they do not fit
      if (!path || p.optional || Array.isArray(p.engines) || !p.engines?.node) continue;
      if (!semver.subset(ours, p.engines.node)) refusing.push(`${path.replace(/^.*node_modules\//, "")}@${p.version}: ${p.engines.node}`);
    }
    expect(refusing).toEqual([]);
    // the first screen of the README names the same lowest versions
    const start = /^## Start here.*$/m.exec(read("README.md"))![0];
    for (const low of ours.split("||").map((r) => /(\d+\.\d+)/.exec(r)![1]!.replace(/\.0$/, ""))) expect(start).toContain(`${low}+`);
  });

  it("the Node.js running this test is one engines admits", () => {
    expect(semver.satisfies(process.versions.node, (JSON.parse(read("package.json")) as { engines: { node: string } }).engines.node)).toBe(true);
  });
});
