// Bun answers v8.getHeapSpaceStatistics() with a walk of the whole heap (half a
// second with a million metrics series), and prom-client calls it at every
// scrape of /metrics: on Bun it is made to fail at start, as prom-client
// expects of Bun, so its heap-space gauges are left out there. Node.js and
// Deno keep theirs.
import v8 from "node:v8";
import { describe, expect, it } from "vitest";
import { skipHeapSpaceWalks } from "../../src/platform/memory.ts";
import { runtime } from "../../src/platform/runtime.ts";

describe("heap walks at scrapes", () => {
  it("v8.getHeapSpaceStatistics fails with ERR_NOT_IMPLEMENTED on Bun only", async () => {
    await skipHeapSpaceWalks();
    if (runtime === "bun") expect(() => v8.getHeapSpaceStatistics()).toThrow(expect.objectContaining({ code: "ERR_NOT_IMPLEMENTED" }));
    else expect(Array.isArray(v8.getHeapSpaceStatistics())).toBe(true);
  });
});
