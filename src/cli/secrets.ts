// outpost secrets rotate: a new key-encryption key for the secrets at rest.
// The new key goes in front of the data dir's secret.key (the old ones stay
// after it, so everything keeps opening), then every data key is re-wrapped
// with it and the old lines are dropped. With the server stopped this command
// re-wraps itself; with a server running on the data dir, the server notices
// the new key within seconds and re-wraps while it keeps serving (no
// downtime), and this command waits until it has finished.
import type { Command } from "commander";
import { finishRotation, keyFileOf, KEY_FILE_POLL_MS } from "../apps/dashboard/core/secrets/secret-keys.ts";
import { createKeySet, createSecrets } from "../apps/dashboard/core/secrets/secrets.ts";
import { ConfigError, loadConfig } from "../config/load.ts";
import { DataDirInUseError } from "../db/lock.ts";
import { SchemaTooNewError } from "../db/migrate.ts";
import { openDatabase, postgresOf } from "../db/open.ts";
import { createKeyring } from "../lib/envelope.ts";
import { generateKey, readKeyFile, writeKeyFile } from "../lib/key-file.ts";
import { silentLogger } from "../lib/logger.ts";
import { parseDuration } from "../lib/units.ts";
import { CliError, EXIT_FAILURE, EXIT_USAGE } from "./exit-codes.ts";

interface RotateOptions {
  config?: string;
  dataDir?: string;
  wait: string;
}

export function registerSecrets(program: Command, env: Record<string, string | undefined>): void {
  const secrets = program.command("secrets").description("the key that encrypts secrets at rest (data source secrets, secure values)");
  secrets
    .command("rotate")
    .description("replace the data dir's secret key and re-wrap every stored secret with the new one (works while the server runs)")
    .option("-c, --config <file>", "YAML config file")
    .option("--data-dir <dir>", "data directory (default ./outpost-data)")
    .option("--wait <duration>", "how long to wait for a running server to finish re-wrapping", "2m")
    .action(async (opts: RotateOptions) => {
      const waitMs = parseDuration(opts.wait);
      if (waitMs === undefined) throw new CliError(`--wait must be a duration such as 30s or 2m, got "${opts.wait}"`, EXIT_USAGE);
      const line = await rotate(opts, env, waitMs);
      process.stdout.write(`${line}\n`);
    });
}

async function rotate(opts: RotateOptions, env: Record<string, string | undefined>, waitMs: number): Promise<string> {
  let config;
  try {
    config = loadConfig({ ...(opts.config !== undefined ? { file: opts.config } : {}), flags: opts.dataDir !== undefined ? { "storage.data_dir": opts.dataDir } : {}, env });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
  if (config.security.secret_key) {
    throw new CliError(
      "security.secret_key is set in the configuration, so the key is yours to rotate: put the new key in security.secret_key " +
        "and the old one in security.previous_secret_keys, then restart; the server re-wraps every secret at startup",
      EXIT_USAGE,
    );
  }
  const dir = config.storage.data_dir;
  const file = keyFileOf(dir);
  const keys = readKeyFile(file);
  if (!keys) throw new CliError(`no secret key in ${dir} yet: it is created when outpost serve first starts on it`, EXIT_FAILURE);
  const next = generateKey();
  const id = (await createKeyring(next)).id;
  writeKeyFile(file, [next, ...keys]);

  let db;
  try {
    db = await openDatabase({ dataDir: dir, logger: silentLogger, postgres: postgresOf(config.storage) });
  } catch (err) {
    if (err instanceof DataDirInUseError) return waitForServer(file, next, id, waitMs);
    if (err instanceof SchemaTooNewError) throw new CliError(err.message, EXIT_FAILURE);
    throw err;
  }
  try {
    const secrets = createSecrets(db.pg, await createKeySet([next, ...keys]), silentLogger);
    const done = await finishRotation(secrets, { keys: [next, ...keys], file }, silentLogger);
    if (done.unreadable) {
      throw new CliError(`${done.unreadable} stored secrets could not be opened with any known key; they were left as they are and the old keys stay in ${file}`, EXIT_FAILURE);
    }
    return `rotated: ${done.rewrapped} secrets re-wrapped with the new key ${id}`;
  } finally {
    await db.close();
  }
}

/** a running server re-wraps, then leaves only the new key in the file */
async function waitForServer(file: string, next: string, id: string, waitMs: number): Promise<string> {
  process.stderr.write(`a server is running on this data dir: it now seals new secrets with key ${id} and re-wraps the stored ones\n`);
  const until = Date.now() + waitMs;
  while (Date.now() < until) {
    const keys = readKeyFile(file);
    if (keys && keys[0] !== next) throw new CliError(`${file} changed meanwhile (another rotation?): its first key is no longer the one written`, EXIT_FAILURE);
    if (keys && keys.length === 1) return `rotated: the running server re-wrapped every secret with the new key ${id}`;
    await new Promise((resolve) => setTimeout(resolve, Math.min(KEY_FILE_POLL_MS / 2, 500)));
  }
  throw new CliError(
    `the server has not finished re-wrapping after ${Math.round(waitMs / 1000)} s (see its log); secrets keep opening, and the old key stays in ${file} until it has`,
    EXIT_FAILURE,
  );
}
