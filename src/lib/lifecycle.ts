// Process lifecycle shared by the three listeners: readiness, in-flight
// request accounting for graceful shutdown, and ordered stop hooks.

export type LifecycleState = "starting" | "ready" | "stopping" | "stopped";

export interface Lifecycle {
  readonly state: LifecycleState;
  isReady(): boolean;
  markReady(): void;
  markStopping(): void;
  markStopped(): void;
  /** counts a request in flight until the returned function is called */
  track(): () => void;
  inFlight(): number;
  /** resolves true once no request is in flight, false when the timeout passed first */
  drain(timeoutMs: number): Promise<boolean>;
}

export function createLifecycle(): Lifecycle {
  let state: LifecycleState = "starting";
  let inflight = 0;
  let waiters: Array<() => void> = [];
  const settle = () => {
    if (inflight > 0) return;
    const ready = waiters;
    waiters = [];
    for (const w of ready) w();
  };
  return {
    get state() { return state; },
    isReady: () => state === "ready",
    markReady: () => { if (state === "starting") state = "ready"; },
    markStopping: () => { if (state !== "stopped") state = "stopping"; },
    markStopped: () => { state = "stopped"; },
    track() {
      inflight++;
      let done = false;
      return () => {
        if (done) return;
        done = true;
        inflight--;
        settle();
      };
    },
    inFlight: () => inflight,
    drain(timeoutMs) {
      if (inflight === 0) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== onIdle);
          resolve(false);
        }, timeoutMs);
        const onIdle = () => { clearTimeout(timer); resolve(true); };
        waiters.push(onIdle);
      });
    },
  };
}
