import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../helpers/server.ts";

describe("admin page at /", () => {
  let server: TestServer;
  let html = "";
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.stop();
  });

  it("GET / -> index.html, revalidated on every load", async () => {
    const res = await fetch(`${server.urls.dashboard}/`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    html = await res.text();
    expect(html).toContain("<title>Outpost</title>");
    // nothing from another host: the page must work with no network at all
    expect(html).not.toMatch(/(src|href)="https?:/);
  });

  it("hashed script and stylesheet -> their content types, cached as immutable", async () => {
    const script = /<script type="module" src="(\/main-[a-z0-9]+\.js)"/.exec(html)?.[1];
    const style = /<link rel="stylesheet" href="(\/main-[a-z0-9]+\.css)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    expect(style).toBeDefined();
    const js = await fetch(`${server.urls.dashboard}${script}`);
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(js.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const body = await js.text();
    expect(body).toContain("/api/user");
    expect(body).not.toMatch(/https?:\/\/(cdn|fonts|unpkg|esm\.sh)/);
    const css = await fetch(`${server.urls.dashboard}${style}`);
    expect(css.headers.get("content-type")).toBe("text/css; charset=utf-8");
    expect(css.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  });

  it("the script is sent gzipped to a browser that accepts it, plain otherwise; Vary: Accept-Encoding", async () => {
    const script = /src="(\/main-[a-z0-9]+\.js)"/.exec(html)![1]!;
    const zipped = await fetch(`${server.urls.dashboard}${script}`, { headers: { "Accept-Encoding": "gzip, deflate, br" } });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toBe("Accept-Encoding");
    const unzipped = await zipped.text();
    const plain = await fetch(`${server.urls.dashboard}${script}`, { headers: { "Accept-Encoding": "identity" } });
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    expect(await plain.text()).toBe(unzipped);
  });

  it("GET /favicon.svg -> image/svg+xml", async () => {
    const res = await fetch(`${server.urls.dashboard}/favicon.svg`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/svg+xml");
  });

  it("a client route reloaded in a browser (/metrics-tenants, Accept: text/html) -> index.html", async () => {
    for (const path of ["/metrics-tenants", "/users", "/profile/password"]) {
      const res = await fetch(`${server.urls.dashboard}${path}`, { headers: { Accept: "text/html,application/xhtml+xml" } });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("no-cache");
      expect(await res.text()).toBe(html);
    }
  });

  it("GET /missing.js and API paths never fall back to the page -> 404 JSON", async () => {
    for (const path of ["/missing.js", "/api/nope", "/users"]) {
      const res = await fetch(`${server.urls.dashboard}${path}`, { headers: { Accept: path === "/users" ? "application/json" : "text/html" } });
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
    }
  });
});
