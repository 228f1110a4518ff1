// outpost serve: load the configuration, start the three listeners, print
// their addresses (one line each, for scripts), and shut down cleanly on
// SIGINT/SIGTERM. A second signal exits at once.
import type { Command } from "commander";
import { ConfigError, loadConfig } from "../config/load.ts";
import type { Config } from "../config/schema.ts";
import { DataDirInUseError } from "../db/lock.ts";
import { SchemaTooNewError } from "../db/migrate.ts";
import { createLogger } from "../lib/logger.ts";
import { ListenError } from "../platform/listen.ts";
import { runtimeVersion } from "../platform/runtime.ts";
import { onTerminate } from "../platform/signals.ts";
import { startOutpost } from "../server.ts";
import { COMMIT, VERSION } from "../version.ts";
import { addConfigOptions, flagValues } from "./config-options.ts";
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./exit-codes.ts";

export function registerServe(program: Command, env: Record<string, string | undefined>): void {
  const serve = program
    .command("serve")
    .description("run the dashboard API (and admin page), the log store and the metrics store");
  addConfigOptions(serve).action(async () => {
    const config = resolveConfig(serve, env);
    await runServer(config);
  });
}

export function resolveConfig(command: Command, env: Record<string, string | undefined>): Config {
  try {
    const file = command.opts().config as string | undefined;
    return loadConfig({ ...(file !== undefined ? { file } : {}), flags: flagValues(command), env });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
}

async function runServer(config: Config): Promise<void> {
  const logger = createLogger({ level: config.server.log_level, format: config.server.log_format });
  logger.info("starting outpost", {
    version: VERSION,
    commit: COMMIT,
    runtime: runtimeVersion(),
    edition: config.server.edition,
    data_dir: config.storage.in_memory ? "(in memory)" : config.storage.data_dir,
  });
  const started = performance.now();
  const server = await startOutpost(config, logger, {
    fenced() {
      // another node may run the stores now: exit, so that a supervisor starts this one again as a standby
      logger.error("this node lost the store lock; exiting so that it restarts as a standby");
      process.exit(EXIT_FAILURE);
    },
  }).catch((err: unknown) => {
    if (err instanceof DataDirInUseError || err instanceof SchemaTooNewError || err instanceof ListenError) {
      throw new CliError(err.message, EXIT_FAILURE);
    }
    // a provisioned data source that cannot be applied is a bad configuration
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  });
  for (const [name, url] of Object.entries(server.urls)) process.stdout.write(`${name} listening on ${url}\n`);
  logger.info("outpost ready", {
    startup_ms: Math.round(performance.now() - started),
    // performance.now() counts from process start on Bun, Node and Deno
    uptime_ms: Math.round(performance.now()),
    new_data_dir: server.db.created,
  });

  let signals = 0;
  onTerminate((signal) => {
    signals++;
    if (signals > 1) {
      logger.warn("second signal: exiting without waiting", { signal });
      process.exit(EXIT_FAILURE);
    }
    logger.info("shutting down", { signal });
    server.stop().then(
      () => {
        logger.info("stopped cleanly");
        process.exit(EXIT_OK);
      },
      (err: unknown) => {
        logger.error("shutdown failed", { err: String(err) });
        process.exit(EXIT_FAILURE);
      },
    );
  });
}
