// The command line, run as a user runs it (source under Bun).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { configKeys } from "../../src/config/keys.ts";
import { bunBin, repoRoot } from "../helpers/paths.ts";
import { runToExit } from "../helpers/process.ts";

const outpost = (...args: string[]) => runToExit(bunBin, [join(repoRoot, "src", "main.ts"), ...args], { cwd: repoRoot });

describe("outpost CLI", () => {
  it("outpost --help lists serve and version", () => {
    const r = outpost("--help");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/serve \[options\]/);
    expect(r.stdout).toMatch(/version/);
  });

  it("outpost serve --help describes every configuration flag", () => {
    const r = outpost("serve", "--help");
    expect(r.status).toBe(0);
    for (const key of configKeys) expect(r.stdout).toContain(key.flag.split(" ")[0]);
    expect(r.stdout).toContain("--config <file>");
  });

  it("outpost version prints the version", () => {
    const r = outpost("version");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^outpost \d+\.\d+\.\d+ \(commit \S+, bun /);
  });

  it("outpost serve with a bad config file -> exit 2 and a precise message", () => {
    const dir = mkdtempSync(join(tmpdir(), "outpost-cli-"));
    const path = join(dir, "bad.yaml");
    writeFileSync(path, "metrics:\n  http_port: -1\n");
    const r = outpost("serve", "--config", path);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`metrics.http_port (in ${path}): must be an integer from 0 to 65535, got -1`);
  });

  it("outpost serve --edition bogus -> exit 2 naming the flag", () => {
    const r = outpost("serve", "--in-memory", "--edition", "bogus");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('server.edition (from --edition): must be "cloud", "enterprise" or "oss", got "bogus"');
  });

  it("an unknown option -> exit 2", () => {
    const r = outpost("serve", "--colour", "blue");
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/unknown option '--colour'/);
  });
});
