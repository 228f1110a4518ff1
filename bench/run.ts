// npm run bench: every benchmark in turn, each in its own process. Figures
// are printed, never asserted, and each benchmark also writes them to
// bench/results/<name>.json (bench/report.ts).
//   npm run bench                          all of them
//   npm run bench -- auth first-boot       only these
//   npm run bench -- --compare <old>       then each figure beside an earlier run's: <old> is
//                                          a results file, a directory of them, or a git
//                                          revision whose bench/results is used ("HEAD")
//   npm run bench -- --compare <old> --no-run   compare the results already in --out
//   npm run bench -- --no-run              list the figures already in --out
//   --out <dir>                            write the results there instead of bench/results
//   --markdown                             tables as Markdown (for the README and resolving notes)
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { parseArgs } from "node:util";
import { isBuildCurrent } from "../scripts/build.ts";
import {
  benchArgs, compareResults, defaultResultsDir, describeRun, formatComparison, formatFigures, loadResults, MICRO, missedTargets, orderBenchmarks, selectBenchmarks, type BenchResult,
} from "./report.ts";

const root = join(import.meta.dirname, "..");
const { values: flags, positionals } = parseArgs({
  allowPositionals: true,
  options: { compare: { type: "string" }, "no-run": { type: "boolean" }, out: { type: "string" }, markdown: { type: "boolean" }, help: { type: "boolean", short: "h" } },
});
const all = orderBenchmarks(readdirSync(import.meta.dirname));
if (flags.help) {
  console.log(`usage: npm run bench -- [name...] [--compare <file|dir|git revision>] [--no-run] [--out <dir>] [--markdown]\nbenchmarks: ${all.join(", ")}`);
  process.exit(0);
}
const out = resolve(flags.out ?? defaultResultsDir);
let selected: string[];
let before: BenchResult[] | undefined;
try {
  selected = selectBenchmarks(all, positionals);
  // read the earlier run first: it may be the very directory this run overwrites
  before = flags.compare === undefined ? undefined : loadResults(flags.compare);
} catch (e) {
  console.error(`npm run bench: ${(e as Error).message}`);
  process.exit(2);
}

const failed: string[] = [];
const ran: string[] = [];
if (!flags["no-run"]) {
  if (selected.some((n) => !MICRO.has(n)) && !isBuildCurrent()) execFileSync(process.execPath, [join(root, "scripts", "build.ts")], { stdio: "inherit" });
  for (const name of selected) {
    console.log(`# ${name}.ts`);
    const run = spawnSync(process.execPath, [join(root, "bench", `${name}.ts`), ...benchArgs(name, process.env)], { stdio: "inherit", env: { ...process.env, BENCH_RESULTS_DIR: out } });
    if (run.status === 0) ran.push(name);
    else {
      failed.push(name);
      console.log(`# ${name}.ts failed (${run.signal ?? `exit code ${run.status}`}); its figures were not saved`);
    }
  }
}

// without --no-run: this run's results; with it: the named benchmarks' results in --out, or all there are
const names = new Set(flags["no-run"] ? selected : ran);
const after = existsSync(out) ? loadResults(out).filter((r) => names.has(r.benchmark)) : [];
const where = relative(process.cwd(), out).startsWith("..") ? out : relative(process.cwd(), out) || ".";
const missing = [...names].filter((n) => !after.some((r) => r.benchmark === n));
if (missing.length > 0 && (!flags["no-run"] || positionals.length > 0)) console.log(`no results in ${where} for ${missing.join(", ")}`);
if (before !== undefined) {
  console.log(`\n# compared with ${flags.compare}\nbefore: ${describeRun(before)}\nafter:  ${describeRun(after)} (${where})\n`);
  console.log(formatComparison(compareResults(before, after), "before", "after", flags.markdown));
} else if (flags["no-run"]) {
  console.log(`# ${describeRun(after)} (${where})\n`);
  console.log(formatFigures(after, flags.markdown));
}
const missed = missedTargets(after);
if (missed.length > 0) console.log(`\ntargets missed:\n${missed.map((m) => `  ${m}`).join("\n")}`);
if (failed.length > 0) {
  console.log(`\nfailed: ${failed.join(", ")}`);
  process.exit(1);
}
