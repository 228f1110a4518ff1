// A pool of worker threads that runs named task functions (lib/tasks.ts) off
// the event loop that serves requests. One pool per process, shared by the
// stores. Workers start on the first task (a start that runs no query spawns
// none), tasks wait in one FIFO queue, buffers move both ways by transfer.
//
// Cancellation: a queued task whose signal aborts leaves the queue at once; a
// running one is told through a SharedArrayBuffer flag per worker (the task
// polls ctx.cancelled()). Its caller is answered at once; a task that has not
// returned within `cancelGraceMs` has its worker terminated and replaced, so a
// cancelled query stops consuming CPU. A worker that dies fails its task.
//
// The worker side (lib/task-worker.ts) runs in the worker entry module of
// each runtime (platform/worker-entry.ts); where the entry is, is the caller's.
import { Worker } from "node:worker_threads";
import { Counter, Gauge, type Metric, type Registry } from "prom-client";
import { reviveError, type Reply } from "./task-worker.ts";
import { inlineRunner, type RunOptions, type TaskFn, type TaskRunner } from "./tasks.ts";


/**
 * A task whose worker ended while running it (it crashed, ran out of memory, or was stopped): the
 * input may be what killed it, so a caller must not simply run it again on the event loop.
 */
export class WorkerDiedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "WorkerDiedError";
  }
}

export interface WorkerPoolOptions {
  /** worker threads at most; 0 runs every task inline, on this thread */
  size: number;
  /** the task functions, for the inline mode (workers load their own registry from the entry) */
  tasks: Record<string, TaskFn>;
  /** the worker entry module (it calls serveTasks); resolved at the first spawn */
  entry: () => URL | string;
  /** how long a cancelled task may keep running before its worker is terminated (default 1 s) */
  cancelGraceMs?: number;
  /** how long a worker may sit idle before it is ended, its memory given back (default 15 s; 0: never) */
  idleMs?: number;
  /** told when a worker dies or is terminated */
  onWorkerExit?: (info: { reason: string; task: string | undefined }) => void;
}

export interface PoolStats {
  workers: number;
  busy: number;
  queued: number;
}

export interface WorkerPool extends TaskRunner {
  /** adds the pool's metrics (tasks run/failed by task, queue length, busy workers) to a registry */
  registerMetrics(registry: Registry): void;
  stats(): PoolStats;
}

/** adds the pool's metrics to a store's registry when its runner is a worker pool (not an inline runner) */
export function registerPoolMetrics(runner: TaskRunner | undefined, registry: Registry): void {
  if (runner && "registerMetrics" in runner && typeof runner.registerMetrics === "function") (runner as WorkerPool).registerMetrics(registry);
}

interface Job {
  id: number;
  name: string;
  input: unknown;
  transfer: ArrayBuffer[];
  signal: AbortSignal | undefined;
  background: boolean;
  resolve(value: unknown): void;
  reject(err: unknown): void;
  /** answered (result, error or abort): what comes later is dropped */
  settled: boolean;
  detach(): void;
}

interface Slot {
  worker: Worker;
  flag: Int32Array;
  job: Job | undefined;
  /** set when the slot is leaving (terminated or exited): it takes no more tasks */
  gone: boolean;
  killTimer: ReturnType<typeof setTimeout> | undefined;
  /** the error the worker reported before it exited */
  error: unknown;
  /** why the pool terminated it */
  terminated: string | undefined;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** ended by the pool for sitting idle (not a death) */
  idle?: boolean;
}

export function createWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const size = Math.max(0, Math.floor(options.size));
  const grace = options.cancelGraceMs ?? 1_000;
  const idleMs = options.idleMs ?? 15_000;
  const metrics = poolMetrics();
  let inline: TaskRunner | undefined;
  if (size === 0) inline = inlineRunner(options.tasks);
  const slots: Slot[] = [];
  const queue = new JobQueue();
  let nextId = 1;
  let closed = false;
  let entry: URL | string | undefined;

  const stats = (): PoolStats => ({
    workers: slots.length,
    busy: inline ? metrics.inlineBusy : slots.filter((s) => s.job).length,
    queued: queue.size,
  });
  metrics.stats = stats;

  const settle = (job: Job, outcome: { value: unknown } | { error: unknown }) => {
    if (job.settled) return;
    job.settled = true;
    job.detach();
    if ("error" in outcome) {
      metrics.failed.inc({ task: job.name });
      job.reject(outcome.error);
    } else job.resolve(outcome.value);
  };

  const spawn = (): Slot => {
    entry ??= options.entry();
    const shared = new SharedArrayBuffer(4);
    const worker = new Worker(entry, { workerData: { cancelFlag: shared } });
    const slot: Slot = { worker, flag: new Int32Array(shared), job: undefined, gone: false, killTimer: undefined, error: undefined, terminated: undefined, idleTimer: undefined };
    worker.on("message", (reply: Reply) => {
      const job = slot.job;
      if (!job || job.id !== reply.id) return;
      finish(slot);
      settle(job, "error" in reply ? { error: reviveError(reply.error) } : { value: reply.result });
      dispatch();
    });
    worker.on("error", (err: unknown) => {
      slot.error ??= err;
    });
    worker.on("exit", (code: number) => {
      const job = slot.job;
      const cause = slot.error;
      const reason = slot.terminated ?? (cause instanceof Error ? `failed: ${cause.message}` : `exited with code ${code}`);
      leave(slot);
      if (job) settle(job, { error: new WorkerDiedError(`worker ${reason} while running ${job.name}`, { cause }) });
      if (!closed && !slot.idle) {
        metrics.ended.inc({ reason: slot.terminated ? "cancelled" : "died" });
        options.onWorkerExit?.({ reason, task: job?.name });
      }
      dispatch();
    });
    // an idle worker does not keep the process alive
    worker.unref();
    slots.push(slot);
    return slot;
  };

  /** the slot's task is over (answered or given up) */
  const finish = (slot: Slot) => {
    slot.job = undefined;
    clearTimeout(slot.killTimer);
    slot.killTimer = undefined;
    if (slot.gone) return;
    slot.worker.unref();
    // a worker left idle is ended: what its heap grew to (decoded chunks, a query's
    // series) goes back to the system; the next task spawns a fresh one
    if (idleMs > 0) {
      clearTimeout(slot.idleTimer);
      slot.idleTimer = setTimeout(() => {
        if (slot.gone || slot.job || closed) return;
        slot.idle = true;
        leave(slot);
        void slot.worker.terminate();
      }, idleMs);
      (slot.idleTimer as { unref?: () => void }).unref?.();
    }
  };

  /** the slot takes no more tasks; a replacement spawns when a task needs one */
  const leave = (slot: Slot) => {
    slot.gone = true;
    clearTimeout(slot.killTimer);
    clearTimeout(slot.idleTimer);
    const i = slots.indexOf(slot);
    if (i >= 0) slots.splice(i, 1);
  };

  const dispatch = () => {
    while (queue.size > 0 && !closed) {
      let slot = slots.find((s) => !s.job && !s.gone);
      if (!slot) {
        if (slots.length >= size) return;
        try {
          slot = spawn();
        } catch (err) {
          // no worker can start (its entry is missing or cannot be built): the waiting tasks fail, a later one tries again
          entry = undefined;
          for (const job of queue.drain()) settle(job, { error: err });
          return;
        }
      }
      const job = queue.take()!;
      clearTimeout(slot.idleTimer);
      slot.job = job;
      Atomics.store(slot.flag, 0, 0);
      slot.worker.ref();
      metrics.run.inc({ task: job.name });
      try {
        slot.worker.postMessage({ id: job.id, name: job.name, input: job.input }, job.transfer);
      } catch (err) {
        // the input cannot cross threads (not cloneable): this task fails alone
        finish(slot);
        settle(job, { error: err });
      }
    }
  };

  /** the caller of a running task gave up: tell the task, and end its worker if it does not stop */
  const cancelRunning = (slot: Slot) => {
    Atomics.store(slot.flag, 0, 1);
    slot.killTimer ??= setTimeout(() => {
      if (slot.gone || !slot.job) return;
      slot.terminated = `terminated: a cancelled task did not stop within ${grace} ms`;
      leave(slot);
      void slot.worker.terminate();
      dispatch();
    }, grace);
  };

  return {
    size: Math.max(1, size),
    inline: size === 0,
    stats,
    registerMetrics: (registry) => metrics.registerWith(registry),
    run<T>(name: string, input: unknown, opts: RunOptions = {}): Promise<T> {
      if (closed) return Promise.reject(new Error("the worker pool is closed"));
      if (inline) {
        const runner = inline;
        metrics.run.inc({ task: name });
        metrics.inlineBusy++;
        return runner.run<T>(name, input, opts).then(
          (v) => {
            metrics.inlineBusy--;
            return v;
          },
          (err: unknown) => {
            metrics.inlineBusy--;
            metrics.failed.inc({ task: name });
            throw err;
          },
        );
      }
      const { signal } = opts;
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => {
          // a waiting task just leaves the queue; a running one is told to stop
          if (!queue.remove(job)) {
            const slot = slots.find((s) => s.job === job);
            if (slot) cancelRunning(slot);
          }
          settle(job, { error: signal!.reason });
        };
        const job: Job = {
          id: nextId++,
          name,
          input,
          transfer: opts.transfer ?? [],
          signal,
          background: opts.priority === "background",
          resolve: resolve as (v: unknown) => void,
          reject,
          settled: false,
          detach: () => signal?.removeEventListener("abort", onAbort),
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(job);
        dispatch();
      });
    },
    async close() {
      closed = true;
      for (const job of queue.drain()) settle(job, { error: new Error("the worker pool is closed") });
      const leaving = slots.splice(0).map((slot) => {
        slot.gone = true;
        clearTimeout(slot.killTimer);
        clearTimeout(slot.idleTimer);
        return slot.worker.terminate();
      });
      await Promise.all(leaving);
    },
  };
}

/**
 * The waiting tasks: first in first out, background tasks only when no other
 * waits (a query's scans are not queued behind an ingest's encoding).
 */
class JobQueue {
  #normal = new FifoQueue();
  #background = new FifoQueue();

  get size(): number {
    return this.#normal.size + this.#background.size;
  }

  push(job: Job): void {
    (job.background ? this.#background : this.#normal).push(job);
  }

  take(): Job | undefined {
    return this.#normal.take() ?? this.#background.take();
  }

  /** true when the task was waiting (it will not run) */
  remove(job: Job): boolean {
    return this.#normal.remove(job) || this.#background.remove(job);
  }

  drain(): Job[] {
    return [...this.#normal.drain(), ...this.#background.drain()];
  }
}

/**
 * Tasks first in first out, in O(1) per task: a query may queue thousands
 * (a task per chunk) and cancel them all at once. A removed task stays in
 * the array, marked, and is skipped when its turn comes.
 */
class FifoQueue {
  #items: Array<Job | undefined> = [];
  #head = 0;
  #queued = new Set<Job>();

  get size(): number {
    return this.#queued.size;
  }

  push(job: Job): void {
    this.#items.push(job);
    this.#queued.add(job);
  }

  take(): Job | undefined {
    while (this.#head < this.#items.length) {
      const job = this.#items[this.#head];
      this.#items[this.#head++] = undefined;
      if (job && this.#queued.delete(job)) {
        this.#compact();
        return job;
      }
    }
    this.#compact();
    return undefined;
  }

  /** true when the task was waiting (it will not run) */
  remove(job: Job): boolean {
    return this.#queued.delete(job);
  }

  drain(): Job[] {
    const jobs = [...this.#queued];
    this.#items = [];
    this.#head = 0;
    this.#queued.clear();
    return jobs;
  }

  #compact(): void {
    if (this.#head === this.#items.length) {
      this.#items = [];
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
  }
}

interface PoolMetrics {
  run: Counter<"task">;
  failed: Counter<"task">;
  ended: Counter<"reason">;
  inlineBusy: number;
  stats: () => PoolStats;
  registerWith(registry: Registry): void;
}

function poolMetrics(): PoolMetrics {
  const m: PoolMetrics = {
    run: new Counter({ name: "svc_worker_pool_tasks_total", help: "Tasks started on the worker pool, by task name.", labelNames: ["task"], registers: [] }),
    failed: new Counter({ name: "svc_worker_pool_tasks_failed_total", help: "Tasks of the worker pool that failed or were cancelled, by task name.", labelNames: ["task"], registers: [] }),
    ended: new Counter({
      name: "svc_worker_pool_workers_ended_total",
      help: "Worker threads that ended while the pool ran: died (crashed, killed) or cancelled (terminated because a cancelled task did not stop); each is replaced when a task needs it.",
      labelNames: ["reason"],
      registers: [],
    }),
    inlineBusy: 0,
    stats: () => ({ workers: 0, busy: 0, queued: 0 }),
    registerWith(registry) {
      const all: Array<Metric<string>> = [m.run, m.failed, m.ended, ...gauges];
      for (const metric of all) registry.registerMetric(metric);
    },
  };
  const gauge = (name: string, help: string, read: (s: PoolStats) => number) =>
    new Gauge({
      name,
      help,
      registers: [],
      collect() {
        this.set(read(m.stats()));
      },
    });
  const gauges = [
    gauge("svc_worker_pool_queue_length", "Tasks waiting for a worker.", (s) => s.queued),
    gauge("svc_worker_pool_busy_workers", "Workers running a task.", (s) => s.busy),
    gauge("svc_worker_pool_workers", "Worker threads started.", (s) => s.workers),
  ];
  return m;
}
