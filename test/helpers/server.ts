// Starts Outpost in-process on free ports, in memory, with its log lines
// captured so tests can read them.
import { afterAll, beforeAll } from "vitest";
import { loadConfig } from "../../src/config/load.ts";
import { client } from "./api.ts";
import { createLogger } from "../../src/lib/logger.ts";
import { startOutpost, type RunningServer } from "../../src/server.ts";

export interface TestServer extends RunningServer {
  /** structured log records written so far (JSON-parsed) */
  logs: Array<Record<string, unknown>>;
  /** what was shown once on standard error (the generated metrics admin token) */
  announced: string[];
}

export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

/** a clock that starts at the real time and moves only when told */
export function testClock(start = Date.now()): TestClock {
  let t = start;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

export async function startTestServer(flags: Record<string, unknown> = {}, clock?: TestClock): Promise<TestServer> {
  const config = loadConfig({
    flags: {
      "storage.in_memory": true,
      "dashboard.http_port": 0,
      "logs.http_port": 0,
      "metrics.http_port": 0,
      "server.log_format": "json",
      ...flags,
    },
  });
  const logs: Array<Record<string, unknown>> = [];
  const logger = createLogger({
    level: config.server.log_level,
    format: "json",
    write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
  });
  const announced: string[] = [];
  const server = await startOutpost(config, logger, { ...(clock ? { now: clock.now } : {}), announce: (text) => announced.push(text) });
  return Object.assign(server, { logs, announced });
}

/**
 * Starts a server for the enclosing describe block and stops it after; the
 * returned object is filled in before the first test runs.
 */
export function useServer(flags: Record<string, unknown> = {}, clock?: TestClock): { server: TestServer; api: ReturnType<typeof client> } {
  const ctx = {} as { server: TestServer; api: ReturnType<typeof client> };
  beforeAll(async () => {
    ctx.server = await startTestServer(flags, clock);
    ctx.api = client(ctx.server.urls.dashboard);
  });
  afterAll(async () => {
    await ctx.server.stop();
  });
  return ctx;
}
