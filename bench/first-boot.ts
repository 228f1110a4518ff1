// Cold first boot and restart of the compiled binary: time from spawn until
// all three listeners have printed their addresses, on a new data dir and
// again on the same (now existing) data dir. Before each start the disk is
// synced and left to settle, so one run's write-back does not slow the next
// (each first boot writes ~30 MB).
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, report, startBinary, stopBinary } from "./lib.ts";

const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");

const runs = Number(process.env.RUNS ?? 7);
const first: number[] = [];
const restart: number[] = [];
const base = mkdtempSync(join(tmpdir(), "outpost-bench-"));
const args = (dir: string) => ["serve", "--data-dir", dir, "--http-port", "0", "--logs-port", "0", "--metrics-port", "0", "--log-level", "warn"];
const settle = async () => {
  spawnSync("sync");
  await new Promise((r) => setTimeout(r, 500));
};
try {
  for (let i = 0; i < runs; i++) {
    const dir = join(base, `d${i}`);
    await settle();
    const a = await startBinary(binary, args(dir));
    first.push(a.readyMs);
    await stopBinary(a.child);
    await settle();
    const b = await startBinary(binary, args(dir));
    restart.push(b.readyMs);
    await stopBinary(b.child);
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
const fmt = (xs: number[]) => `median ${Math.round(median(xs))} ms (min ${Math.round(Math.min(...xs))}, max ${Math.round(Math.max(...xs))})`;
console.log(`first boot, new data dir:   ${fmt(first)}`);
console.log(`restart, existing data dir: ${fmt(restart)}`);
const spread = (xs: number[]) => ({ min: Math.round(Math.min(...xs)), max: Math.round(Math.max(...xs)), runs: xs.length });
report.figure("first boot, new data dir (median)", Math.round(median(first)), "ms", "< 1000", spread(first));
report.figure("restart, existing data dir (median)", Math.round(median(restart)), "ms", "< 500", spread(restart));
report.save();
