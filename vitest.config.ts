import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // each file starts its own in-process servers (own PGlite); two workers fit the 2-core machine
    maxWorkers: 2,
  },
});
