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
const times = new Map(binaries.map((b) => [b, { first: [] as number[], restart: [] as number[], firstCpu: [] as number[], restartCpu: [] as number[], firstAnswered: [] as number[], restartAnswered: [] as number[], firstMain: [] as number[], restartMain: [] as number[] }]));

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
try {
  for (let i = 0; i < runs; i++) {
    for (const [n, b] of binaries.entries()) {
      const dir = join(base, `d${i}-${n}`);
      const t = times.get(b)!;
      await settle();
      const first = await startBinary(b, args(dir));
      t.first.push(first.readyMs);
      t.firstCpu.push(cpuMs(first.child.pid));
      t.firstMain.push(cpuMs(first.child.pid, true));
      t.firstAnswered.push(await answeredMs(first));
      await stopBinary(first.child);
      await settle();
      const again = await startBinary(b, args(dir));
      t.restart.push(again.readyMs);
      t.restartCpu.push(cpuMs(again.child.pid));
      t.restartMain.push(cpuMs(again.child.pid, true));
      t.restartAnswered.push(await answeredMs(again));
      await stopBinary(again.child);
    }
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
const fmt = (xs: number[]) => `median ${Math.round(median(xs))} ms (min ${Math.round(Math.min(...xs))}, max ${Math.round(Math.max(...xs))})`;
for (const b of binaries) {
  const t = times.get(b)!;
  if (compare) console.log(`${b}:`);
  console.log(`first boot, new data dir:   ${fmt(t.first)}`);
  console.log(`restart, existing data dir: ${fmt(t.restart)}`);
  console.log(`first boot until first answered /api/user (and both /ready): ${fmt(t.firstAnswered)}`);
  console.log(`restart until first answered /api/user (and both /ready):    ${fmt(t.restartAnswered)}`);
  if (t.firstCpu.every(Number.isFinite)) {
    console.log(`CPU time used when ready:   first boot ${fmt(t.firstCpu)}; restart ${fmt(t.restartCpu)}`);
    console.log(`  of it the main thread:    first boot ${fmt(t.firstMain)}; restart ${fmt(t.restartMain)}`);
  }
}
const own = times.get(binary)!;
const spread = (xs: number[]) => ({ min: Math.round(Math.min(...xs)), max: Math.round(Math.max(...xs)), runs: xs.length });
report.figure("first boot, new data dir (median)", Math.round(median(own.first)), "ms", "< 1000", spread(own.first));
report.figure("restart, existing data dir (median)", Math.round(median(own.restart)), "ms", "< 500", spread(own.restart));
report.figure("first boot until first answered /api/user", Math.round(median(own.firstAnswered)), "ms", null, spread(own.firstAnswered));
report.figure("restart until first answered /api/user", Math.round(median(own.restartAnswered)), "ms", null, spread(own.restartAnswered));
if (own.firstCpu.every(Number.isFinite)) {
  report.figure("first boot CPU time when ready (median)", Math.round(median(own.firstCpu)), "ms", null, spread(own.firstCpu));
  report.figure("restart CPU time when ready (median)", Math.round(median(own.restartCpu)), "ms", null, spread(own.restartCpu));
  report.figure("first boot main-thread CPU time when ready (median)", Math.round(median(own.firstMain)), "ms", null, spread(own.firstMain));
  report.figure("restart main-thread CPU time when ready (median)", Math.round(median(own.restartMain)), "ms", null, spread(own.restartMain));
}
const [load1, load5] = loadavg();
console.log(`load average: ${loadAtStart.toFixed(2)} at the start, ${load1!.toFixed(2)} (1 min) and ${load5!.toFixed(2)} (5 min) at the end, on ${availableParallelism()} cores`);
report.save();
