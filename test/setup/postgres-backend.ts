// vitest's globalSetup for the suite's PostgreSQL pass (OUTPOST_TEST_BACKEND=postgres,
// `npm run test:postgres`): one server of the tests' own for the whole run, and a
// template database already migrated; every server a test starts then gets a
// database of its own copied from it (test/helpers/server.ts).
import { openDatabase } from "../../src/db/open.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres.ts";

export const TEMPLATE = "outpost_template";

let server: PostgresServer | undefined;

export async function setup(): Promise<void> {
  if (process.env["OUTPOST_TEST_BACKEND"] !== "postgres") return;
  server = await startPostgres();
  const url = await server.createDatabase(TEMPLATE);
  const db = await openDatabase({ dataDir: undefined, logger: silentLogger, postgres: { url, maxConnections: 2 } });
  await db.close();
  process.env["OUTPOST_TEST_POSTGRES_URL"] = server.url;
  process.env["OUTPOST_TEST_POSTGRES_TEMPLATE"] = TEMPLATE;
}

export async function teardown(): Promise<void> {
  await server?.stop();
}
