// A store node that lost the store lock must write nothing more of the
// stores' shared state (the write-ahead log, checkpoints): another node may
// be replaying it. Two guards:
//   - in memory: raised when this node sees its lock connection fail;
//   - in the database: the fencing token. A node that takes the lock bumps
//     store_epoch before it replays; every write of the shared log and
//     checkpoints checks, in its own transaction, that the epoch is still the
//     one this node took (`for share`: the bump waits for writes under way,
//     and a write after it fails). So a node that lost the lock without
//     knowing it (its connection silent, the server's session ended) has its
//     pushes refused, never acknowledged and lost.
import type { Queryable } from "./sql.ts";

export class FencedError extends Error {}

export interface Fence {
  /** throws once raised */
  check(): void;
  raise(): void;
  readonly raised: boolean;
  /** the epoch this node took with the lock (undefined: no shared state, nothing to check) */
  epoch: number | undefined;
  /** inside a write's transaction: throws (and raises) unless the epoch is still this node's */
  guard(tx: Queryable): Promise<void>;
}

export function createFence(): Fence {
  let raised = false;
  const fence: Fence = {
    epoch: undefined,
    check() {
      if (raised) throw new FencedError("this node no longer holds the store lock: another node runs the stores");
    },
    raise() {
      raised = true;
    },
    get raised() {
      return raised;
    },
    async guard(tx) {
      fence.check();
      if (fence.epoch === undefined) return;
      const r = await tx.query("select 1 from store_epoch where id = 1 and epoch = $1 for share", [fence.epoch]);
      if (r.rows.length === 0) {
        raised = true;
        throw new FencedError("another node took the store lock since this one did (the store epoch moved on): this node writes nothing more");
      }
    },
  };
  return fence;
}

/** a fence that never stops anything (a store on files, or tests) */
export const NO_FENCE: Fence = createFence();

/** the next epoch, taken by a node that has just taken the store lock, before it replays */
export async function takeEpoch(db: Queryable): Promise<number> {
  const r = await db.query<{ epoch: number }>("update store_epoch set epoch = epoch + 1 where id = 1 returning epoch");
  return r.rows[0]!.epoch;
}
