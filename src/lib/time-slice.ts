// Cooperative time slicing for long synchronous work on the serving event
// loop: work in pieces, and between pieces let other requests run once a
// slice has lasted long enough. Works alike on Bun, Node.js and Deno.

/** yields to the event loop: timers, I/O and other requests run before this resolves */
export const yieldToLoop = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

export interface TimeSlicer {
  /** yields when the current slice has run for sliceMs or more; cheap otherwise */
  pause(): Promise<void>;
  /** ms the current slice has run */
  elapsed(): number;
}

export function createTimeSlicer(sliceMs: number, now: () => number = () => performance.now()): TimeSlicer {
  let started = now();
  return {
    async pause() {
      if (now() - started < sliceMs) return;
      await yieldToLoop();
      started = now();
    },
    elapsed: () => now() - started,
  };
}
