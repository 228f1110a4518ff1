// The same source on the other runtimes: Deno 2 runs src/main.ts, Node.js
// runs the bundle dist/outpost.mjs.
import { describe, expect, it } from "vitest";
import { denoBin, nodeBundle, repoRoot } from "../helpers/paths.ts";
import { freePortArgs, runToExit, startChild } from "../helpers/process.ts";
import { ensureBuilt } from "../helpers/build.ts";
import { expectRe2 } from "../helpers/re2-probe.ts";
import { expectTail } from "../helpers/tail-probe.ts";

describe("other runtimes", () => {
  it("deno run src/main.ts serve -> /api/health ok", async () => {
    const server = await startChild(denoBin, ["run", "-A", "src/main.ts", "serve", "--in-memory", ...freePortArgs], {
      cwd: repoRoot,
      timeoutMs: 60_000,
      env: { DENO_NO_UPDATE_CHECK: "1" },
    });
    try {
      const res = await fetch(`${server.urls.dashboard}/api/health`);
      expect(res.status).toBe(200);
      expect((await res.json()).database).toBe("ok");
      expect(await (await fetch(`${server.urls.logs}/ready`)).text()).toBe("ready\n");
      expect(server.stderr()).toMatch(/runtime="deno 2\./);
      await expectRe2(server.urls);
      // Deno.serve's WebSocket upgrade
      await expectTail(server.urls);
    } finally {
      expect(await server.stop("SIGTERM")).toBe(0);
    }
  }, 90_000);

  it("node dist/outpost.mjs serve -> /api/health ok", async () => {
    ensureBuilt();
    const server = await startChild("node", [nodeBundle, "serve", "--in-memory", ...freePortArgs], { cwd: repoRoot, timeoutMs: 60_000 });
    try {
      const res = await fetch(`${server.urls.dashboard}/api/health`);
      expect((await res.json()).database).toBe("ok");
      expect((await fetch(`${server.urls.dashboard}/`)).status).toBe(200);
      expect(server.stderr()).toMatch(/runtime="node \d+/);
      await expectRe2(server.urls);
      // the bundled `ws` on node:http's upgrade event
      await expectTail(server.urls);
    } finally {
      expect(await server.stop("SIGTERM")).toBe(0);
    }
  }, 90_000);

  // the worker pool's worker on each: Deno loads the TypeScript entry, the
  // Node.js bundle runs dist/outpost-worker.mjs built beside it
  const selftests: Array<[string, string, string[], RegExp]> = [
    ["deno run src/main.ts", denoBin, ["run", "-A", "src/main.ts", "selftest"], /^deno /],
    ["node dist/outpost.mjs", "node", [nodeBundle, "selftest"], /^node /],
  ];
  for (const [name, command, args, runtime] of selftests) it(`${name} selftest runs a task on a worker thread`, () => {
    if (command === "node") ensureBuilt();
    const r = runToExit(command, args, { cwd: repoRoot, timeoutMs: 60_000 });
    expect(r.status).toBe(0);
    const answer = JSON.parse(r.stdout) as { runtime: string; mainThread: number; workerThread: number };
    expect(answer.runtime).toMatch(runtime);
    expect(answer.workerThread).not.toBe(answer.mainThread);
  }, 90_000);
});
