// outpost selftest (hidden): checks that this build can start the worker
// pool's workers and run a task on one: prints one JSON line and exits 0, or
// says what failed. The tests run it against the compiled binary and the
// Node.js bundle, whose worker entries are build outputs of their own.
import type { Command } from "commander";
import { threadId } from "node:worker_threads";
import { createLogger } from "../lib/logger.ts";
import { runtimeVersion } from "../platform/runtime.ts";
import { createTaskPool } from "../platform/workers.ts";
import { CliError, EXIT_FAILURE } from "./exit-codes.ts";

export function registerSelftest(program: Command): void {
  program
    .command("selftest", { hidden: true })
    .description("run a task on a worker thread of the pool and print where it ran")
    .action(async () => {
      const logger = createLogger({ level: "warn", format: "logfmt" });
      const pool = createTaskPool({ threads: 1, logger });
      try {
        const started = performance.now();
        const echo = await pool.run<{ value: string; threadId: number }>("selftest.echo", "pong");
        const ms = Math.round(performance.now() - started);
        if (echo.value !== "pong" || echo.threadId === threadId) throw new Error(`unexpected answer ${JSON.stringify(echo)}`);
        process.stdout.write(JSON.stringify({ runtime: runtimeVersion(), mainThread: threadId, workerThread: echo.threadId, firstTaskMs: ms }) + "\n");
      } catch (err) {
        throw new CliError(`the worker pool failed: ${err instanceof Error ? err.message : String(err)}`, EXIT_FAILURE);
      } finally {
        await pool.close();
      }
    });
}
