// The PostgreSQL backend of the database interface (sql.ts): a pool of
// connections of node-postgres (`pg`), with its results parsed to the types
// PGlite gives, so that no caller can tell the backends apart.
import pg from "pg";
import { readFileSync } from "node:fs";
import { isIP } from "node:net";
import type { ConnectionOptions } from "node:tls";
import type { Logger } from "../lib/logger.ts";
import type { Queryable, Sql, SqlResult, SqlTx } from "./sql.ts";

const { Pool, Client, types } = pg;

// a Date parameter goes out as UTC (PGlite's way) whatever the process's time zone
pg.defaults.parseInputDatesAsUTC = true;

const INT8 = 20;
const INT8_ARRAY = 1016;
const TIMESTAMP = 1114;
const TIMESTAMPTZ = 1184;
const TIMESTAMP_ARRAY = 1115;
const DATE = 1082;
const INTERVAL = 1186;
const BYTEA = 17;

const timestamptz = types.getTypeParser(TIMESTAMPTZ, "text") as (s: string) => Date;
const bytea = types.getTypeParser(BYTEA, "text") as (s: string) => Buffer;
const arrayOf = <T>(parse: (s: string) => T) => {
  return (s: string): T[] => parseArray(s).map((v) => (v === null ? (null as T) : parse(v)));
};

/** PGlite's parsers: int8 as a number, timestamps without zone as UTC, dates at UTC midnight, intervals as text, bytea as bytes */
const parsers: Record<number, (s: string) => unknown> = {
  [INT8]: Number,
  [INT8_ARRAY]: arrayOf(Number),
  [TIMESTAMP]: (s) => timestamptz(isFinite(s) ? `${s}+00` : s),
  [TIMESTAMP_ARRAY]: arrayOf((s) => timestamptz(isFinite(s) ? `${s}+00` : s)),
  [DATE]: (s) => (isFinite(s) ? new Date(`${s}T00:00:00Z`) : s),
  [INTERVAL]: (s) => s,
  [BYTEA]: (s) => {
    const b = bytea(s);
    return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
  },
};
const typeParsers = {
  getTypeParser(oid: number, format?: "text" | "binary") {
    const own = format === "binary" ? undefined : parsers[oid];
    return own ?? types.getTypeParser(oid, format ?? "text");
  },
};

function isFinite(s: string): boolean {
  return s !== "infinity" && s !== "-infinity";
}

/** a Postgres array literal of plain elements ({a,"b c",NULL}) into its element texts */
function parseArray(s: string): Array<string | null> {
  const out: Array<string | null> = [];
  if (s.length < 2 || s === "{}") return out;
  let i = 1;
  while (i < s.length - 1) {
    if (s[i] === '"') {
      let v = "";
      i++;
      while (s[i] !== '"') {
        if (s[i] === "\\") i++;
        v += s[i];
        i++;
      }
      out.push(v);
      i += 2; // the closing quote and the comma
    } else {
      const end = s.indexOf(",", i);
      const stop = end === -1 ? s.length - 1 : end;
      const v = s.slice(i, stop);
      out.push(v === "NULL" ? null : v);
      i = stop + 1;
    }
  }
  return out;
}

export interface PostgresOptions {
  url: string;
  /** read from a file (trailing white space dropped) when the URL has none */
  passwordFile?: string;
  /** PEM file of the CA the server's certificate is verified against */
  caFile?: string;
  maxConnections: number;
  logger: Logger;
  /** how the pool's connections name themselves in pg_stat_activity */
  applicationName?: string;
}

const DML = new Set(["INSERT", "UPDATE", "DELETE", "MERGE", "COPY"]);

function result<T>(r: pg.QueryResult): SqlResult<T> {
  return {
    rows: r.rows as T[],
    affectedRows: DML.has(r.command) ? (r.rowCount ?? 0) : 0,
    fields: (r.fields ?? []).map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })),
  };
}

const JSON_TYPES = new Set([114, 3802]);
/** parameter types of statements that were given an array, by their text */
const paramTypes = new Map<string, Promise<number[]>>();
let described = 0;

/**
 * A JavaScript array is a Postgres array to node-postgres, and JSON to PGlite
 * when the parameter is a json or jsonb one (PGlite asks the server for the
 * parameters' types first). The same here, for statements given an array:
 * their parameters' types are asked once (PREPARE, then the catalogue) and
 * kept by statement text.
 */
async function serialize(client: pg.Pool | pg.PoolClient | pg.Client, sql: string, params: unknown[]): Promise<unknown[]> {
  if (!params.some((p) => Array.isArray(p))) return params;
  let types = paramTypes.get(sql);
  if (!types) {
    types = describeParams(client, sql);
    paramTypes.set(sql, types);
    types.catch(() => paramTypes.delete(sql));
  }
  const oids = await types;
  return params.map((p, i) => (Array.isArray(p) && JSON_TYPES.has(oids[i] ?? 0) ? JSON.stringify(p) : p));
}

async function describeParams(client: pg.Pool | pg.PoolClient | pg.Client, sql: string): Promise<number[]> {
  const name = `outpost_describe_${described++}`;
  const run = async (c: pg.PoolClient | pg.Client) => {
    await c.query(`prepare ${name} as ${sql}`);
    try {
      const r = await c.query<{ t: number[] }>("select parameter_types::oid[] as t from pg_prepared_statements where name = $1", [name]);
      return (r.rows[0]?.t ?? []).map(Number);
    } finally {
      await c.query(`deallocate ${name}`);
    }
  };
  if (!(client instanceof Pool)) return run(client);
  const c = await client.connect();
  try {
    return await run(c);
  } finally {
    c.release();
  }
}

function runner(client: pg.Pool | pg.PoolClient | pg.Client): Queryable {
  return {
    async query<T>(sql: string, params?: unknown[]) {
      const values = params ? await serialize(client, sql, params) : [];
      return result<T>(await client.query({ text: sql, values, types: typeParsers }));
    },
    async exec(sql: string) {
      const r = (await client.query({ text: sql, types: typeParsers })) as pg.QueryResult | pg.QueryResult[];
      return (Array.isArray(r) ? r : [r]).map((x) => result<Record<string, unknown>>(x));
    },
  };
}

/** the connection settings of a URL, with the password file and TLS applied */
export function connectionConfig(options: Omit<PostgresOptions, "maxConnections" | "logger">): pg.ClientConfig {
  const url = new URL(options.url);
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new Error(`storage.database_url must be a postgres:// URL (got ${url.protocol}//…)`);
  }
  const sslmode = url.searchParams.get("sslmode") ?? "prefer";
  const caInUrl = url.searchParams.get("sslrootcert");
  const certFile = url.searchParams.get("sslcert");
  const keyFile = url.searchParams.get("sslkey");
  // pg reads TLS settings from the URL in its own way, over the ones given beside it (require means verify-full
  // there, ssl=0 turns TLS off, sslcert replaces the CA): none of them reaches it, Outpost follows libpq's meanings
  for (const name of [...url.searchParams.keys()]) if (name === "ssl" || name.startsWith("ssl")) url.searchParams.delete(name);
  const config: pg.ClientConfig = {
    connectionString: url.toString(),
    application_name: options.applicationName ?? "outpost",
    // the same clock for every connection as PGlite's: to_char, date_trunc and now()::date agree; and the
    // server notices a node that vanished (a lost machine sends nothing more) within seconds, not the
    // kernel's two hours: its sessions end, and the store lock one held is free for a standby
    // a commit is durable when it returns whatever the server's default (the stores acknowledge pushes after theirs);
    options: "-c timezone=UTC -c synchronous_commit=on -c tcp_keepalives_idle=2 -c tcp_keepalives_interval=1 -c tcp_keepalives_count=3 -c tcp_user_timeout=5000",
    // and this side notices a server that vanished
    keepAlive: true,
    keepAliveInitialDelayMillis: 2_000,
    types: typeParsers,
  };
  if (!url.password && options.passwordFile) config.password = readFileSync(options.passwordFile, "utf8").trimEnd();
  const caFile = options.caFile || caInUrl || undefined;
  const ca = caFile ? readFileSync(caFile, "utf8") : undefined;
  const tls: ConnectionOptions | false | undefined = tlsFor(sslmode, ca, url.hostname);
  // a client certificate (libpq's sslcert and sslkey), when TLS is on
  if (tls && certFile && keyFile) Object.assign(tls, { cert: readFileSync(certFile, "utf8"), key: readFileSync(keyFile, "utf8") });
  if (tls !== undefined) config.ssl = tls;
  return config;
}

/** SNI names a host, never an address (RFC 6066); an address is still checked against the certificate's IP names */
function serverName(host: string): { servername?: string } {
  return isIP(host.replace(/^\[|\]$/g, "")) ? {} : { servername: host };
}

function tlsFor(mode: string, ca: string | undefined, host: string): ConnectionOptions | false | undefined {
  switch (mode) {
    case "disable":
    case "allow":
    case "prefer":
      // pg has no "try TLS, fall back": prefer and allow connect without, as most servers on a private network expect
      return false;
    case "require":
      // libpq: encrypted, and verified only when a CA is given
      return ca ? { ca, ...serverName(host) } : { rejectUnauthorized: false };
    case "verify-ca":
      return { ca, checkServerIdentity: () => undefined };
    case "verify-full":
      return { ca, ...serverName(host) };
    default:
      throw new Error(`storage.database_url: sslmode must be disable, allow, prefer, require, verify-ca or verify-full (got ${mode})`);
  }
}

export interface PostgresDatabase extends Sql {
  /** a connection of its own, outside the pool (LISTEN, session advisory locks); `queryTimeoutMs`: a statement not answered by then fails */
  connect(options?: { queryTimeoutMs?: number }): Promise<pg.Client>;
  /** true when the server process `pid` serves one of this pool's connections: a notification this node's own write sent */
  ownBackend(pid: number): boolean;
  close(): Promise<void>;
}

export async function openPostgres(options: PostgresOptions): Promise<PostgresDatabase> {
  const config = connectionConfig(options);
  const pool = new Pool({ ...config, max: options.maxConnections, idleTimeoutMillis: 30_000, connectionTimeoutMillis: 10_000 });
  // a connection the server closed while idle (a restart, a failover) is dropped and replaced, not a crash
  pool.on("error", (err) => options.logger.warn("a database connection failed while idle; it is replaced", { err: err.message }));
  // the server processes behind the pool's connections: notifications they sent are this node's own writes
  const backends = new Set<number>();
  const pidOf = (c: pg.PoolClient) => (c as unknown as { processID?: number }).processID;
  pool.on("connect", (c) => {
    const pid = pidOf(c);
    if (pid) backends.add(pid);
  });
  pool.on("remove", (c) => {
    const pid = pidOf(c);
    if (pid) backends.delete(pid);
  });
  // fail at start, with the server's own words, rather than at the first request
  const probe = await pool.connect();
  try {
    const v = await probe.query<{ server_version_num: string }>("show server_version_num");
    const num = Number(v.rows[0]?.server_version_num ?? 0);
    if (num < 140000) throw new Error(`PostgreSQL 14 or later is needed (the server is ${Math.floor(num / 10000)})`);
  } finally {
    probe.release();
  }
  let closed = false;
  const base = runner(pool);
  return {
    ...base,
    backend: "postgres",
    get closed() {
      return closed;
    },
    async checkpoint() {},
    async transaction<T>(callback: (tx: SqlTx) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      let broken = false;
      try {
        await client.query("begin");
        const value = await callback(runner(client));
        await client.query("commit");
        return value;
      } catch (err) {
        await client.query("rollback").catch(() => {
          broken = true;
        });
        throw err;
      } finally {
        client.release(broken);
      }
    },
    ownBackend: (pid) => backends.has(pid),
    async connect(o) {
      const client = new Client({ ...config, ...(o?.queryTimeoutMs ? { query_timeout: o.queryTimeoutMs } : {}) });
      await client.connect();
      return client;
    },
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
