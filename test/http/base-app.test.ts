// The shared HTTP base, exercised through a route of its own: JSON body
// parsing, the streamed body limit, and unknown errors that must not leak.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors.ts";
import { createBaseApp, readJson } from "../../src/lib/http/base-app.ts";
import { createLifecycle } from "../../src/lib/lifecycle.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { renderDashboardError } from "../../src/apps/dashboard/render-error.ts";
import { listen, type Listener } from "../../src/platform/listen.ts";

describe("shared HTTP base", () => {
  const logs: string[] = [];
  const app = createBaseApp({
    logger: createLogger({ level: "info", format: "logfmt", write: (l) => logs.push(l) }),
    lifecycle: createLifecycle(),
    maxBodyBytes: 1024,
    render: renderDashboardError,
  });
  app.post("/api/echo", async (c) => c.json(await readJson(c)));
  app.get("/api/boom", () => { throw new Error("connection string postgres://secret@db"); });
  app.get("/api/conflict", () => {
    throw new ApiError(412, "the folder has been changed by someone else", { body: { status: "version-mismatch" } });
  });
  app.get("/api/structured", () => {
    throw new ApiError(401, "Invalid API key", { messageId: "api-key.invalid" });
  });
  app.get("/apis/x.svc.app/v1/namespaces/default/things/a", () => {
    throw new ApiError(400, "spec.title: must be a string", { messageId: "things.invalid", extra: { field: "spec.title" } });
  });

  let listener: Listener;
  beforeAll(async () => { listener = await listen(app.fetch, { host: "127.0.0.1", port: 0 }); });
  afterAll(async () => { await listener.close(true); });

  it("POST valid JSON -> 200 echo", async () => {
    const res = await fetch(`${listener.url}/api/echo`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ a: 1 }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ a: 1 });
  });

  it("POST invalid JSON -> 400 with a message that does not echo the body", async () => {
    const res = await fetch(`${listener.url}/api/echo`, { method: "POST", headers: { "Content-Type": "application/json" }, body: '{"password": "hunter2"' });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.message).toBe("bad request data: the body is not valid JSON");
    expect(JSON.stringify(body)).not.toContain("hunter2");
  });

  it("POST a streamed (chunked) body over the limit -> 413", async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 4; i++) controller.enqueue(new TextEncoder().encode(" ".repeat(512)));
        controller.close();
      },
    });
    const res = await fetch(`${listener.url}/api/echo`, { method: "POST", headers: { "Content-Type": "application/json" }, body: stream, duplex: "half" } as RequestInit);
    expect(res.status).toBe(413);
    expect((await res.json()).message).toBe("request body too large: the limit is 1024 bytes");
  });

  it("an unexpected error -> fixed 500 body, detail only in the log", async () => {
    const res = await fetch(`${listener.url}/api/boom`);
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ message: "Internal Server Error" });
    expect(logs.some((l) => l.includes("unhandled error") && l.includes("postgres://secret@db"))).toBe(true);
  });

  it("legacy error with extra body fields -> {message, status}", async () => {
    const res = await fetch(`${listener.url}/api/conflict`);
    expect(res.status).toBe(412);
    expect(await res.json()).toEqual({ message: "the folder has been changed by someone else", status: "version-mismatch" });
  });

  it("legacy structured error -> {message, messageId, statusCode, traceID}", async () => {
    const res = await fetch(`${listener.url}/api/structured`);
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ message: "Invalid API key", messageId: "api-key.invalid", statusCode: 401, traceID: "" });
  });

  it("/apis error -> Status object with details.uid and causes", async () => {
    const res = await fetch(`${listener.url}/apis/x.svc.app/v1/namespaces/default/things/a`);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "spec.title: must be a string",
      reason: "BadRequest",
      details: { uid: "things.invalid", causes: [{ field: "field", message: '"spec.title"' }] },
      code: 400,
    });
  });
});
