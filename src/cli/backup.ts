// outpost backup: a consistent backup of a running server, through its
// dashboard API (PGlite opens in one process only, so the server makes the
// backup: POST /api/admin/backups), downloaded to --to, checked end to end
// (every file against the manifest's checksum) and then deleted from the
// server (unless --keep-on-server). Credentials come from the environment or
// files, never the command line (where the process list shows them).
//
// outpost restore: an archive into a new data dir (src/backup/restore.ts).
import type { Command } from "commander";
import { createWriteStream, existsSync, readFileSync, renameSync, rmSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { BackupInfo } from "../backup/service.ts";
import { DataDirTooNewError } from "../db/data-dir-format.ts";
import { CliError, EXIT_FAILURE, EXIT_USAGE } from "./exit-codes.ts";

interface BackupFlags {
  to: string;
  url?: string;
  user?: string;
  passwordFile?: string;
  tokenFile?: string;
  includeSecretKey?: boolean;
  keepOnServer?: boolean;
}

const POLL_MS = 500;
const mib = (n: number) => `${(n / 1048576).toFixed(1)} MiB`;

/** a file's first line (a password or token file) */
function secretFrom(file: string, what: string): string {
  try {
    return readFileSync(file, "utf8").split(/\r?\n/)[0]!.trim();
  } catch (err) {
    throw new CliError(`cannot read the ${what} file ${file}: ${(err as Error).message}`, EXIT_USAGE);
  }
}

/** the Authorization header: a service account token, or a server admin's login and password */
export function authorizationOf(flags: BackupFlags, env: Record<string, string | undefined>): string {
  const token = flags.tokenFile ? secretFrom(flags.tokenFile, "token") : env.OUTPOST_TOKEN;
  if (token) return `Bearer ${token}`;
  const password = flags.passwordFile ? secretFrom(flags.passwordFile, "password") : env.OUTPOST_PASSWORD;
  if (!password) {
    throw new CliError("no credentials: set OUTPOST_TOKEN (a service account token) or OUTPOST_PASSWORD (with --user or OUTPOST_USER, default admin), or give --token-file or --password-file", EXIT_USAGE);
  }
  const user = flags.user ?? env.OUTPOST_USER ?? "admin";
  return `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`;
}

async function call(url: string, init: RequestInit & { auth: string }): Promise<Response> {
  const { auth, ...rest } = init;
  let res: Response;
  try {
    res = await fetch(url, { ...rest, headers: { Accept: "application/json", Authorization: auth, ...(rest.headers as Record<string, string> | undefined) } });
  } catch (err) {
    throw new CliError(`cannot reach ${url}: ${(err as Error).message}`, EXIT_FAILURE);
  }
  if (res.ok) return res;
  const text = await res.text().catch(() => "");
  let message = text.slice(0, 500);
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? message;
  } catch { /* not JSON */ }
  throw new CliError(`${init.method ?? "GET"} ${new URL(url).pathname}: ${res.status} ${message}`, EXIT_FAILURE);
}

/** the archive code, loaded by these commands only (not at every start of the program) */
const archiveCode = async () => {
  const [{ ArchiveError, readArchive }, { secretKeyNotice }, { restoreBackup, RestoreTargetError }] = await Promise.all([
    import("../backup/read-archive.ts"), import("../backup/manifest.ts"), import("../backup/restore.ts"),
  ]);
  return { ArchiveError, readArchive, secretKeyNotice, restoreBackup, RestoreTargetError };
};

async function runBackup(flags: BackupFlags, env: Record<string, string | undefined>): Promise<void> {
  const { readArchive, secretKeyNotice } = await archiveCode();
  const to = resolve(flags.to);
  if (existsSync(to)) throw new CliError(`${to} exists: give a new file (a backup never overwrites one)`, EXIT_USAGE);
  const auth = authorizationOf(flags, env);
  const base = (flags.url ?? env.OUTPOST_URL ?? "http://localhost:3000").replace(/\/+$/, "");
  if (/^http:/i.test(base) && !/^http:\/\/(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:|\/|$)/i.test(base)) {
    process.stderr.write(`note: ${base} is plain HTTP: the credentials and the archive (every password hash and sealed secret) cross the network unencrypted\n`);
  }
  const api = `${base}/api/admin/backups`;
  const started = await call(api, { method: "POST", auth, headers: { "Content-Type": "application/json" }, body: JSON.stringify({ includeSecretKey: flags.includeSecretKey === true }) });
  const { name } = (await started.json()) as BackupInfo;
  process.stderr.write(`backup ${name} started on ${base}\n`);
  let info: BackupInfo | undefined;
  for (;;) {
    const list = (await (await call(api, { auth })).json()) as BackupInfo[];
    info = list.find((b) => b.name === name && b.state !== "running");
    if (info || !list.some((b) => b.name === name)) break;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  if (!info) throw new CliError(`backup ${name} is gone from the server's list`, EXIT_FAILURE);
  if (info.state !== "complete") throw new CliError(`backup ${name} failed on the server: ${info.error ?? info.state}`, EXIT_FAILURE);

  const partial = `${to}.partial`;
  try {
    const res = await call(`${api}/${encodeURIComponent(name)}`, { auth, headers: { Accept: "application/gzip" } });
    if (!res.body) throw new CliError("the server sent no archive", EXIT_FAILURE);
    await pipeline(Readable.fromWeb(res.body as unknown as import("node:stream/web").ReadableStream), createWriteStream(partial, { flags: "wx", mode: 0o600 }));
    const size = statSync(partial).size;
    if (size !== info.size) throw new CliError(`the download is ${size} bytes, the server's archive ${info.size}`, EXIT_FAILURE);
    // every file against its checksum: what is kept is known to restore
    const manifest = await readArchive(partial).catch((err: unknown) => {
      throw new CliError(`the downloaded archive does not check out: ${(err as Error).message}`, EXIT_FAILURE);
    });
    renameSync(partial, to);
    if (!flags.keepOnServer) {
      // the archive is written and checked: a server copy left behind is only a note
      await call(`${api}/${encodeURIComponent(name)}`, { method: "DELETE", auth }).catch((err: unknown) => {
        process.stderr.write(`note: the server's copy ${name} could not be deleted (${(err as Error).message}): DELETE it from backups.dir\n`);
      });
    }
    process.stdout.write(
      `${to}: ${mib(size)}, ${manifest.files.length} files (${mib(manifest.files.reduce((n, f) => n + f.size, 0))} of data), ` +
        `Outpost ${manifest.outpost}, database schema ${manifest.schema}, database held ${manifest.databaseHeldMs ?? "?"} ms, secret key ${manifest.secretKey}\n`,
    );
    const notice = secretKeyNotice(manifest);
    if (notice) process.stderr.write(`note: ${notice.replace("the archive holds", "this archive holds")}\n`);
  } finally {
    rmSync(partial, { force: true });
  }
}

export function registerBackup(program: Command, env: Record<string, string | undefined>): void {
  program
    .command("backup")
    .description("back up a running server (database, log and metrics files, at one consistent moment) into a .tar.gz archive, through its dashboard API")
    .requiredOption("--to <file>", "the archive to write (a new file)")
    .option("--url <url>", "the dashboard's URL (default $OUTPOST_URL, else http://localhost:3000)")
    .option("--user <login>", "a server admin's login, with the password in $OUTPOST_PASSWORD or --password-file (default $OUTPOST_USER, else admin)")
    .option("--password-file <file>", "a file whose first line is the password (instead of $OUTPOST_PASSWORD)")
    .option("--token-file <file>", "a file whose first line is a service account token with the server.backups actions (instead of $OUTPOST_TOKEN)")
    .option("--include-secret-key", "put the data dir's secret key (it opens the sealed secrets) in the archive: keep such an archive as safe as the key")
    .option("--keep-on-server", "leave the archive in the server's backups.dir too")
    .action(async (flags: BackupFlags) => runBackup(flags, env));

  program
    .command("restore")
    .description("restore a backup archive into a new (or empty) data dir; the archive is checked whole before anything is put in place")
    .requiredOption("--from <file>", "the archive (made by outpost backup or POST /api/admin/backups)")
    .requiredOption("--data-dir <dir>", "the data dir to create (it must not exist, or be empty)")
    .action(async (flags: { from: string; dataDir: string }) => {
      if (!existsSync(flags.from)) throw new CliError(`${flags.from}: no such file`, EXIT_USAGE);
      const { ArchiveError, restoreBackup, RestoreTargetError } = await archiveCode();
      const t0 = performance.now();
      const result = await restoreBackup({ from: flags.from, dataDir: flags.dataDir }).catch((err: unknown) => {
        if (err instanceof RestoreTargetError) throw new CliError(err.message, EXIT_USAGE);
        if (err instanceof ArchiveError) throw new CliError(`${flags.from}: ${err.message}; nothing was restored`, EXIT_FAILURE);
        if (err instanceof DataDirTooNewError) throw new CliError(`${flags.from}: ${err.message}; nothing was restored`, EXIT_FAILURE);
        throw err;
      });
      const m = result.manifest;
      process.stdout.write(
        `restored ${flags.from} (Outpost ${m.outpost}, database schema ${m.schema}, made ${m.createdAt}) into ${result.dataDir}: ` +
          `${m.files.length} files, ${mib(result.bytes)} in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
      );
      for (const w of result.warnings) process.stderr.write(`warning: ${w}\n`);
    });
}
