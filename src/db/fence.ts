// A store node that lost the store lock must write nothing more of the
// stores' shared state (the write-ahead log, checkpoints): another node may
// be replaying it. The shared log and checkpoints check the fence before each
// statement; raised, they refuse (a push is then not acknowledged).
export interface Fence {
  /** throws once raised */
  check(): void;
  raise(): void;
  readonly raised: boolean;
}

export class FencedError extends Error {}

export function createFence(): Fence {
  let raised = false;
  return {
    check() {
      if (raised) throw new FencedError("this node no longer holds the store lock: another node runs the stores");
    },
    raise() {
      raised = true;
    },
    get raised() {
      return raised;
    },
  };
}
