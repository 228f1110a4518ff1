// Benchmark figures as JSON (bench/results/<name>.json) and the comparison of
// two runs (npm run bench -- --compare <file-or-dir>). Each benchmark records
// a figure next to the line that prints it (report.figure in bench/lib.ts) and
// saves once at the end; the functions here other than saving and loading are
// pure, and test/bench/report.test.ts covers them.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { cpus, loadavg, release, totalmem, type, arch } from "node:os";
import { basename, join, relative } from "node:path";

/** one measured figure; `target` is a bound in the figure's unit, e.g. ">= 50" or "< 1000" */
export interface Figure {
  figure: string;
  value: number;
  unit: string;
  target: string | null;
  /** whether the value meets the target (null without one) */
  met: boolean | null;
  /** which way is an improvement (from the target, else the unit; null when neither says) */
  better: "higher" | "lower" | null;
  [extra: string]: unknown;
}

export interface Machine {
  cpus: number;
  model: string;
  memoryBytes: number;
  os: string;
  runtime: string;
  /** 1, 5 and 15 minute load averages when the benchmark started: how busy the machine was */
  loadAverage: number[];
}

export interface BenchResult {
  benchmark: string;
  commit: string | null;
  /** a tracked file outside bench/results had uncommitted changes */
  dirty: boolean;
  date: string;
  durationMs: number;
  machine: Machine;
  /** the benchmark's environment overrides (SECONDS_PER_RUN=..., RUNS=..., ...) */
  settings: Record<string, string>;
  figures: Figure[];
}

/** environment variables the benchmarks read: recorded when set, since they change the figures */
export const SETTINGS = ["SECONDS_PER_RUN", "CONNECTIONS", "CLIENTS", "RUNS", "ROUNDS", "LINES", "VALUES", "CHUNKS", "ANNOTATIONS", "BINARY", "SOURCE", "ATTACK_DEADLINE_MS", "OUTPOST_CHROMIUM", "LOGS_SCALE_GB", "QUERY_TIMEOUT_S", "METRICS_SCALE_SERIES", "RECEIVERS"];

const TARGET = /^\s*(>=|<=|>|<|=)\s*(-?[\d.]+(?:e[+-]?\d+)?)\s*$/i;

export function parseTarget(target: string): { op: string; bound: number } {
  const m = TARGET.exec(target.replaceAll(",", ""));
  if (!m) throw new Error(`target ${JSON.stringify(target)} is not of the form ">= 50", "< 1000"`);
  return { op: m[1]!, bound: Number(m[2]) };
}

export function meetsTarget(value: number, target: string): boolean {
  const { op, bound } = parseTarget(target);
  switch (op) {
    case ">=": return value >= bound;
    case ">": return value > bound;
    case "<=": return value <= bound;
    case "<": return value < bound;
    default: return value === bound;
  }
}

/** higher for rates, lower for times and sizes; a target's direction wins */
export function betterDirection(unit: string, target: string | null): "higher" | "lower" | null {
  if (target) {
    const { op } = parseTarget(target);
    if (op.startsWith(">")) return "higher";
    if (op.startsWith("<")) return "lower";
  }
  if (/\/s$/.test(unit)) return "higher";
  if (/^(ns|us|µs|ms|s|bytes|kB|KiB|MB|MiB|GB|GiB)(\/.+)?$/.test(unit)) return "lower";
  return null;
}

export interface FigureOptions {
  better?: "higher" | "lower" | null;
  /** anything else worth keeping beside the figure (min, max, runs, status, ...) */
  [extra: string]: unknown;
}

/** five significant digits: more than any benchmark here can repeat */
export function roundFigure(value: number): number {
  return Number.isFinite(value) && !Number.isInteger(value) ? Number(value.toPrecision(5)) : value;
}

export function makeFigure(figure: string, value: number, unit: string, target: string | null = null, options: FigureOptions = {}): Figure {
  const { better, ...rest } = options;
  const extra = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, typeof v === "number" ? roundFigure(v) : v]));
  return {
    figure, value: roundFigure(value), unit, target,
    met: target === null ? null : meetsTarget(value, target),
    better: better === undefined ? betterDirection(unit, target) : better,
    ...extra,
  };
}

export function machine(): Machine {
  const cpu = cpus();
  const bun = (globalThis as { Bun?: { version: string } }).Bun;
  const deno = (globalThis as { Deno?: { version: { deno: string } } }).Deno;
  return {
    cpus: cpu.length,
    model: cpu[0]?.model.trim() ?? "unknown",
    memoryBytes: totalmem(),
    os: `${type()} ${release()} ${arch()}`,
    runtime: bun ? `bun ${bun.version}` : deno ? `deno ${deno.version.deno}` : `node ${process.version}`,
    loadAverage: loadavg().map((l) => Math.round(l * 100) / 100),
  };
}

/** the commit checked out in `dir`, and whether a tracked file outside bench/results differs from it */
export function commitOf(dir: string): { commit: string | null; dirty: boolean } {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const status = execFileSync("git", ["status", "--porcelain", "--untracked-files=no", "--", ".", ":!bench/results"], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
    return { commit, dirty: status.trim() !== "" };
  } catch {
    return { commit: null, dirty: false };
  }
}

export const defaultResultsDir = join(import.meta.dirname, "results");

/** what a benchmark records: figure() next to each printed figure, save() once at the end */
export class Report {
  readonly figures: Figure[] = [];
  private readonly started = performance.now();
  private readonly machine = machine();
  private readonly date = new Date().toISOString();

  constructor(readonly benchmark: string) {}

  figure(name: string, value: number, unit: string, target: string | null = null, options: FigureOptions = {}): number {
    if (this.figures.some((f) => f.figure === name)) throw new Error(`figure ${JSON.stringify(name)} recorded twice`);
    this.figures.push(makeFigure(name, value, unit, target, options));
    return value;
  }

  result(): BenchResult {
    const settings: Record<string, string> = {};
    for (const key of SETTINGS) if (process.env[key] !== undefined) settings[key] = process.env[key]!;
    return {
      benchmark: this.benchmark,
      ...commitOf(join(import.meta.dirname, "..")),
      date: this.date,
      durationMs: Math.round(performance.now() - this.started),
      machine: this.machine,
      settings,
      figures: this.figures,
    };
  }

  /** writes <BENCH_RESULTS_DIR or bench/results>/<benchmark>.json; returns its path */
  save(dir = process.env.BENCH_RESULTS_DIR || defaultResultsDir): string {
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${this.benchmark}.json`);
    writeFileSync(path, JSON.stringify(this.result(), null, 2) + "\n");
    const shown = relative(process.cwd(), path);
    console.log(`figures saved to ${shown.startsWith("..") ? path : shown}`);
    return path;
  }
}

/** the benchmark's name from its script path: bench/auth.ts -> auth */
export function benchmarkName(script: string): string {
  return basename(script).replace(/\.[cm]?[jt]s$/, "");
}

export function parseResult(text: string, where: string): BenchResult {
  const r = JSON.parse(text) as BenchResult;
  if (typeof r.benchmark !== "string" || !Array.isArray(r.figures)) throw new Error(`${where}: not a benchmark result (no benchmark or figures)`);
  return r;
}

/** results from one JSON file, a directory of them, or a git revision's bench/results ("HEAD", "main~3") */
export function loadResults(from: string, repo = join(import.meta.dirname, "..")): BenchResult[] {
  if (existsSync(from)) {
    if (!statSync(from).isDirectory()) return [parseResult(readFileSync(from, "utf8"), from)];
    return readdirSync(from).filter((f) => f.endsWith(".json")).sort().map((f) => parseResult(readFileSync(join(from, f), "utf8"), join(from, f)));
  }
  const git = (...args: string[]) => execFileSync("git", args, { cwd: repo, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 });
  let names: string[];
  try {
    names = git("ls-tree", "--name-only", `${from}:bench/results`).split("\n").filter((f) => f.endsWith(".json"));
  } catch {
    throw new Error(`${from}: neither a file, a directory nor a git revision with bench/results`);
  }
  return names.map((f) => parseResult(git("show", `${from}:bench/results/${f}`), `${from}:bench/results/${f}`));
}

export interface ComparisonRow {
  benchmark: string;
  figure: string;
  unit: string;
  before: number | null;
  after: number | null;
  /** (after - before) / before in percent; null when either is missing or before is 0 */
  changePct: number | null;
  target: string | null;
  met: boolean | null;
  /** better/worse by more than the noise threshold, "~" within it, "new"/"gone" when one side lacks it */
  verdict: "better" | "worse" | "~" | "changed" | "new" | "gone";
}

/** within this many percent a change is called noise ("~"): the machines are shared and busy */
export const NOISE_PCT = 5;

export function compareResults(before: BenchResult[], after: BenchResult[], noisePct = NOISE_PCT): ComparisonRow[] {
  const old = new Map<string, Figure>();
  for (const r of before) for (const f of r.figures) old.set(`${r.benchmark}\u0000${f.figure}`, f);
  const rows: ComparisonRow[] = [];
  const seen = new Set<string>();
  for (const r of after) {
    for (const f of r.figures) {
      const key = `${r.benchmark}\u0000${f.figure}`;
      seen.add(key);
      const o = old.get(key);
      const usable = o !== undefined && o.unit === f.unit;
      const changePct = usable && o.value !== 0 ? ((f.value - o.value) / Math.abs(o.value)) * 100 : null;
      let verdict: ComparisonRow["verdict"] = "new";
      if (usable) {
        const better = f.better ?? o.better;
        if (changePct === null) verdict = f.value === o.value ? "~" : "changed";
        else if (Math.abs(changePct) < noisePct) verdict = "~";
        else if (better === null) verdict = "changed";
        else verdict = (changePct > 0) === (better === "higher") ? "better" : "worse";
      }
      rows.push({ benchmark: r.benchmark, figure: f.figure, unit: f.unit, before: usable ? o.value : null, after: f.value, changePct, target: f.target, met: f.met, verdict });
    }
  }
  // figures of the benchmarks that ran this time but are no longer recorded
  const ran = new Set(after.map((r) => r.benchmark));
  for (const r of before) {
    if (!ran.has(r.benchmark)) continue;
    for (const f of r.figures) {
      if (seen.has(`${r.benchmark}\u0000${f.figure}`)) continue;
      rows.push({ benchmark: r.benchmark, figure: f.figure, unit: f.unit, before: f.value, after: null, changePct: null, target: f.target, met: null, verdict: "gone" });
    }
  }
  return rows;
}

/** a figure's value for a table: 3 significant digits below 1000, whole numbers above */
export function formatValue(value: number | null): string {
  if (value === null) return "-";
  if (Math.abs(value) >= 1000 || Number.isInteger(value)) return Math.round(value).toLocaleString("en-US");
  return Number(value.toPrecision(3)).toString();
}

/** rows of cells as aligned text columns (numeric ones right-aligned), or as a Markdown table */
export function formatTable(head: string[], cells: string[][], numeric: ReadonlySet<number>, markdown = false): string {
  if (markdown) {
    const row = (c: string[]) => `| ${c.map((s) => s.replaceAll("|", "\\|")).join(" | ")} |`;
    return [row(head), `|${head.map((_, i) => (numeric.has(i) ? "---:" : "---")).join("|")}|`, ...cells.map(row)].join("\n");
  }
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => c.map((s, i) => (numeric.has(i) ? s.padStart(widths[i]!) : s.padEnd(widths[i]!))).join("  ").trimEnd();
  return [line(head), ...cells.map(line)].join("\n");
}

const targetCell = (target: string | null, met: boolean | null) => (target === null ? "" : `${target}${met === false ? " MISSED" : met ? " met" : ""}`);

export function formatComparison(rows: ComparisonRow[], beforeLabel = "before", afterLabel = "after", markdown = false): string {
  const head = ["benchmark", "figure", beforeLabel, afterLabel, "unit", "change", "", "target"];
  const cells = rows.map((r) => [
    r.benchmark, r.figure, formatValue(r.before), formatValue(r.after), r.unit,
    r.changePct === null ? "" : `${r.changePct >= 0 ? "+" : ""}${r.changePct.toFixed(1)}%`,
    r.verdict,
    targetCell(r.target, r.met),
  ]);
  return formatTable(head, cells, new Set([2, 3, 5]), markdown);
}

/** every figure of a set of results, one row each (npm run bench -- --no-run [--markdown]) */
export function formatFigures(results: BenchResult[], markdown = false): string {
  const cells = results.flatMap((r) => r.figures.map((f) => [r.benchmark, f.figure, formatValue(f.value), f.unit, targetCell(f.target, f.met)]));
  return formatTable(["benchmark", "figure", "value", "unit", "target"], cells, new Set([2]), markdown);
}

/** the figures that missed their targets, as "benchmark: figure value unit (target)" lines */
export function missedTargets(results: BenchResult[]): string[] {
  return results.flatMap((r) => r.figures.filter((f) => f.met === false).map((f) => `${r.benchmark}: ${f.figure} ${formatValue(f.value)} ${f.unit} (target ${f.target})`));
}

/** a short line naming where a set of results came from, for the comparison's header */
export function describeRun(results: BenchResult[]): string {
  if (results.length === 0) return "no results";
  const commits = [...new Set(results.map((r) => (r.commit ? r.commit.slice(0, 10) + (r.dirty ? "+dirty" : "") : "no commit")))];
  const dates = results.map((r) => r.date).sort();
  const m = results[0]!.machine;
  const settings = [...new Set(results.flatMap((r) => Object.entries(r.settings ?? {}).map(([k, v]) => `${k}=${v}`)))];
  const load = Math.max(...results.map((r) => r.machine.loadAverage?.[0] ?? 0));
  return `${commits.join(", ")}, ${dates[0]!.slice(0, 16).replace("T", " ")}Z, ${m.cpus} x ${m.model}, ${(m.memoryBytes / 2 ** 30).toFixed(1)} GiB, ${m.runtime}, ` +
    `load up to ${load}${settings.length > 0 ? `, ${settings.join(" ")}` : ""}`;
}

/** the order npm run bench runs them in: first boot first, on a quiet disk; attacks last (it may leave the machine busy); others found in bench/ go before it */
export const ORDER = ["first-boot", "auth", "store-tokens", "resources", "annotations", "logs-ingest", "logs-scale", "metrics-ingest", "metrics-scale", "query-cost", "datasources", "admin-page", "regex", "snappy-decode", "xor-chunk", "promql-soak-query", "soak", "attacks"];

/** benchmarks that run in-process and need no dist/outpost */
export const MICRO = new Set(["regex", "snappy-decode", "xor-chunk", "promql-soak-query"]);

/**
 * the arguments npm run bench gives a benchmark: logs-scale at its --quick size (~150 MB) unless
 * LOGS_SCALE_GB names one (LOGS_SCALE_GB=3 npm run bench -- logs-scale for the issue's full size); metrics-scale
 * at 100,000 series unless METRICS_SCALE_SERIES names a number (1000000 for issue 19's size)
 */
export function benchArgs(name: string, env: Record<string, string | undefined>): string[] {
  if (name === "logs-scale" && !env.LOGS_SCALE_GB) return ["--quick"];
  if (name === "metrics-scale" && !env.METRICS_SCALE_SERIES) return ["--quick"];
  return [];
}

/** benchmark names from the bench/ folder's file names (lib.ts, run.ts, report.ts are not benchmarks), in ORDER */
export function orderBenchmarks(files: string[]): string[] {
  const names = files.filter((f) => f.endsWith(".ts") && !["lib.ts", "run.ts", "report.ts"].includes(f)).map(benchmarkName);
  const rank = (n: string) => (ORDER.includes(n) ? ORDER.indexOf(n) : ORDER.length - 1.5); // unknown ones before attacks, the last
  return names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/** the requested benchmarks ("auth", "auth.ts", "bench/auth.ts") in run order; all when none is named */
export function selectBenchmarks(all: string[], requested: string[]): string[] {
  if (requested.length === 0) return all;
  const wanted = new Set(requested.map(benchmarkName));
  const unknown = [...wanted].filter((n) => !all.includes(n));
  if (unknown.length > 0) throw new Error(`no such benchmark: ${unknown.join(", ")} (there are ${all.join(", ")})`);
  return all.filter((n) => wanted.has(n));
}
