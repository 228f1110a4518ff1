// Cold first boot and restart of the compiled binary: time from spawn until
// all three listeners have printed their addresses, on a new data dir and
// again on the same (now existing) data dir; median (min, max) of RUNS runs
// (default 9). Before each start the disk is synced and left to settle, so
// one run's write-back does not slow the next (each first boot writes ~30 MB).
// BINARY=path times another build; COMPARE=path also times that build,
// alternating run by run with BINARY so that the machine's load hits both alike.
// On Linux it also prints the CPU time the process had used when ready
// (user + system), which a busy machine disturbs much less than wall time.
// So that printing the addresses early cannot win, it also times (from spawn)
// the first answered requests: an authenticated GET /api/user (basic
// admin:admin) on the dashboard and GET /ready on both stores, sent as soon
// as the addresses are printed; the figure is when the last of them answered
// 200 with the right body.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { median, report, startBinary, stopBinary, type Started } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
const compare = process.env.COMPARE;
for (const b of [binary, compare]) {
  if (b !== undefined && !existsSync(b)) throw new Error(`${b} is missing: run npm run build first`);
}

const runs = Number(process.env.RUNS ?? 9);
const binaries = compare ? [binary, compare] : [binary];
/** what one kind of start (first boot or restart) measured, run by run */
interface Samples { ready: number[]; cpu: number[]; main: number[]; answered: number[] }
const samples = (): Samples => ({ ready: [], cpu: [], main: [], answered: [] });
const times = new Map(binaries.map((b) => [b, { first: samples(), restart: samples() }]));

/**
 * CPU milliseconds (user + system) a process has used so far, or with main its
 * main thread alone (JavaScript runs there; the other threads compile
 * WebAssembly and JavaScript, collect garbage); NaN where /proc is missing
 */
function cpuMs(pid: number | undefined, main = false): number {
  try {
    const fields = readFileSync(main ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`, "utf8").replace(/^.*\) /s, "").split(" ");
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux)
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}
/** ms from spawn until /api/user (basic admin:admin) and both stores' /ready have answered correctly */
async function answeredMs(started: Started): Promise<number> {
  const { urls, spawnedAt } = started;
  const answered = async (url: string, init: RequestInit, ok: (body: string) => boolean): Promise<number> => {
    const res = await fetch(url, init);
    const body = await res.text();
    if (res.status !== 200 || !ok(body)) throw new Error(`${url} answered ${res.status}: ${body.slice(0, 200)}`);
    return performance.now() - spawnedAt;
  };
  const basic = { authorization: `Basic ${Buffer.from("admin:admin").toString("base64")}` };
  const times = await Promise.all([
    answered(`${urls.dashboard}/api/user`, { headers: basic }, (b) => (JSON.parse(b) as { login?: string }).login === "admin"),
    answered(`${urls.logs}/ready`, {}, (b) => b.trim() === "ready"),
    answered(`${urls.metrics}/ready`, {}, (b) => b.trim() === "ready"),
  ]);
  return Math.max(...times);
}
const loadAtStart = loadavg()[0]!;
const base = mkdtempSync(join(tmpdir(), "outpost-bench-"));
const args = (dir: string) => ["serve", "--data-dir", dir, "--http-port", "0", "--logs-port", "0", "--metrics-port", "0", "--log-level", "warn"];
const settle = async () => {
  spawnSync("sync");
  await new Promise((r) => setTimeout(r, 500));
};
/** starts b on dir after the disk settles, records its figures into `into`, and stops it */
async function timeStart(b: string, dir: string, into: Samples): Promise<void> {
  await settle();
  const started = await startBinary(b, args(dir));
  into.ready.push(started.readyMs);
  into.cpu.push(cpuMs(started.child.pid));
  into.main.push(cpuMs(started.child.pid, true));
  into.answered.push(await answeredMs(started));
  await stopBinary(started.child);
}
try {
  for (let i = 0; i < runs; i++) {
    for (const [n, b] of binaries.entries()) {
      const dir = join(base, `d${i}-${n}`);
      const t = times.get(b)!;
      await timeStart(b, dir, t.first);
      await timeStart(b, dir, t.restart);
    }
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
const fmt = (xs: number[]) => `median ${Math.round(median(xs))} ms (min ${Math.round(Math.min(...xs))}, max ${Math.round(Math.max(...xs))})`;
for (const b of binaries) {
  const t = times.get(b)!;
  if (compare) console.log(`${b}:`);
  console.log(`first boot, new data dir:   ${fmt(t.first.ready)}`);
  console.log(`restart, existing data dir: ${fmt(t.restart.ready)}`);
  console.log(`first boot until first answered /api/user (and both /ready): ${fmt(t.first.answered)}`);
  console.log(`restart until first answered /api/user (and both /ready):    ${fmt(t.restart.answered)}`);
  if (t.first.cpu.every(Number.isFinite)) {
    console.log(`CPU time used when ready:   first boot ${fmt(t.first.cpu)}; restart ${fmt(t.restart.cpu)}`);
    console.log(`  of it the main thread:    first boot ${fmt(t.first.main)}; restart ${fmt(t.restart.main)}`);
  }
}
const own = times.get(binary)!;
const spread = (xs: number[]) => ({ min: Math.round(Math.min(...xs)), max: Math.round(Math.max(...xs)), runs: xs.length });
report.figure("first boot, new data dir (median)", Math.round(median(own.first.ready)), "ms", "< 1000", spread(own.first.ready));
report.figure("restart, existing data dir (median)", Math.round(median(own.restart.ready)), "ms", "< 500", spread(own.restart.ready));
report.figure("first boot until first answered /api/user", Math.round(median(own.first.answered)), "ms", null, spread(own.first.answered));
report.figure("restart until first answered /api/user", Math.round(median(own.restart.answered)), "ms", null, spread(own.restart.answered));
if (own.first.cpu.every(Number.isFinite)) {
  report.figure("first boot CPU time when ready (median)", Math.round(median(own.first.cpu)), "ms", null, spread(own.first.cpu));
  report.figure("restart CPU time when ready (median)", Math.round(median(own.restart.cpu)), "ms", null, spread(own.restart.cpu));
  report.figure("first boot main-thread CPU time when ready (median)", Math.round(median(own.first.main)), "ms", null, spread(own.first.main));
  report.figure("restart main-thread CPU time when ready (median)", Math.round(median(own.restart.main)), "ms", null, spread(own.restart.main));
}
const [load1, load5] = loadavg();
console.log(`load average: ${loadAtStart.toFixed(2)} at the start, ${load1!.toFixed(2)} (1 min) and ${load5!.toFixed(2)} (5 min) at the end, on ${availableParallelism()} cores`);
report.save();
