// The worker pool's worker (lib/worker-pool.ts), serving every task registry
// (src/tasks.ts). One module on every runtime: Bun and Deno load it as
// TypeScript, the compiled binary embeds it as an entry point of its own,
// Node.js runs a bundle of it (dist/outpost-worker.mjs beside
// dist/outpost.mjs; from the source tree dist/gen/worker-entry.mjs, see
// platform/workers.ts).
import { serveTasks } from "../lib/task-worker.ts";
import { allTasks } from "../tasks.ts";

serveTasks(allTasks);
