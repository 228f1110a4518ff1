// The log store's tasks for the worker pool (lib/tasks.ts): decoding and
// scanning chunks for queries, encoding chunks for the write path.
import type { TaskFn } from "../../../lib/tasks.ts";

export const logTasks: Record<string, TaskFn> = {};
