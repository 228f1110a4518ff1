import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../../helpers/server.ts";

describe("GET /api/health", () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server.stop(); });

  it("GET /api/health -> 200 {database: ok, version, commit}", async () => {
    const res = await fetch(`${server.urls.dashboard}/api/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await res.json();
    // version: the API version clients pick their code paths by (issue 21); Outpost's own beside it
    const shape = { database: "ok", version: "12.0.0", commit: expect.any(String), outpostVersion: expect.stringMatching(/^\d+\.\d+\.\d+/) };
    if (server.db.backend === "pglite") expect(body).toEqual(shape);
    // on PostgreSQL (several nodes may share it) also the nodes: names and roles, no addresses
    else expect(body).toEqual({ ...shape, node: expect.any(String), storeNode: expect.any(String), nodes: [{ name: expect.any(String), roles: ["dashboard", "stores"], storeActive: true, up: true }] });
  });

  it("GET /api/health once the database is closed -> 503 {database: failing}", async () => {
    await server.db.close();
    const res = await fetch(`${server.urls.dashboard}/api/health`);
    expect(res.status).toBe(503);
    expect((await res.json()).database).toBe("failing");
  });
});
