// The semaphore behind querier.max_concurrent: at most `max` at once, the
// rest wait in order, and a failure frees its slot.
import { describe, expect, it } from "vitest";
import { createSemaphore } from "../../src/lib/semaphore.ts";

describe("semaphore", () => {
  it("runs at most max at once; the others wait their turn, in order", async () => {
    const sem = createSemaphore(2);
    const started: number[] = [];
    const releases: Array<() => void> = [];
    const runs = [0, 1, 2, 3].map((i) =>
      sem.run(() => {
        started.push(i);
        return new Promise<number>((resolve) => releases.push(() => resolve(i)));
      }),
    );
    await Promise.resolve();
    expect(started).toEqual([0, 1]);
    expect([sem.active, sem.waiting]).toEqual([2, 2]);
    releases[0]!();
    await runs[0];
    await new Promise((r) => setTimeout(r, 0));
    expect(started).toEqual([0, 1, 2]);
    releases[1]!();
    releases[2]!();
    await new Promise((r) => setTimeout(r, 0));
    releases[3]!();
    expect(await Promise.all(runs)).toEqual([0, 1, 2, 3]);
    expect([sem.active, sem.waiting]).toEqual([0, 0]);
  });

  it("a failing holder frees its slot", async () => {
    const sem = createSemaphore(1);
    await expect(sem.run(async () => { throw new Error("boom"); })).rejects.toThrow("boom");
    expect(await sem.run(async () => "next")).toBe("next");
    expect(sem.active).toBe(0);
  });
});
