// Small tasks that exercise the worker pool itself: its tests and the
// `outpost selftest` command run them on every runtime and build.
import { isMainThread, threadId } from "node:worker_threads";
import type { TaskFn } from "./tasks.ts";

/** spins for at most `ms`, calling `stop` between slices; true when stop() said so */
function spin(ms: number, stop: () => boolean): boolean {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (stop()) return true;
    for (let i = 0; i < 10_000; i++) Math.sqrt(i);
  }
  return false;
}

export const selftestTasks: Record<string, TaskFn> = {
  /** the input back, with the thread it ran on; an ArrayBuffer input comes back transferred */
  "selftest.echo": (input: unknown) => ({
    result: { value: input, threadId },
    transfer: input instanceof ArrayBuffer ? [input] : [],
  }),
  /** a new buffer of `bytes` bytes filled with `fill`, moved to the caller */
  "selftest.fill": (input: { bytes: number; fill: number }) => {
    const bytes = new Uint8Array(input.bytes).fill(input.fill);
    return { result: { buffer: bytes.buffer, threadId }, transfer: [bytes.buffer] };
  },
  /** counts itself in `counter` (an Int32Array on shared memory) and waits until `expect` tasks have */
  "selftest.meet": (input: { counter: Int32Array; expect: number; maxMs: number }) => {
    Atomics.add(input.counter, 0, 1);
    const met = spin(input.maxMs, () => Atomics.load(input.counter, 0) >= input.expect);
    return { result: { met, threadId } };
  },
  /** busy until cancelled (or `maxMs`) */
  "selftest.spin": (input: { maxMs: number }, ctx) => ({ result: { cancelled: spin(input.maxMs, () => ctx.cancelled()), threadId } }),
  /** busy for `ms`, never looking at cancellation */
  "selftest.stuck": (input: { ms: number }) => ({ result: { cancelled: spin(input.ms, () => false), threadId } }),
  /** throws an error of the given name and message */
  "selftest.throw": (input: { name: string; message: string; code?: string }) => {
    const err = new Error(input.message);
    err.name = input.name;
    if (input.code) Object.assign(err, { code: input.code });
    throw err;
  },
  /** ends its worker thread before it answers (process.exit ends only the worker); refused on the main thread */
  "selftest.crash": () => {
    if (isMainThread) throw new Error("selftest.crash only runs on a worker thread");
    process.exit(70);
  },
};
