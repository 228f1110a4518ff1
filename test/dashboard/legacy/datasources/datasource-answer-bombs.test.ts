// A data source URL pointed at a hostile server answering a gzip bomb
// (issue 16 #5): fetch decompresses answers by itself, so the health check
// and queries read at most DATA_SOURCE_ANSWER_LIMIT decoded bytes and answer
// with an error, without growing memory by the bomb's size.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN } from "../../../helpers/api.ts";
import { zerosBomb } from "../../../helpers/bombs.ts";
import { useServer } from "../../../helpers/server.ts";

describe("data source answers that are compression bombs", () => {
  const t = useServer();
  let server: Server;
  let url = "";
  beforeAll(async () => {
    const bomb = await zerosBomb("gzip", 1024 * 1024 * 1024);
    server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { "Content-Type": "application/json", "Content-Encoding": "gzip", "Content-Length": String(bomb.length) });
      res.end(bomb);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const createDs = async (type: string) => {
    const r = await t.api.post("/api/datasources", { auth: ADMIN, body: { access: "proxy", name: `bomb-${type}`, type, url } });
    expect(r.status).toBe(200);
    return r.body.datasource.uid as string;
  };

  it("health checks of a Prometheus and a Loki data source answering 1 GiB of gzip zeros -> ERROR naming the cap, memory bounded", async () => {
    const before = process.memoryUsage().rss;
    for (const type of ["prometheus", "loki"]) {
      const uid = await createDs(type);
      const r = await t.api.get(`/api/datasources/uid/${uid}/health`, { auth: ADMIN });
      expect(r.status, type).toBe(400);
      expect(r.body.status).toBe("ERROR");
      expect(r.body.message).toContain("the data source's answer is larger than 104857600 bytes (decompressed)");
    }
    expect(process.memoryUsage().rss - before).toBeLessThan(500 * 1024 * 1024);
    expect((await fetch(`${t.server.urls.dashboard}/api/health`, { signal: AbortSignal.timeout(30_000) })).status).toBe(200);
  }, 120_000);
});
