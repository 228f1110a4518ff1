// outpost admin: offline maintenance on a data dir no server holds.
//   create-token    creates (or reuses) a service account and prints a new token
//   reset-password  sets a user's password
// A running server holds the data dir's lock, so these refuse while it runs.
import type { Command } from "commander";
import { bootstrapIdentity } from "../apps/dashboard/core/identity/bootstrap.ts";
import { isOrgRole, ORG_ROLES } from "../apps/dashboard/core/identity/basic-roles.ts";
import { createIdentity } from "../apps/dashboard/core/identity/identity.ts";
import type { IdentityDeps } from "../apps/dashboard/core/identity/identity-deps.ts";
import { mergePermissionSets, toPermissionSet } from "../apps/dashboard/core/identity/permissions.ts";
import { BASIC_ROLES } from "../apps/dashboard/core/identity/basic-roles.ts";
import { createServiceAccount, createToken, updateServiceAccount, type Caller } from "../apps/dashboard/core/identity/service-accounts.ts";
import { MIN_PASSWORD_LENGTH } from "../apps/dashboard/core/identity/passwords.ts";
import { setPassword } from "../apps/dashboard/core/identity/users.ts";
import { identityOptionsFrom } from "../apps/dashboard/identity-options.ts";
import { ConfigError, loadConfig } from "../config/load.ts";
import { DataDirInUseError } from "../db/lock.ts";
import { openDatabase, postgresOf } from "../db/open.ts";
import { SchemaTooNewError } from "../db/migrate.ts";
import { silentLogger } from "../lib/logger.ts";
import { CliError, EXIT_FAILURE, EXIT_USAGE } from "./exit-codes.ts";

interface Common {
  config?: string;
  dataDir?: string;
}

async function withIdentity<T>(opts: Common, env: Record<string, string | undefined>, fn: (deps: IdentityDeps) => Promise<T>): Promise<T> {
  let config;
  try {
    config = loadConfig({
      ...(opts.config !== undefined ? { file: opts.config } : {}),
      flags: opts.dataDir !== undefined ? { "storage.data_dir": opts.dataDir } : {},
      env,
    });
  } catch (err) {
    if (err instanceof ConfigError) throw new CliError(err.message, EXIT_USAGE);
    throw err;
  }
  const db = await openDatabase({ dataDir: config.storage.data_dir, logger: silentLogger, postgres: postgresOf(config.storage) }).catch((err: unknown) => {
    if (err instanceof DataDirInUseError) throw new CliError(`${err.message} (stop the server first: admin commands work offline)`, EXIT_FAILURE);
    if (err instanceof SchemaTooNewError) throw new CliError(err.message, EXIT_FAILURE);
    throw err;
  });
  try {
    await bootstrapIdentity(db.pg, config.security.admin_password);
    const { deps } = createIdentity(db.pg, identityOptionsFrom(config, () => Date.now()));
    return await fn(deps);
  } finally {
    await db.close();
  }
}

/** the command line acts with every permission, as a server admin of the organization */
function operator(orgId: number): Caller {
  return {
    orgId,
    orgRole: "Admin",
    isServerAdmin: true,
    permissions: mergePermissionSets(BASIC_ROLES.map((r) => toPermissionSet(r.permissions))),
  };
}

export function registerAdmin(program: Command, env: Record<string, string | undefined>): void {
  const admin = program.command("admin").description("offline maintenance of a data dir (the server must be stopped)");

  admin
    .command("create-token")
    .description("create (or reuse) a service account and print a new token for it, e.g. for the cloud edition")
    .option("-c, --config <file>", "YAML config file")
    .option("--data-dir <dir>", "data directory (default ./outpost-data)")
    .requiredOption("--name <name>", "service account name")
    .option("--role <role>", `role of the service account: ${ORG_ROLES.join(", ")}`, "Admin")
    .option("--org <id>", "organization id", "1")
    .option("--server-admin", "make the service account a server admin (its token may then back the server up: outpost backup, POST /api/admin/backups)")
    .action(async (opts: Common & { name: string; role: string; org: string; serverAdmin?: boolean }) => {
      if (!isOrgRole(opts.role)) throw new CliError(`--role must be one of ${ORG_ROLES.join(", ")}, got "${opts.role}"`, EXIT_USAGE);
      if (!/^\d+$/.test(opts.org)) throw new CliError(`--org must be an organization id, got "${opts.org}"`, EXIT_USAGE);
      const role = opts.role;
      const orgId = Number(opts.org);
      const key = await withIdentity(opts, env, async (deps) => {
        const org = await deps.pg.query("select 1 from orgs where id = $1", [orgId]);
        if (!org.rows.length) throw new CliError(`no organization with id ${orgId}`, EXIT_FAILURE);
        const caller = operator(orgId);
        const found = await deps.pg.query<{ id: number }>(
          `select u.id from users u join org_members m on m.user_id = u.id
            where u.is_service_account and m.org_id = $1 and lower(u.name) = lower($2)`,
          [orgId, opts.name.trim()],
        );
        const id = found.rows[0]?.id ?? (await createServiceAccount(deps, caller, { name: opts.name, role })).id;
        if (found.rows[0]) await updateServiceAccount(deps, caller, id, { role, isDisabled: false });
        // no API makes a service account a server admin (as in the real product): only this offline command, run by whoever holds the data dir
        if (opts.serverAdmin) await deps.pg.query("update users set is_server_admin = true where id = $1 and is_service_account", [id]);
        const stamp = new Date().toISOString().replace(/[-:]/g, "").replace(/\..*$/, "");
        return (await createToken(deps, caller, id, { name: `${opts.name.trim()}-cli-${stamp}` })).key;
      });
      process.stdout.write(`${key}\n`);
    });

  admin
    .command("reset-password")
    .description("set the password of a user (default: the built-in admin)")
    .option("-c, --config <file>", "YAML config file")
    .option("--data-dir <dir>", "data directory (default ./outpost-data)")
    .option("--login <login>", "login of the user", "admin")
    .option("--password <password>", "the new password; without it, read from standard input (keeps it out of the process list and shell history)")
    .action(async (opts: Common & { login: string; password?: string }) => {
      const password = opts.password ?? (await readStdin()).replace(/\r?\n$/, "");
      if (password.length < MIN_PASSWORD_LENGTH) {
        throw new CliError(`the new password is too short (at least ${MIN_PASSWORD_LENGTH} characters)`, EXIT_USAGE);
      }
      await withIdentity(opts, env, async (deps) => {
        const snap = await deps.model.snapshot();
        const user = snap.byLogin.get(opts.login.toLowerCase());
        if (!user || user.isServiceAccount) throw new CliError(`no user with login "${opts.login}"`, EXIT_FAILURE);
        await setPassword(deps, user.id, password);
      });
      process.stdout.write(`password of ${opts.login} changed\n`);
    });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString("utf8");
}
