import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("admin page at /", () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server.stop(); });

  it("GET / -> index.html, revalidated on every load", async () => {
    const res = await fetch(`${server.urls.dashboard}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(await res.text()).toContain("<title>Outpost</title>");
  });

  it("GET /app.js and /style.css -> their content types", async () => {
    const js = await fetch(`${server.urls.dashboard}/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(await js.text()).toContain("/api/health");
    const css = await fetch(`${server.urls.dashboard}/style.css`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
  });

  it("GET /missing.js -> 404 JSON", async () => {
    const res = await fetch(`${server.urls.dashboard}/missing.js`);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "Not found" });
  });
});
