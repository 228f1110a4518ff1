import type { Command } from "commander";
import { runtimeVersion } from "../platform/runtime.ts";
import { COMMIT, VERSION } from "../version.ts";

export function versionText(): string {
  return `outpost ${VERSION} (commit ${COMMIT}, ${runtimeVersion()})`;
}

export function registerVersion(program: Command): void {
  program
    .command("version")
    .description("print the version, build commit and runtime")
    .action(() => {
      process.stdout.write(versionText() + "\n");
    });
}
