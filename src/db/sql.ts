// The one database interface the program uses. Two backends implement it:
// the embedded PGlite (the default; the PGlite instance itself has this
// shape) and a PostgreSQL server through a connection pool (postgres.ts).
// Nothing outside src/db/ knows which one is in use: the SQL is the same
// Postgres dialect, results come back with the same JavaScript types (int8 as
// a number, timestamps and dates as Dates, bytea as bytes, jsonb parsed),
// and a unique-constraint error carries the same code and constraint.

export interface SqlField {
  name: string;
  dataTypeID: number;
}

export interface SqlResult<T> {
  rows: T[];
  /** rows an INSERT, UPDATE or DELETE touched */
  affectedRows?: number;
  fields: SqlField[];
}

/** what runs statements: the database itself or an open transaction */
export interface Queryable {
  /** one statement with $1-style parameters */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<SqlResult<T>>;
  /** one or more statements, no parameters */
  exec(sql: string): Promise<Array<SqlResult<Record<string, unknown>>>>;
}

/** a transaction's handle: its statements commit together when the callback returns, roll back when it throws */
export type SqlTx = Queryable;

export interface Sql extends Queryable {
  /**
   * Runs `callback` in one transaction. With PGlite nothing else runs until
   * it ends; with PostgreSQL other statements go on, on other connections, at
   * read committed, so a read-then-write that must not interleave takes a row
   * lock (`for update`) or an advisory lock.
   */
  transaction<T>(callback: (tx: SqlTx) => Promise<T>): Promise<T>;
  /** true once closed */
  readonly closed: boolean;
  /** which engine runs the statements */
  readonly backend: "pglite" | "postgres";
  /**
   * Writes what the engine holds in memory to its files, so the space of
   * vacuumed rows is reusable on disk now: PGlite's CHECKPOINT. A PostgreSQL
   * server checkpoints on its own (and CHECKPOINT needs a superuser there): nothing.
   */
  checkpoint(): Promise<void>;
}
