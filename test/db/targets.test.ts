// server.target (issue 26): a node runs the dashboard, the stores, or all.
import { describe, expect, it } from "vitest";
import { startTestServer } from "../helpers/server.ts";

describe("server.target", () => {
  it("dashboard: the dashboard's listener only; stores: the log and metrics stores' only; all: the three", async () => {
    for (const [target, listeners] of [["dashboard", ["dashboard"]], ["stores", ["logs", "metrics"]], ["all", ["dashboard", "logs", "metrics"]]] as const) {
      const server = await startTestServer({ "server.target": target });
      try {
        expect(Object.keys(server.urls).sort()).toEqual([...listeners]);
        for (const url of Object.values(server.urls)) expect((await fetch(`${url}/ready`)).status).toBeLessThan(500);
      } finally {
        await server.stop();
      }
    }
  });

  it("anything else is refused at start, naming the key", async () => {
    await expect(startTestServer({ "server.target": "ingester" })).rejects.toThrow(/server\.target/);
  });
});
