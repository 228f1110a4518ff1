// Entry point: the only reader of process.argv and process.env.
import { CommanderError } from "commander";
import { buildProgram } from "./cli/program.ts";
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./cli/exit-codes.ts";

/**
 * The real products' single-dash flags (-server.http-tls-client-auth,
 * -querier.max-concurrent and friends) are accepted as the matching -- options, so
 * operators' scripts keep working.
 */
export function aliasLegacyFlags(argv: string[]): string[] {
  const names: Record<string, string> = {
    "-server.http-tls-cert-path": "--http-tls-cert-path",
    "-server.http-tls-key-path": "--http-tls-key-path",
    "-server.http-tls-client-auth": "--http-tls-client-auth",
    "-server.http-tls-ca-path": "--http-tls-ca-path",
    "-server.http-idle-timeout": "--http-idle-timeout",
    "-server.http-read-timeout": "--http-read-timeout",
    "-server.http-write-timeout": "--http-write-timeout",
    "-ingester.instance-limits.max-inflight-push-requests": "--max-inflight-push-requests",
    "-querier.max-concurrent": "--querier-max-concurrent",
  };
  // a Go boolean flag: only its false form changes the default
  const negations: Record<string, string> = {
    "-ingester.stream-chunks-when-using-blocks": "--no-stream-chunks-when-using-blocks",
  };
  return argv.map((arg) => {
    const [name, value] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const negation = negations[name];
    if (negation) return value === "false" ? negation : [];
    const alias = names[name];
    return alias ? (value === undefined ? alias : `${alias}=${value}`) : arg;
  }).flat();
}

export async function run(argv: string[] = process.argv): Promise<void> {
  const program = buildProgram(process.env);
  try {
    await program.parseAsync(aliasLegacyFlags(argv));
  } catch (err) {
    if (err instanceof CommanderError) {
      const ok = err.code === "commander.helpDisplayed" || err.code === "commander.version" || err.code === "commander.help";
      process.exit(ok ? EXIT_OK : EXIT_USAGE);
    }
    if (err instanceof CliError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exit(err.exitCode);
    }
    process.stderr.write(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(EXIT_FAILURE);
  }
}

if ((import.meta as { main?: boolean }).main) await run();
