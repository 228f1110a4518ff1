// The benchmark report (bench/report.ts): figures with targets, the JSON a
// benchmark saves, and npm run bench -- --compare's table. No benchmark runs.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../helpers/temp-dirs.ts";
import {
  benchArgs, betterDirection, compareResults, describeRun, formatComparison, formatFigures, loadResults, makeFigure, meetsTarget, missedTargets, orderBenchmarks,
  parseTarget, Report, selectBenchmarks, type BenchResult, type Figure,
} from "../../bench/report.ts";

const tempDir = tempDirs("outpost-bench-report-");

function result(benchmark: string, figures: Figure[], commit = "0123456789abcdef"): BenchResult {
  return {
    benchmark, commit, dirty: false, date: "2026-11-26T06:00:00.000Z", durationMs: 1000,
    machine: { cpus: 2, model: "Test CPU", memoryBytes: 8 * 2 ** 30, os: "Linux x64", runtime: "bun 1.4.5", loadAverage: [1.5, 1, 1] },
    settings: {}, figures,
  };
}

describe("figures", () => {
  it("a target is a comparison with a bound in the figure's unit", () => {
    expect(parseTarget(">= 50")).toEqual({ op: ">=", bound: 50 });
    expect(parseTarget("<1000")).toEqual({ op: "<", bound: 1000 });
    expect(parseTarget(">= 200,000")).toEqual({ op: ">=", bound: 200000 });
    expect(() => parseTarget("fast")).toThrow(/not of the form/);
    expect(meetsTarget(50, ">= 50")).toBe(true);
    expect(meetsTarget(49.9, ">= 50")).toBe(false);
    expect(meetsTarget(999, "< 1000")).toBe(true);
    expect(meetsTarget(1000, "< 1000")).toBe(false);
  });

  it("which way is better comes from the target, else from the unit", () => {
    expect(betterDirection("%", ">= 50")).toBe("higher");
    expect(betterDirection("req/s", "< 10")).toBe("lower");
    expect(betterDirection("req/s", null)).toBe("higher");
    expect(betterDirection("MB/s", null)).toBe("higher");
    expect(betterDirection("ms", null)).toBe("lower");
    expect(betterDirection("ns/sample", null)).toBe("lower");
    expect(betterDirection("bytes", null)).toBe("lower");
    expect(betterDirection("%", null)).toBeNull();
  });

  it("a figure says whether it met its target, keeps extra fields and is rounded to five significant digits", () => {
    expect(makeFigure("first boot", 812.345678, "ms", "< 1000", { runs: 9, min: 700.123456 })).toEqual({
      figure: "first boot", value: 812.35, unit: "ms", target: "< 1000", met: true, better: "lower", runs: 9, min: 700.12,
    });
    expect(makeFigure("ratio", 12, "%", ">= 50")).toMatchObject({ met: false, better: "higher" });
    expect(makeFigure("hits", 3, "count", null, { better: "higher" })).toMatchObject({ target: null, met: null, better: "higher" });
  });
});

describe("saving and loading", () => {
  it("report.save() writes <dir>/<benchmark>.json with the figures, commit, date and machine", () => {
    const dir = tempDir();
    const report = new Report("auth");
    report.figure("GET /api/health", 20000, "req/s");
    report.figure("ratio", 55.5, "%", ">= 50");
    expect(() => report.figure("ratio", 1, "%")).toThrow(/recorded twice/);
    const path = report.save(dir);
    expect(path).toBe(join(dir, "auth.json"));
    const saved = JSON.parse(readFileSync(path, "utf8")) as BenchResult;
    expect(saved.benchmark).toBe("auth");
    expect(saved.figures).toEqual([
      { figure: "GET /api/health", value: 20000, unit: "req/s", target: null, met: null, better: "higher" },
      { figure: "ratio", value: 55.5, unit: "%", target: ">= 50", met: true, better: "higher" },
    ]);
    expect(saved.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(typeof saved.dirty).toBe("boolean");
    expect(Number.isNaN(Date.parse(saved.date))).toBe(false);
    expect(saved.machine.cpus).toBeGreaterThan(0);
    expect(saved.machine.memoryBytes).toBeGreaterThan(0);
    expect(saved.machine.runtime).toMatch(/^(bun|node|deno) /);
    expect(saved.machine.os.length).toBeGreaterThan(0);
    expect(saved.machine.loadAverage).toHaveLength(3);
  });

  it("results load from one file, from a directory of them, and from a git revision's bench/results", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.json"), JSON.stringify(result("a", [makeFigure("x", 1, "ms")])));
    writeFileSync(join(dir, "b.json"), JSON.stringify(result("b", [makeFigure("y", 2, "ms")])));
    writeFileSync(join(dir, "notes.txt"), "not a result");
    expect(loadResults(join(dir, "a.json")).map((r) => r.benchmark)).toEqual(["a"]);
    expect(loadResults(dir).map((r) => r.benchmark)).toEqual(["a", "b"]);
    writeFileSync(join(dir, "c.json"), JSON.stringify({ hello: 1 }));
    expect(() => loadResults(dir)).toThrow(/not a benchmark result/);

    const repo = tempDir();
    const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, stdio: "ignore" });
    git("init", "-q");
    mkdirSync(join(repo, "bench", "results"), { recursive: true });
    writeFileSync(join(repo, "bench", "results", "auth.json"), JSON.stringify(result("auth", [makeFigure("ratio", 10, "%")])));
    git("add", "-A");
    git("-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "results");
    expect(loadResults("HEAD", repo).map((r) => r.figures[0]!.value)).toEqual([10]);
    expect(() => loadResults("no-such-revision", repo)).toThrow(/neither a file, a directory nor a git revision/);
  });
});

describe("comparing two runs", () => {
  const before = [
    result("auth", [makeFigure("health", 20000, "req/s"), makeFigure("user", 1000, "req/s"), makeFigure("ratio", 5, "%", ">= 50"), makeFigure("dropped", 1, "ms")]),
    result("first-boot", [makeFigure("first boot", 3770, "ms", "< 1000")]),
    result("regex", [makeFigure("re2js", 100, "ms")]),
  ];
  const after = [
    result("auth", [makeFigure("health", 20500, "req/s"), makeFigure("user", 12000, "req/s"), makeFigure("ratio", 58.5, "%", ">= 50"), makeFigure("token", 15000, "req/s")]),
    result("first-boot", [makeFigure("first boot", 820, "ms", "< 1000")]),
  ];
  const rows = compareResults(before, after);
  const row = (b: string, f: string) => rows.find((r) => r.benchmark === b && r.figure === f)!;

  it("each figure of the new run beside the earlier value, with the change in percent", () => {
    expect(row("auth", "user")).toMatchObject({ before: 1000, after: 12000, changePct: 1100, verdict: "better" });
    expect(row("first-boot", "first boot")).toMatchObject({ before: 3770, after: 820, verdict: "better", met: true });
    expect(row("first-boot", "first boot").changePct).toBeCloseTo(-78.25, 2);
    expect(row("auth", "ratio")).toMatchObject({ verdict: "better", target: ">= 50", met: true });
  });

  it("within 5% is noise; figures only one run has are new or gone; benchmarks not run this time are left out", () => {
    expect(row("auth", "health")).toMatchObject({ changePct: 2.5, verdict: "~" });
    expect(row("auth", "token")).toMatchObject({ before: null, after: 15000, changePct: null, verdict: "new" });
    expect(row("auth", "dropped")).toMatchObject({ before: 1, after: null, verdict: "gone" });
    expect(rows.some((r) => r.benchmark === "regex")).toBe(false);
  });

  it("lower is better for times, and a figure whose unit changed is not compared", () => {
    const slower = compareResults([result("x", [makeFigure("t", 100, "ms"), makeFigure("u", 1, "s")])], [result("x", [makeFigure("t", 150, "ms"), makeFigure("u", 900, "ms")])]);
    expect(slower[0]).toMatchObject({ changePct: 50, verdict: "worse" });
    expect(slower[1]).toMatchObject({ before: null, verdict: "new" });
  });

  it("prints one aligned row per figure, with the target and whether it was met", () => {
    const table = formatComparison(rows).split("\n");
    expect(table[0]).toMatch(/^benchmark\s+figure\s+before\s+after\s+unit\s+change\s+target$/);
    expect(table).toHaveLength(rows.length + 1);
    expect(table.find((l) => l.includes("user"))).toMatch(/auth\s+user\s+1,000\s+12,000\s+req\/s\s+\+1100\.0%\s+better$/);
    expect(table.find((l) => l.includes("first boot"))).toMatch(/3,770\s+820\s+ms\s+-78\.2%\s+better\s+< 1000 met$/);
    expect(formatComparison(compareResults(after, before)).split("\n").find((l) => l.includes("first boot"))).toMatch(/< 1000 MISSED$/);
    expect(table.find((l) => l.includes("token"))).toMatch(/auth\s+token\s+-\s+15,000\s+req\/s\s+new$/);
    expect(describeRun(after)).toBe("0123456789, 2026-11-26 06:00Z, 2 x Test CPU, 8.0 GiB, bun 1.4.5, load up to 1.5");
  });

  it("as Markdown for the README and resolving notes: numbers right-aligned, pipes in names escaped", () => {
    const md = formatComparison(compareResults(before, after), "before", "after", true).split("\n");
    expect(md[0]).toBe("| benchmark | figure | before | after | unit | change |  | target |");
    expect(md[1]).toBe("|---|---|---:|---:|---|---:|---|---|");
    expect(md).toContain("| auth | user | 1,000 | 12,000 | req/s | +1100.0% | better |  |");
    const regex = [result("regex", [makeFigure("error|warn: re2js", 38.25, "ms")])];
    expect(formatFigures(regex, true).split("\n")[2]).toBe("| regex | error\\|warn: re2js | 38.3 | ms |  |");
  });

  it("a run's figures listed, and the targets it missed", () => {
    const listing = formatFigures(before).split("\n");
    expect(listing[0]).toMatch(/^benchmark\s+figure\s+value\s+unit\s+target$/);
    expect(listing.find((l) => l.includes("first boot"))).toMatch(/first-boot\s+first boot\s+3,770\s+ms\s+< 1000 MISSED$/);
    expect(missedTargets(before)).toEqual(["auth: ratio 5 % (target >= 50)", "first-boot: first boot 3,770 ms (target < 1000)"]);
    expect(missedTargets(after)).toEqual([]);
  });
});

describe("choosing benchmarks", () => {
  const files = ["xor-chunk.ts", "lib.ts", "run.ts", "report.ts", "auth.ts", "attacks.ts", "soak.ts", "first-boot.ts", "results", "regex.ts"];

  it("every bench/*.ts but the helpers, first boot first, attacks last, unlisted ones before it", () => {
    expect(orderBenchmarks(files)).toEqual(["first-boot", "auth", "regex", "xor-chunk", "soak", "attacks"]);
  });

  it("names may be given with or without .ts or bench/; unknown names are refused", () => {
    const all = orderBenchmarks(files);
    expect(selectBenchmarks(all, [])).toEqual(all);
    expect(selectBenchmarks(all, ["regex.ts", "bench/auth.ts", "first-boot"])).toEqual(["first-boot", "auth", "regex"]);
    expect(() => selectBenchmarks(all, ["auth", "nope"])).toThrow(/no such benchmark: nope/);
  });

  it("logs-scale runs at its quick size unless LOGS_SCALE_GB names one; the others get no arguments", () => {
    expect(benchArgs("logs-scale", {})).toEqual(["--quick"]);
    expect(benchArgs("logs-scale", { LOGS_SCALE_GB: "3" })).toEqual([]);
    expect(benchArgs("metrics-scale", {})).toEqual(["--quick"]);
    expect(benchArgs("metrics-scale", { METRICS_SCALE_SERIES: "1000000" })).toEqual([]);
    expect(benchArgs("auth", {})).toEqual([]);
  });
});
