// Entry point: the only reader of process.argv and process.env.
import { CommanderError } from "commander";
import { buildProgram } from "./cli/program.ts";
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./cli/exit-codes.ts";

/**
 * The real products' single-dash TLS flags (-server.http-tls-client-auth
 * and friends) are accepted as the matching --http-tls-* options, so
 * operators' scripts keep working.
 */
export function aliasLegacyFlags(argv: string[]): string[] {
  const names: Record<string, string> = {
    "-server.http-tls-cert-path": "--http-tls-cert-path",
    "-server.http-tls-key-path": "--http-tls-key-path",
    "-server.http-tls-client-auth": "--http-tls-client-auth",
    "-server.http-tls-ca-path": "--http-tls-ca-path",
  };
  return argv.map((arg) => {
    const [name, value] = arg.split(/=(.*)/s, 2) as [string, string | undefined];
    const alias = names[name];
    return alias ? (value === undefined ? alias : `${alias}=${value}`) : arg;
  });
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
