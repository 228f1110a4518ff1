// The worker side of the worker pool (lib/worker-pool.ts): answers the
// pool's messages with a registry of task functions. Kept apart from the pool
// so that a worker loads only this and its tasks.
import { isMainThread, parentPort, workerData } from "node:worker_threads";
import type { TaskFn } from "./tasks.ts";

/** what a worker posts back for one task */
export type Reply = { id: number; result: unknown } | { id: number; error: SerializedError };

export interface SerializedError {
  name: string;
  message: string;
  stack?: string | undefined;
  /** the error's own fields that are plain values (a code, a chunk id...) */
  props?: Record<string, unknown>;
}

/** The worker side: answers the pool's messages with the given tasks. Called by the worker entry module. */
export function serveTasks(tasks: Record<string, TaskFn>): void {
  if (isMainThread || !parentPort) throw new Error("serveTasks runs in a worker thread");
  const port = parentPort;
  const flag = new Int32Array((workerData as { cancelFlag: SharedArrayBuffer }).cancelFlag);
  const ctx = { cancelled: () => Atomics.load(flag, 0) !== 0 };
  port.on("message", (msg: { id: number; name: string; input: unknown }) => {
    try {
      const fn = tasks[msg.name];
      if (!fn) throw new Error(`no task named ${msg.name}`);
      const out = fn(msg.input, ctx);
      port.postMessage({ id: msg.id, result: out.result } satisfies Reply, out.transfer ?? []);
    } catch (err) {
      port.postMessage({ id: msg.id, error: serializeError(err) } satisfies Reply);
    }
  });
}

function serializeError(err: unknown): SerializedError {
  if (!(err instanceof Error)) return { name: "Error", message: String(err) };
  const props: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(err)) {
    if (v === null || ["string", "number", "boolean", "bigint"].includes(typeof v)) props[k] = v;
  }
  return { name: err.name, message: err.message, stack: err.stack, props };
}

/** an Error on this thread with the task's name, message and plain fields */
export function reviveError(e: SerializedError): Error {
  const err = new Error(e.message);
  Object.assign(err, e.props ?? {});
  // an own property, as a subclass's `name` field would be
  Object.defineProperty(err, "name", { value: e.name, enumerable: false, writable: true, configurable: true });
  if (e.stack) err.stack = e.stack;
  return err;
}

