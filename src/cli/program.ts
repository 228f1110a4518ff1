// The command-line program: one file per command, registered here.
import { Command } from "commander";
import { VERSION } from "../version.ts";
import { registerAdmin } from "./admin.ts";
import { registerBackup } from "./backup.ts";
import { registerCerts } from "./certs.ts";
import { registerSecrets } from "./secrets.ts";
import { registerSelftest } from "./selftest.ts";
import { registerServe } from "./serve.ts";
import { registerVersion } from "./version.ts";

export function buildProgram(env: Record<string, string | undefined>): Command {
  const program = new Command("outpost")
    .description(
      "Outpost: a complete observability back end in one executable.\n" +
        "Serves the dashboard API and admin page (:3000), a Loki-compatible log store (:3100)\n" +
        "and a Prometheus-compatible metrics store (:9009), stored in embedded PGlite.",
    )
    .version(VERSION, "-V, --version", "print the version number")
    .showHelpAfterError("(run with --help for usage)")
    // throw instead of exiting, so run() maps usage errors to exit code 2
    .exitOverride();
  registerServe(program, env);
  registerVersion(program);
  registerAdmin(program, env);
  registerCerts(program);
  registerSecrets(program, env);
  registerBackup(program, env);
  registerSelftest(program);
  return program;
}
