// Queries wait their turn, per tenant, the way the real stores' query
// frontend queues them: at most `maxConcurrent` run at once (the querier's
// max_concurrent); the others wait in their tenant's queue, tenants served in
// turn so one tenant's burst does not hold back another's query; a tenant with
// `maxOutstanding` queries already running or waiting is refused at once
// (HTTP 429 "too many outstanding requests" in the real product).

/** the tenant already has its most queries running or waiting */
export class TooManyOutstandingError extends Error {
  constructor() {
    super("too many outstanding requests");
    this.name = "TooManyOutstandingError";
  }
}

export interface QueryQueue {
  /**
   * Runs `fn` once a slot is free. `maxOutstanding` (0: no limit) bounds the
   * tenant's queries running or waiting; `signal` takes a waiting query out of
   * the queue (it rejects with the signal's reason).
   */
  run<T>(tenant: string, maxOutstanding: number, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T>;
  /** queries running now, and waiting */
  readonly running: number;
  readonly waiting: number;
}

interface Waiter {
  start: () => void;
}

export function createQueryQueue(maxConcurrent: number): QueryQueue {
  let running = 0;
  let waiting = 0;
  const outstanding = new Map<string, number>();
  // tenants with waiting queries, in the order they are served (round robin)
  const queues = new Map<string, Waiter[]>();
  const dispatch = () => {
    while (running < maxConcurrent && queues.size) {
      const [tenant, queue] = queues.entries().next().value!;
      const w = queue.shift()!;
      queues.delete(tenant);
      // the tenant goes to the back of the line
      if (queue.length) queues.set(tenant, queue);
      waiting--;
      running++;
      w.start();
    }
  };
  return {
    get running() {
      return running;
    },
    get waiting() {
      return waiting;
    },
    run<T>(tenant: string, maxOutstanding: number, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
      signal?.throwIfAborted();
      const held = outstanding.get(tenant) ?? 0;
      if (maxOutstanding > 0 && held >= maxOutstanding) return Promise.reject(new TooManyOutstandingError());
      outstanding.set(tenant, held + 1);
      const release = () => {
        const n = (outstanding.get(tenant) ?? 1) - 1;
        if (n) outstanding.set(tenant, n);
        else outstanding.delete(tenant);
      };
      return new Promise<T>((resolve, reject) => {
        const onAbort = () => {
          const queue = queues.get(tenant);
          const at = queue?.indexOf(w) ?? -1;
          if (at < 0) return;
          queue!.splice(at, 1);
          if (!queue!.length) queues.delete(tenant);
          waiting--;
          release();
          reject(signal!.reason);
        };
        const w: Waiter = {
          start: () => {
            signal?.removeEventListener("abort", onAbort);
            fn().then(resolve, reject).finally(() => {
              running--;
              release();
              dispatch();
            });
          },
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        let queue = queues.get(tenant);
        if (!queue) queues.set(tenant, (queue = []));
        queue.push(w);
        waiting++;
        dispatch();
      });
    },
  };
}
