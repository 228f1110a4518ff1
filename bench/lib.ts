// Helpers for benchmarks: start the compiled binary and time it, and record
// the figures (report.figure next to each printed figure, report.save() at
// the end: bench/results/<name>.json, see bench/report.ts).
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { benchmarkName, Report } from "./report.ts";

/** this benchmark's figures, saved as bench/results/<script name>.json */
export const report = new Report(benchmarkName(process.argv[1] ?? "bench"));

export interface Started {
  child: ChildProcess;
  urls: Record<string, string>;
  /** ms from spawn until every listener's address line was printed */
  readyMs: number;
  /** performance.now() when the process was spawned */
  spawnedAt: number;
}

export function startBinary(binary: string, args: string[], services = 3): Promise<Started> {
  const t0 = performance.now();
  const child = spawn(binary, args, { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    const urls: Record<string, string> = {};
    let buffer = "";
    let stderr = "";
    // the start of stderr is kept for a failure message; request log lines past it are read and dropped
    child.stderr!.on("data", (d: Buffer) => { if (stderr.length < 65_536) stderr += d.toString(); });
    child.stdout!.on("data", (d: Buffer) => {
      buffer += d.toString();
      for (const m of buffer.matchAll(/^(\S+) listening on (\S+)$/gm)) urls[m[1]!] = m[2]!;
      if (Object.keys(urls).length >= services) resolve({ child, urls, readyMs: performance.now() - t0, spawnedAt: t0 });
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code}: ${stderr}`)));
  });
}

/**
 * The compiled binary (BINARY, or dist/outpost) serving the metrics store
 * alone, in a data directory of its own, its ingestion rate limit out of the
 * way (the figures are the store's, not the rate limiter's); `stop` ends it
 * and removes the directory.
 */
export async function startMetricsStore(prefix: string): Promise<{ server: Started; stop(): Promise<void> }> {
  const binary = process.env.BINARY ?? join(import.meta.dirname, "..", "dist", "outpost");
  if (!existsSync(binary)) throw new Error("dist/outpost is missing: run npm run build first");
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const server = await startBinary(binary, [
    "serve", "--data-dir", join(dir, "data"), "--http-port", "0", "--no-logs", "--metrics-port", "0", "--log-level", "warn",
    "--metrics-ingestion-rate", "100000000", "--metrics-ingestion-burst-size", "100000000",
  ], 2);
  return {
    server,
    async stop() {
      await stopBinary(server.child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A sender's loop: a body from each maker in turn, made with a newer time
 * (ms) and value than the last (so every sample is new), posted until the
 * deadline; `send` posts one and says whether it was accepted.
 */
export async function pushUntil<B>(deadline: number, makers: Array<(t: number, v: number) => B>, send: (body: B) => Promise<boolean>): Promise<{ accepted: number; failed: number }> {
  const out = { accepted: 0, failed: 0 };
  let last = 0;
  let value = 0;
  while (Date.now() < deadline) {
    for (const make of makers) {
      last = Math.max(Date.now(), last + 1);
      value++;
      if (await send(make(last, value))) out.accepted++;
      else out.failed++;
    }
  }
  return out;
}

export function stopBinary(child: ChildProcess, signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    child.once("exit", (code) => resolve(code));
    child.kill(signal);
  });
}

export function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** the p-th percentile (0..100) by the nearest-rank method; NaN for no values */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

/** resident set size of a process in MiB (Linux /proc; 0 elsewhere) */
export function rssMiB(pid: number | undefined): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

export interface Throughput {
  rps: number;
  p99: number;
  /** non-2xx responses and transport errors */
  bad: number;
}

/** requests per second of one URL under load (autocannon, in this process) */
export async function throughput(
  url: string,
  options: { seconds: number; connections: number; headers?: Record<string, string>; method?: "GET" | "POST"; body?: string },
): Promise<Throughput> {
  const { default: autocannon } = await import("autocannon");
  const r = await autocannon({
    url, connections: options.connections, duration: options.seconds, headers: options.headers ?? {},
    method: options.method ?? "GET", ...(options.body !== undefined ? { body: options.body } : {}),
  });
  return { rps: r.requests.average, p99: r.latency.p99, bad: r.non2xx + r.errors };
}

export { mulberry32 as rng } from "../test/helpers/rng.ts";
