// Entry point: the only reader of process.argv and process.env.
import { CommanderError } from "commander";
import { buildProgram } from "./cli/program.ts";
import { CliError, EXIT_FAILURE, EXIT_OK, EXIT_USAGE } from "./cli/exit-codes.ts";

export async function run(argv: string[] = process.argv): Promise<void> {
  const program = buildProgram(process.env);
  try {
    await program.parseAsync(argv);
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
