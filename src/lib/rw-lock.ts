// A readers-writer lock for asynchronous work: any number of shared holders
// at once, or one exclusive holder alone. Waiters are served in arrival
// order, so a shared holder that comes after a waiting exclusive one waits
// behind it (a steady stream of shared work never starves the exclusive).

export interface RwLock {
  /** runs `work` alongside other shared work, never alongside exclusive work */
  shared<T>(work: () => Promise<T>): Promise<T>;
  /** runs `work` alone */
  exclusive<T>(work: () => Promise<T>): Promise<T>;
  /** whether exclusive work holds the lock or waits for it */
  readonly exclusiveWanted: boolean;
}

export function createRwLock(): RwLock {
  let readers = 0;
  let writer = false;
  let writersWaiting = 0;
  const queue: Array<{ write: boolean; go: () => void }> = [];
  const pump = () => {
    while (queue.length > 0) {
      const next = queue[0]!;
      if (writer || (next.write && readers > 0)) return;
      queue.shift();
      if (next.write) {
        writersWaiting--;
        writer = true;
        next.go();
        return;
      }
      readers++;
      next.go();
    }
  };
  const acquire = (write: boolean) =>
    new Promise<void>((go) => {
      if (write) writersWaiting++;
      queue.push({ write, go });
      pump();
    });
  const hold = async <T>(write: boolean, work: () => Promise<T>): Promise<T> => {
    await acquire(write);
    try {
      return await work();
    } finally {
      if (write) writer = false;
      else readers--;
      pump();
    }
  };
  return {
    shared: (work) => hold(false, work),
    exclusive: (work) => hold(true, work),
    get exclusiveWanted() {
      return writer || writersWaiting > 0;
    },
  };
}
