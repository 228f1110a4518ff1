// Starts Outpost in-process on free ports, in memory, with its log lines
// captured so tests can read them.
import pg from "pg";
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
  const merged: Record<string, unknown> = {
    "storage.in_memory": true,
    "dashboard.http_port": 0,
    "logs.http_port": 0,
    "metrics.http_port": 0,
    "server.log_format": "json",
    ...flags,
  };
  const database = await suiteDatabase(merged);
  if (database) merged["storage.database_url"] = database;
  const config = loadConfig({ flags: merged });
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

let suitePool: pg.Pool | undefined;
const databaseOfDir = new Map<string, string>();
let databases = 0;

/**
 * The suite's PostgreSQL pass (OUTPOST_TEST_BACKEND=postgres; its server and
 * migrated template come from test/setup/postgres-backend.ts): a server the
 * test starts without a database URL of its own gets a new database copied
 * from the template, the same one again for the same data dir (a restart
 * finds what it wrote). Outside that pass: nothing, PGlite as always.
 */
async function suiteDatabase(flags: Record<string, unknown>): Promise<string | undefined> {
  const url = process.env["OUTPOST_TEST_POSTGRES_URL"];
  const template = process.env["OUTPOST_TEST_POSTGRES_TEMPLATE"];
  if (!url || !template || flags["storage.database_url"]) return undefined;
  const dir = flags["storage.in_memory"] === false ? String(flags["storage.data_dir"] ?? "") : "";
  const known = dir ? databaseOfDir.get(dir) : undefined;
  if (known) return known;
  suitePool ??= new pg.Pool({ connectionString: url, max: 1 });
  const name = `t_${process.pid}_${databases++}`;
  await suitePool.query(`create database "${name}" template "${template}"`);
  const database = Object.assign(new URL(url), { pathname: `/${name}` }).toString();
  if (dir) databaseOfDir.set(dir, database);
  return database;
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
