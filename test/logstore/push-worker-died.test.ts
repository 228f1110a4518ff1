// A push or OTLP body whose decoding worker died (out of memory, say) is not
// decoded again on the event loop, where the same body could take the whole
// process down: 503, nothing stored (review of issue 24, finding 5). A pool
// that could not take the task (closing) still falls back to decoding here.
import { describe, expect, it } from "vitest";
import { decodeOtlpLogsOn, decodePushOn, OFF_THREAD_BYTES } from "../../src/apps/logstore/core/push-tasks.ts";
import { ApiError } from "../../src/lib/errors.ts";
import type { TaskRunner } from "../../src/lib/tasks.ts";
import { WorkerDiedError } from "../../src/lib/worker-pool.ts";

const runner = (fail: () => Error): TaskRunner => ({ inline: false, size: 1, run: () => Promise.reject(fail()) }) as unknown as TaskRunner;
const big = new TextEncoder().encode(JSON.stringify({ streams: [{ stream: { app: "a" }, values: [[String(Date.now() * 1e6), "x".repeat(OFF_THREAD_BYTES)]] }] }));
const otlp = new TextEncoder().encode(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: "x".repeat(OFF_THREAD_BYTES) } }] }] }] }));
const input = { body: big, contentType: "application/json", contentEncoding: undefined, maxBytes: 100 << 20 };
const otlpInput = { ...input, body: otlp, config: {}, defaultIndexLabels: ["service.name"], nowNs: BigInt(Date.now()) * 1_000_000n, metadataCount: 128, metadataSize: 65536 };

describe("a decoding worker that died on a body", () => {
  it("is a 503 for a push and for OTLP, the body not decoded on the event loop", async () => {
    const died = runner(() => new WorkerDiedError("worker exited with code 134 while running decodePush"));
    for (const attempt of [decodePushOn(died, input), decodeOtlpLogsOn(died, otlpInput)]) {
      const err = await attempt.then(() => undefined, (e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(503);
      expect((err as ApiError).message).toBe("the decoder ended while decoding this request; it was not stored");
    }
  });

  it("a pool that could not take the task: decoded here instead", async () => {
    const closed = runner(() => new Error("the worker pool is closed"));
    expect((await decodePushOn(closed, input))[0]!.entries).toHaveLength(1);
    expect((await decodeOtlpLogsOn(closed, otlpInput)).streams[0]!.entries).toHaveLength(1);
  });
});
