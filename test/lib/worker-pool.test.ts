// The worker pool (lib/worker-pool.ts) on the runtime running the tests, with
// the program's own worker entry (platform/workers.ts): under vitest Node.js
// runs the bundle of dist/gen, under bun test Bun loads the TypeScript entry.
// The builds' own entries are checked in test/e2e (outpost selftest).
import { threadId } from "node:worker_threads";
import { Registry } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/lib/logger.ts";
import { createWorkerPool, type WorkerPool } from "../../src/lib/worker-pool.ts";
import { createTaskPool } from "../../src/platform/workers.ts";
import { useServer } from "../helpers/server.ts";

type Echo<T = unknown> = { value: T; threadId: number };

const pools: WorkerPool[] = [];
function pool(threads: number, cancelGraceMs = 300, idleMs?: number): WorkerPool {
  const p = createTaskPool({ threads, logger: silentLogger, cancelGraceMs, ...(idleMs === undefined ? {} : { idleMs }) });
  pools.push(p);
  return p;
}
afterAll(async () => {
  for (const p of pools) await p.close();
});

/** what a task's promise settled with: "resolved", or the error's name and message */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => "resolved",
    (err: unknown) => `${(err as Error).name}: ${(err as Error).message}`,
  );
// (not `await expect(promise).rejects`: under bun test it hangs on a promise
// settled by a worker's reply, oven-sh/bun#37189; see test/README.md)
const aborted = async (promise: Promise<unknown>) => (await outcome(promise)).split(":")[0];

describe("worker pool", () => {
  it("runs a task on another thread, and spawns no worker before the first task", async () => {
    const p = pool(2);
    expect(p.stats()).toEqual({ workers: 0, busy: 0, queued: 0 });
    const echo = await p.run<Echo>("selftest.echo", { hello: "world", n: 1n });
    expect(echo.value).toEqual({ hello: "world", n: 1n });
    expect(echo.threadId).not.toBe(threadId);
    expect(p.stats()).toEqual({ workers: 1, busy: 0, queued: 0 });
    expect(p.size).toBe(2);
  }, 60_000);

  it("the event loop keeps turning while a task keeps a worker busy", async () => {
    const p = pool(1);
    let turns = 0;
    const timer = setInterval(() => turns++, 10);
    // busy on the worker until this thread has turned 20 times (or 30 s, if it never does)
    const ac = new AbortController();
    const spin = p.run<{ cancelled: boolean }>("selftest.spin", { maxMs: 30_000 }, { signal: ac.signal }).then(
      (r) => r,
      () => ({ cancelled: true }),
    );
    const turned = await new Promise<boolean>((resolve) => {
      const check = setInterval(() => {
        if (turns >= 20) resolve(true);
        else if (p.stats().busy === 0) resolve(false);
        else return;
        clearInterval(check);
      }, 10);
    });
    clearInterval(timer);
    expect(turned).toBe(true);
    expect(p.stats().busy).toBe(1);
    ac.abort();
    expect(await spin).toEqual({ cancelled: true });
  }, 60_000);

  it("runs tasks in parallel, up to its size", async () => {
    const p = pool(2);
    // each task waits until both have started: they only meet if they run at once
    const counter = new Int32Array(new SharedArrayBuffer(4));
    const met = await Promise.all([0, 1].map(() => p.run<{ met: boolean; threadId: number }>("selftest.meet", { counter, expect: 2, maxMs: 30_000 })));
    expect(met.map((m) => m.met)).toEqual([true, true]);
    expect(new Set(met.map((m) => m.threadId)).size).toBe(2);
    // more tasks than workers wait in the queue, in order, and all run
    const many = Array.from({ length: 6 }, (_, i) => p.run<Echo<number>>("selftest.echo", i));
    expect(p.stats().queued).toBe(4);
    const answers = await Promise.all(many);
    expect(answers.map((a) => a.value)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(new Set(answers.map((a) => a.threadId)).size).toBeLessThanOrEqual(2);
    expect(p.stats().workers).toBe(2);
  }, 60_000);

  it("moves buffers both ways", async () => {
    const p = pool(1);
    const sent = new Uint8Array([1, 2, 3, 4]).buffer;
    const back = await p.run<Echo<ArrayBuffer>>("selftest.echo", sent, { transfer: [sent] });
    // transferred, not copied: this side's buffer is detached
    expect(sent.byteLength).toBe(0);
    expect([...new Uint8Array(back.value)]).toEqual([1, 2, 3, 4]);
    const filled = await p.run<{ buffer: ArrayBuffer; threadId: number }>("selftest.fill", { bytes: 1 << 20, fill: 7 });
    expect(filled.buffer.byteLength).toBe(1 << 20);
    expect(new Uint8Array(filled.buffer)[12345]).toBe(7);
  }, 60_000);

  it("rejects with the task's error name, message and fields; unknown tasks and uncloneable inputs fail alone", async () => {
    const p = pool(1);
    const err = await p.run("selftest.throw", { name: "ChunkCorruptError", message: "chunk 42 is corrupt", code: "E_CRC" }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Error);
    expect(err).toMatchObject({ name: "ChunkCorruptError", message: "chunk 42 is corrupt", code: "E_CRC" });
    expect(await outcome(p.run("no.such.task", {}))).toBe("Error: no task named no.such.task");
    expect(await outcome(p.run("selftest.echo", { f: () => 1 }))).toMatch(/^DataCloneError: /);
    // the worker serves on
    expect((await p.run<Echo>("selftest.echo", 1)).value).toBe(1);
  }, 60_000);

  it("an aborted queued task leaves the queue at once; an aborted running task sees cancelled() and frees its worker", async () => {
    const p = pool(1);
    const first = await p.run<Echo>("selftest.echo", 0);
    const spinning = new AbortController();
    const spin = p.run<{ cancelled: boolean; threadId: number }>("selftest.spin", { maxMs: 50_000 }, { signal: spinning.signal });
    const queued = new AbortController();
    const waiting = p.run("selftest.echo", "never", { signal: queued.signal });
    expect(p.stats()).toMatchObject({ busy: 1, queued: 1 });
    queued.abort();
    expect(await aborted(waiting)).toBe("AbortError");
    expect(p.stats().queued).toBe(0);
    // an already aborted signal never queues
    expect(await aborted(p.run("selftest.echo", 1, { signal: AbortSignal.abort() }))).toBe("AbortError");

    spinning.abort();
    expect(await aborted(spin)).toBe("AbortError");
    // the task stopped by itself: the same worker runs the next one
    const next = await p.run<Echo>("selftest.echo", 2);
    expect(next.threadId).toBe(first.threadId);
  }, 60_000);

  it("cancels thousands of queued tasks at once and keeps the order of the rest", async () => {
    const p = pool(1);
    const busy = new AbortController();
    const spin = outcome(p.run("selftest.spin", { maxMs: 50_000 }, { signal: busy.signal }));
    const cancel = new AbortController();
    const all = Array.from({ length: 5000 }, (_, i) =>
      p.run<Echo<number>>("selftest.echo", i, i % 2 === 0 ? { signal: cancel.signal } : {}).then((e) => e.value, (e: Error) => e.name),
    );
    expect(p.stats().queued).toBe(5000);
    cancel.abort();
    expect(p.stats().queued).toBe(2500);
    busy.abort();
    expect(await spin).toMatch(/^AbortError/);
    const answers = await Promise.all(all);
    expect(answers.filter((a) => a === "AbortError").length).toBe(2500);
    expect(answers.filter((a) => typeof a === "number")).toEqual(Array.from({ length: 2500 }, (_, i) => 2 * i + 1));
    expect(p.stats()).toMatchObject({ busy: 0, queued: 0 });
  }, 60_000);

  it("terminates and replaces the worker of a cancelled task that does not stop", async () => {
    const p = pool(1, 200);
    const first = await p.run<Echo>("selftest.echo", 0);
    const ac = new AbortController();
    const stuck = p.run("selftest.stuck", { ms: 50_000 }, { signal: ac.signal });
    const after = p.run<Echo>("selftest.echo", 1);
    ac.abort();
    expect(await aborted(stuck)).toBe("AbortError");
    const registry = new Registry();
    p.registerMetrics(registry);
    // the next task runs on a new worker long before the stuck one would have ended
    const next = await after;
    expect(next.value).toBe(1);
    expect(next.threadId).not.toBe(first.threadId);
    expect(p.stats().workers).toBe(1);
    expect(await registry.metrics()).toContain('svc_worker_pool_workers_ended_total{reason="cancelled"} 1');
  }, 60_000);

  it("fails the waiting tasks with a clear message when no worker can start, and tries again later", async () => {
    let calls = 0;
    const p = createWorkerPool({
      size: 1,
      tasks: {},
      entry: () => {
        calls++;
        throw new Error("the worker pool's worker for Node.js is missing");
      },
    });
    pools.push(p);
    expect(await outcome(p.run("selftest.echo", 1))).toBe("Error: the worker pool's worker for Node.js is missing");
    expect(await outcome(p.run("selftest.echo", 2))).toBe("Error: the worker pool's worker for Node.js is missing");
    expect(calls).toBe(2);
    expect(p.stats()).toEqual({ workers: 0, busy: 0, queued: 0 });
  }, 60_000);

  it("ends a worker left idle (its memory goes back) and starts a new one for the next task, counting no death", async () => {
    const p = pool(1, 300, 200);
    const registry = new Registry();
    p.registerMetrics(registry);
    const first = await p.run<Echo>("selftest.echo", 0);
    expect(p.stats().workers).toBe(1);
    const deadline = Date.now() + 30_000;
    while (p.stats().workers > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(p.stats().workers).toBe(0);
    const next = await p.run<Echo>("selftest.echo", 1);
    expect(next.value).toBe(1);
    expect(next.threadId).not.toBe(first.threadId);
    expect(await registry.metrics()).not.toContain("svc_worker_pool_workers_ended_total{");
  }, 60_000);

  it("a waiting task goes before waiting background tasks (a query's scans before an ingest's encoding)", async () => {
    const p = pool(1);
    await p.run("selftest.echo", 0);
    const order: string[] = [];
    // the one worker busy for a while; then a background task and a normal one wait, in that order
    const busy = p.run("selftest.spin", { maxMs: 300 }).then(() => order.push("busy"));
    const background = p.run("selftest.echo", "bg", { priority: "background" }).then(() => order.push("background"));
    const normal = p.run("selftest.echo", "fg").then(() => order.push("normal"));
    await Promise.all([busy, background, normal]);
    expect(order).toEqual(["busy", "normal", "background"]);
  }, 60_000);

  it("fails the task of a worker that dies and replaces the worker", async () => {
    const p = pool(1);
    const first = await p.run<Echo>("selftest.echo", 0);
    expect(await outcome(p.run("selftest.crash", {}))).toMatch(/^WorkerDiedError: worker exited with code 70 while running selftest\.crash/);
    const next = await p.run<Echo>("selftest.echo", 1);
    expect(next.value).toBe(1);
    expect(next.threadId).not.toBe(first.threadId);
  }, 60_000);

  it("counts tasks run and failed by name, the queue and busy workers in /metrics text", async () => {
    const p = pool(1);
    const registry = new Registry();
    p.registerMetrics(registry);
    await p.run("selftest.echo", 1);
    await p.run("selftest.echo", 2);
    await p.run("selftest.throw", { name: "Error", message: "x" }).catch(() => {});
    const text = await registry.metrics();
    expect(text).toContain('svc_worker_pool_tasks_total{task="selftest.echo"} 2');
    expect(text).toContain('svc_worker_pool_tasks_total{task="selftest.throw"} 1');
    expect(text).toContain('svc_worker_pool_tasks_failed_total{task="selftest.throw"} 1');
    expect(text).toContain("svc_worker_pool_queue_length 0");
    expect(text).toContain("svc_worker_pool_busy_workers 0");
    expect(text).toContain("svc_worker_pool_workers 1");
  }, 60_000);

  it("close() fails queued tasks and refuses new ones", async () => {
    const p = createTaskPool({ threads: 1, logger: silentLogger });
    const failure = (e: unknown) => (e as Error).message;
    const running = p.run("selftest.spin", { maxMs: 50_000 }).catch(failure);
    const queued = p.run("selftest.echo", 1).catch(failure);
    await p.close();
    expect(await queued).toBe("the worker pool is closed");
    expect(await running).toMatch(/worker .*selftest\.spin/);
    expect(await outcome(p.run("selftest.echo", 2))).toBe("Error: the worker pool is closed");
  }, 60_000);

  it("worker_threads 0 runs every task inline, on this thread", async () => {
    const p = pool(0);
    expect(p.size).toBe(1);
    const echo = await p.run<Echo>("selftest.echo", "here");
    expect(echo).toEqual({ value: "here", threadId });
    expect(await outcome(p.run("selftest.throw", { name: "ChunkCorruptError", message: "bad" }))).toBe("ChunkCorruptError: bad");
    // crashing would take the process down: refused inline
    expect(await outcome(p.run("selftest.crash", {}))).toBe("Error: selftest.crash only runs on a worker thread");
    expect(p.stats().workers).toBe(0);
  }, 60_000);
});

describe("the log store's /metrics shows the process's pool", () => {
  const ctx = useServer({ "server.worker_threads": 2 });

  it("svc_worker_pool_* on :3100/metrics, no worker started by a start", async () => {
    const res = await fetch(`${ctx.server.urls.logs}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain("# TYPE svc_worker_pool_tasks_total counter");
    expect(text).toContain("svc_worker_pool_queue_length 0");
    expect(text).toContain("svc_worker_pool_busy_workers 0");
    expect(text).toContain("svc_worker_pool_workers 0");
  }, 60_000);
});
