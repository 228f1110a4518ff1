// The readers-writer lock between the metrics store's flushes and checkpoints
// (shared) and its deletions (exclusive): shared holders run together, an
// exclusive one alone, in arrival order, and a failure releases the lock.
import { describe, expect, it } from "vitest";
import { createRwLock } from "../../src/lib/rw-lock.ts";

const tick = () => new Promise((r) => setTimeout(r, 0));

describe("readers-writer lock", () => {
  it("shared work runs together; exclusive work waits for it, and later shared work waits behind the exclusive", async () => {
    const lock = createRwLock();
    const log: string[] = [];
    const gates = new Map<string, () => void>();
    const hold = (name: string) => () => {
      log.push(`+${name}`);
      return new Promise<void>((resolve) => gates.set(name, () => {
        log.push(`-${name}`);
        resolve();
      }));
    };
    const r1 = lock.shared(hold("r1"));
    const r2 = lock.shared(hold("r2"));
    const w = lock.exclusive(hold("w"));
    const r3 = lock.shared(hold("r3"));
    await tick();
    expect(log).toEqual(["+r1", "+r2"]);
    expect(lock.exclusiveWanted).toBe(true);
    gates.get("r1")!();
    await tick();
    expect(log).toEqual(["+r1", "+r2", "-r1"]);
    gates.get("r2")!();
    await tick();
    expect(log.slice(3)).toEqual(["-r2", "+w"]);
    gates.get("w")!();
    await tick();
    expect(log.slice(5)).toEqual(["-w", "+r3"]);
    gates.get("r3")!();
    await Promise.all([r1, r2, w, r3]);
    expect(lock.exclusiveWanted).toBe(false);
  });

  it("a failing holder releases the lock and its caller gets the error", async () => {
    const lock = createRwLock();
    const failed = await lock.exclusive(async () => {
      throw new Error("boom");
    }).then(() => undefined, (e: Error) => e.message);
    expect(failed).toBe("boom");
    expect(await lock.shared(async () => 7)).toBe(7);
    expect(await lock.exclusive(async () => 8)).toBe(8);
  });
});
