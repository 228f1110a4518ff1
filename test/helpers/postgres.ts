// A PostgreSQL server of the tests' own: Debian's postgresql package
// (installed by .ci/run), a cluster made with initdb in a temp dir, run as a
// non-root user (the postgres account the package creates, when the tests run
// as root: the server refuses root), on a free port, trust authentication
// on 127.0.0.1 only, fsync off (a test cluster, thrown away).
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./ports.ts";

export interface PostgresServer {
  /** postgres://…/postgres, the maintenance database */
  readonly url: string;
  readonly port: number;
  /** a URL of another database on the same server */
  urlOf(database: string): string;
  /** creates an empty database (or a copy of `template`) and returns its URL */
  createDatabase(name?: string, template?: string): Promise<string>;
  /** runs one statement on the maintenance database */
  query(sql: string, params?: unknown[]): Promise<pg.QueryResult>;
  /** stops the server and removes its files */
  stop(): Promise<void>;
}

/** the newest installed server's bin dir, or undefined when no postgresql package is installed */
export function postgresBinDir(): string | undefined {
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v) && Number(v) >= 14 && existsSync(join(root, v, "bin", "postgres")));
  versions.sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], "bin") : undefined;
}

export const postgresInstalled = (): boolean => postgresBinDir() !== undefined;


/** the server's commands run as this user, or as the package's postgres account when this is root */
function asServerUser(): { uid?: number; gid?: number } {
  if (process.getuid?.() !== 0) return {};
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  return { uid, gid };
}

let counter = 0;

/** TLS for the server: its certificate and key (PEM); clients may then use sslmode */
export interface PostgresTls {
  cert: string;
  key: string;
}

export async function startPostgres(options: { tls?: PostgresTls } = {}): Promise<PostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (apt-get install postgresql): .ci/run installs it");
  const dir = mkdtempSync(join(tmpdir(), "outpost-pg-"));
  const data = join(dir, "data");
  const user = asServerUser();
  const spawnOpts = { encoding: "utf8" as const, ...(user.uid !== undefined ? { uid: user.uid, gid: user.gid } : {}) };
  if (user.uid !== undefined) {
    chmodSync(dir, 0o777);
    execFileSync("chown", [`${user.uid}:${user.gid}`, dir]);
  }
  const run = (cmd: string, args: string[]) => {
    const r = spawnSync(join(bin, cmd), args, { ...spawnOpts, env: { ...process.env, LC_ALL: "C.UTF-8" } });
    if (r.status !== 0) throw new Error(`${cmd} failed (${r.status}): ${r.stderr || r.stdout || r.error?.message}`);
    return r.stdout;
  };
  run("initdb", ["-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"]);
  const port = await freePort();
  let ssl = "";
  if (options.tls) {
    const cert = join(dir, "server.crt");
    const key = join(dir, "server.key");
    writeFileSync(cert, options.tls.cert, { mode: 0o600 });
    writeFileSync(key, options.tls.key, { mode: 0o600 });
    if (user.uid !== undefined) execFileSync("chown", [`${user.uid}:${user.gid}`, cert, key]);
    ssl = ` -c ssl=on -c ssl_cert_file=${cert} -c ssl_key_file=${key}`;
  }
  run("pg_ctl", [
    "-D", data, "-l", join(dir, "server.log"), "-w", "-t", "60",
    "-o", `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300${ssl}`,
    "start",
  ]);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  admin.on("error", () => undefined);
  const urlOf = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    url,
    port,
    urlOf,
    async createDatabase(name = `t_${process.pid}_${Date.now().toString(36)}_${counter++}`, template?: string) {
      await admin.query(`create database "${name}"${template ? ` template "${template}"` : ""}`);
      return urlOf(name);
    },
    query: (sql, params) => admin.query(sql, params),
    async stop() {
      await admin.end().catch(() => undefined);
      spawnSync(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"], spawnOpts);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
