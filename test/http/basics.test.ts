// What every listener shares: errors in the family's shape (JSON on the
// dashboard and metrics store, plain text on the log store, as their real
// counterparts), 404 for unknown routes, the body size limit, /ready, and one
// structured log line per request.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../helpers/server.ts";

describe("HTTP basics on the three listeners", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ "server.max_request_body_size": "1KiB", "server.log_level": "info" });
  });
  afterAll(async () => { await server.stop(); });

  it("GET /api/unknown (dashboard) -> 404 JSON {message}", async () => {
    const res = await fetch(`${server.urls.dashboard}/api/unknown`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ message: "Not found" });
  });

  it("GET /apis/unknown (dashboard) -> 404 Kubernetes Status object", async () => {
    const res = await fetch(`${server.urls.dashboard}/apis/nothing.svc.app/v1/namespaces/default/things`, {
      headers: { Authorization: `Basic ${btoa("admin:admin")}` },
    });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({
      kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure",
      message: "the server could not find the requested resource", reason: "NotFound", code: 404,
    });
    const unauthenticated = await fetch(`${server.urls.dashboard}/apis/nothing.svc.app/v1/namespaces/default/things`);
    expect(unauthenticated.status).toBe(401);
    expect((await unauthenticated.json()).kind).toBe("Status");
  });

  it("GET /unknown (logs) -> 404 plain text", async () => {
    const res = await fetch(`${server.urls.logs}/svc/api/v1/nothing`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe("Not found\n");
  });

  it("GET /unknown (metrics) -> 404 plain text; under the Prometheus API -> 404 JSON error", async () => {
    const res = await fetch(`${server.urls.metrics}/svc/api/v1/nothing`);
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    expect(await res.text()).toBe("Not found\n");
    const api = await fetch(`${server.urls.metrics}/prometheus/api/v1/status/nothing`);
    expect(api.status).toBe(404);
    expect(api.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await api.json()).toEqual({ status: "error", errorType: "not_found", error: "Not found" });
  });

  for (const service of ["logs", "metrics"] as const) {

    it(`GET /ready (${service}) -> 200 text "ready"`, async () => {
      const res = await fetch(`${server.urls[service]}/ready`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/plain/);
      expect(await res.text()).toBe("ready\n");
    });

    it(`POST with a body over the limit (${service}) -> 413`, async () => {
      const res = await fetch(`${server.urls[service]}/svc/api/v1/push`, { method: "POST", body: "x".repeat(2048) });
      expect(res.status).toBe(413);
      expect(await res.text()).toBe("request body too large: the limit is 1024 bytes\n");
    });
  }

  it("POST with a body over the limit (dashboard) -> 413 JSON {message}", async () => {
    const res = await fetch(`${server.urls.dashboard}/api/annotations`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ text: "x".repeat(2048) }),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toEqual({ message: "request body too large: the limit is 1024 bytes" });
  });

  it("logs one structured line per request with method, path, status, duration and tenant", async () => {
    await fetch(`${server.urls.logs}/ready`, { headers: { "X-Scope-OrgID": "tenant-a" } });
    await fetch(`${server.urls.dashboard}/api/health`, { headers: { "X-Svc-Org-Id": "2" } });
    const requests = server.logs.filter((l) => l.msg === "request");
    const logsLine = requests.find((l) => l.service === "logs" && l.path === "/ready" && l.tenant === "tenant-a");
    expect(logsLine).toMatchObject({ level: "info", method: "GET", status: 200 });
    expect(typeof logsLine!.duration_ms).toBe("number");
    const dashLine = requests.find((l) => l.service === "dashboard" && l.path === "/api/health");
    expect(dashLine).toMatchObject({ method: "GET", status: 200, org: "2" });
  });
});
