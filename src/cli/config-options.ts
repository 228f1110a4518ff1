// Adds one commander option per configuration key (from the key table), and
// reads back only the ones given on the command line: flags win over the
// environment and the file, defaults apply last (in loadConfig).
import { Option, type Command } from "commander";
import { configKeys, envNameOf, optionNameOf } from "../config/keys.ts";

export function addConfigOptions(command: Command): Command {
  command.addOption(new Option("-c, --config <file>", "YAML config file (blocks server, dashboard, logs, metrics, security, storage, backups, datasources)").env("OUTPOST_CONFIG"));
  for (const key of configKeys) {
    const isNegation = key.flag.startsWith("--no-");
    const shownDefault = key.secret ? "" : isNegation ? "" : `default: ${JSON.stringify(key.default)}; `;
    const option = new Option(key.flag, `${key.description} (${shownDefault}config ${key.path}; env ${envNameOf(key)})`);
    command.addOption(option);
  }
  return command;
}

/** the values typed on the command line, keyed by config path */
export function flagValues(command: Command): Record<string, unknown> {
  const values = command.opts();
  const flags: Record<string, unknown> = {};
  for (const key of configKeys) {
    const name = optionNameOf(key);
    if (command.getOptionValueSource(name) === "cli") flags[key.path] = values[name];
  }
  return flags;
}
