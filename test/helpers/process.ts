// Runs Outpost as a child process (compiled binary, Node bundle, or source
// under Bun/Deno) and reads the listener addresses it prints.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { bunBin, repoRoot } from "./paths.ts";

/** how long a child process may take to start or to run to its end on a loaded machine */
export const CHILD_DEADLINE_MS = 60_000;

export interface Child {
  process: ChildProcess;
  urls: Record<string, string>;
  stdout(): string;
  stderr(): string;
  /** sends a signal and resolves with the exit code */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function startChild(command: string, args: string[], options: { cwd?: string; services?: number; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<Child> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  let out = "";
  let err = "";
  const urls: Record<string, string> = {};
  const handle: Child = {
    process: child,
    urls,
    stdout: () => out,
    stderr: () => err,
    stop: (signal = "SIGTERM") =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
        child.once("exit", (code) => resolve(code));
        child.kill(signal);
      }),
  };
  const wanted = options.services ?? 3;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`no listener lines after ${options.timeoutMs ?? CHILD_DEADLINE_MS} ms\nstdout: ${out}\nstderr: ${err}`));
    }, options.timeoutMs ?? CHILD_DEADLINE_MS);
    child.stderr!.on("data", (d: Buffer) => { err += d.toString(); });
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      for (const m of out.matchAll(/^(\S+) listening on (\S+)$/gm)) urls[m[1]!] = m[2]!;
      if (Object.keys(urls).length >= wanted) {
        clearTimeout(timer);
        resolve(handle);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with code ${code} before listening\nstdout: ${out}\nstderr: ${err}`));
    });
  });
}

export interface RunResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** runs a command to completion (for commands that exit by themselves) */
export function runToExit(command: string, args: string[], options: { cwd?: string; timeoutMs?: number; input?: string } = {}): RunResult {
  const r = spawnSync(command, args, { cwd: options.cwd, encoding: "utf8", timeout: options.timeoutMs ?? CHILD_DEADLINE_MS, input: options.input ?? "" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export const freePortArgs = ["--http-port", "0", "--logs-port", "0", "--metrics-port", "0"];

/**
 * Runs the source under Bun on one data dir, as many times as a test starts
 * it (restarts, crashes); every child is killed and the dir removed after
 * the enclosing block.
 */
export function useDataDirServer(prefix: string): { start(): Promise<Child>; dataDir: string } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const children: Child[] = [];
  afterAll(async () => {
    for (const c of children) await c.stop("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    /** the server's --data-dir (a test may prepare or damage it between runs) */
    dataDir: join(dir, "data"),
    async start() {
      const child = await startChild(bunBin, [join(repoRoot, "src", "main.ts"), "serve", "--data-dir", join(dir, "data"), ...freePortArgs], { cwd: dir });
      children.push(child);
      return child;
    },
  };
}

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** the CLI from the source under Bun, without blocking this process (a load may run meanwhile) */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliRun> {
  return new Promise((resolve) => {
    const child = spawn(bunBin, [join(repoRoot, "src", "main.ts"), ...args], { cwd, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.once("exit", (status) => resolve({ status, stdout, stderr }));
  });
}
