// Work that may run off the event loop: named task functions, and a runner
// that runs them. A task function is pure (input in, result out, no shared
// state), so it can run on a worker thread (the worker pool) or, where no
// worker is available, on this thread. A long task polls `cancelled()` and
// stops when it turns true.

export interface TaskContext {
  /** true once the caller gave up (aborted, timed out): stop and return anything */
  cancelled(): boolean;
}

/** a task's answer; `transfer` lists buffers moved (not copied) to the caller */
export interface TaskOutput<T = unknown> {
  result: T;
  transfer?: ArrayBuffer[];
}

export type TaskFn = (input: any, ctx: TaskContext) => TaskOutput; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface RunOptions {
  signal?: AbortSignal | undefined;
  /** buffers of `input` moved to the worker (the caller must not use them after) */
  transfer?: ArrayBuffer[] | undefined;
  /**
   * "background": throughput work (encoding chunks) that waits while any other task waits, so a
   * query's tasks are not queued behind an ingest's backlog
   */
  priority?: "background" | undefined;
}

export interface TaskRunner {
  run<T>(name: string, input: unknown, options?: RunOptions): Promise<T>;
  /** how many tasks may run at once */
  readonly size: number;
  /** true when tasks run on this thread (the caller should yield between them) */
  readonly inline?: boolean;
  close(): Promise<void>;
}

/** runs tasks on this thread, one at a time as called (for tests and where no worker can start) */
export function inlineRunner(tasks: Record<string, TaskFn>): TaskRunner {
  return {
    size: 1,
    inline: true,
    async run<T>(name: string, input: unknown, options: RunOptions = {}): Promise<T> {
      const fn = tasks[name];
      if (!fn) throw new Error(`no task named ${name}`);
      options.signal?.throwIfAborted();
      return fn(input, { cancelled: () => options.signal?.aborted ?? false }).result as T;
    },
    async close() {},
  };
}
