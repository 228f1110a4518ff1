import { describe, expect, it } from "vitest";
import { memoryPacer } from "../../src/platform/memory.ts";

describe("memoryPacer", () => {
  it("releases once the bytes counted reach the step, never while little is allocated, at most once per interval", async () => {
    let released = 0;
    const pace = memoryPacer(1000, 20, () => released++);
    for (let i = 0; i < 9; i++) pace(100);
    expect(released).toBe(0);
    pace(100);
    expect(released).toBe(1);
    // the step reached again at once: within the interval it waits for the next call past it
    pace(5000);
    expect(released).toBe(1);
    await new Promise((r) => setTimeout(r, 40));
    pace(1);
    expect(released).toBe(2);
    pace(999);
    expect(released).toBe(2);
  });
});
