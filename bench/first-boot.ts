// Cold first boot and restart of the compiled binary: time from spawn until
// all three listeners have printed their addresses, on a new data dir and
// again on the same (now existing) data dir.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, startBinary, stopBinary } from "./lib.ts";

const binary = join(import.meta.dirname, "..", "dist", "outpost");
if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");

const runs = Number(process.env.RUNS ?? 7);
const first: number[] = [];
const restart: number[] = [];
const base = mkdtempSync(join(tmpdir(), "outpost-bench-"));
const args = (dir: string) => ["serve", "--data-dir", dir, "--http-port", "0", "--logs-port", "0", "--metrics-port", "0", "--log-level", "warn"];
try {
  for (let i = 0; i < runs; i++) {
    const dir = join(base, `d${i}`);
    const a = await startBinary(binary, args(dir));
    first.push(a.readyMs);
    await stopBinary(a.child);
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
