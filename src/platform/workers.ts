// The process's worker pool (lib/worker-pool.ts) and where its worker entry
// (platform/worker-entry.ts) is on each runtime:
//   - the compiled binary and the Node.js bundle register the entry they ship
//     (an entry point of `bun build --compile`; dist/outpost-worker.mjs);
//   - Bun and Deno from the source tree load the TypeScript module itself;
//   - Node.js from the source tree (vitest) cannot load a .ts worker: it runs a
//     bundle of the entry in dist/gen, which scripts/prepare.ts builds and
//     which is rebuilt here (with the bun of node_modules) when older than
//     the sources.
// Nothing is spawned or built until the first task runs.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { Logger } from "../lib/logger.ts";
import { createWorkerPool, type WorkerPool } from "../lib/worker-pool.ts";
import { allTasks } from "../tasks.ts";
import { embeddedTaskWorker } from "./embedded.ts";
import { runtime } from "./runtime.ts";

export interface TaskPoolOptions {
  /** server.worker_threads: "auto" (one per core), 0 (inline, on the main thread) or a count */
  threads: number | "auto";
  logger: Logger;
  /** how long a cancelled task may run on before its worker is terminated */
  cancelGraceMs?: number;
  /** how long an idle worker lives on (default the pool's, 15 s) */
  idleMs?: number;
}

export function poolSize(threads: number | "auto"): number {
  return threads === "auto" ? availableParallelism() : threads;
}

export function createTaskPool(o: TaskPoolOptions): WorkerPool {
  return createWorkerPool({
    size: poolSize(o.threads),
    tasks: allTasks,
    entry: taskWorkerEntry,
    ...(o.cancelGraceMs === undefined ? {} : { cancelGraceMs: o.cancelGraceMs }),
    ...(o.idleMs === undefined ? {} : { idleMs: o.idleMs }),
    onWorkerExit: ({ reason, task }) => o.logger.warn("a worker thread of the pool ended", { reason, task: task ?? "" }),
  });
}

const sourceDir = fileURLToPath(new URL("../", import.meta.url));
const repoRoot = join(sourceDir, "..");

/** the bundle of the entry that Node.js runs from the source tree */
export const devNodeWorker = join(repoRoot, "dist", "gen", "worker-entry.mjs");

export function taskWorkerEntry(): URL {
  const built = embeddedTaskWorker();
  if (built) return built;
  if (runtime !== "node") return new URL("./worker-entry.ts", import.meta.url);
  ensureDevNodeWorker();
  return pathToFileURL(devNodeWorker);
}

/** builds dist/gen/worker-entry.mjs when missing or older than a source file (scripts/prepare.ts runs it too) */
export function ensureDevNodeWorker(): void {
  if (!isCurrent(devNodeWorker)) buildDevNodeWorker();
}

function isCurrent(bundle: string): boolean {
  if (!existsSync(bundle)) return false;
  const built = statSync(bundle).mtimeMs;
  const newer = (dir: string): boolean =>
    readdirSync(dir, { withFileTypes: true }).some((e) => {
      const p = join(dir, e.name);
      return e.isDirectory() ? newer(p) : statSync(p).mtimeMs > built;
    });
  return !newer(sourceDir);
}

function buildDevNodeWorker(): void {
  const bun = join(repoRoot, "node_modules", ".bin", "bun");
  mkdirSync(dirname(devNodeWorker), { recursive: true });
  // built beside, then renamed: test processes running at once each see a whole file
  const tmp = `${devNodeWorker}.${process.pid}.tmp.mjs`;
  try {
    execFileSync(existsSync(bun) ? bun : "bun", ["build", join(sourceDir, "platform", "worker-entry.ts"), "--target", "node", "--format", "esm", "--outfile", tmp], {
      cwd: repoRoot,
      stdio: "pipe",
    });
    renameSync(tmp, devNodeWorker);
  } catch (err) {
    const detail = (err as { stderr?: Buffer }).stderr?.toString().trim() || String(err);
    throw new Error(
      `the worker pool's worker for Node.js (${devNodeWorker}) is missing or older than the sources and could not be built: ${detail}. ` +
        "Run `npx bun scripts/prepare.ts`, or set server.worker_threads to 0.",
    );
  }
}
