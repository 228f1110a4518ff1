// The suite's PostgreSQL pass (npm run test:postgres): the same tests, every
// server they start in-process on a PostgreSQL server of the tests' own
// (test/setup/postgres-backend.ts), each on a database of its own. Left out:
// tests of the embedded database's own files (backups, the data dir's
// format and upgrades, the CLI on a data dir, the disk cap), the fuzz and browser runs and the built binary's (they start
// child processes, which the PGlite pass covers).
import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["test/setup/postgres-backend.ts"],
    env: { OUTPOST_TEST_BACKEND: "postgres" },
    exclude: [
      ...configDefaults.exclude,
      "test/fuzz/**",
      "test/e2e/**",
      "test/bench/**",
      "test/backup/**",
      "test/dashboard/legacy/admin/backups.test.ts",
      "test/architecture.test.ts",
      "test/standalone-clone.test.ts",
      // the CLI working offline on a data dir's embedded database, and upgrading one
      "test/config/admin-cli.test.ts",
      "test/config/secrets-cli.test.ts",
      "test/db/upgrade.test.ts",
      // the cap counts the data dir's files: a PostgreSQL server's database is not among them
      "test/stores-disk-cap.test.ts",
      // what is left in the log store's chunk and write-ahead files (on PostgreSQL both are rows)
      "test/logstore/delete.test.ts",
      "test/logstore/retention.test.ts",
    ],
  },
});
