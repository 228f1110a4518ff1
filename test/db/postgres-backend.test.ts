// The PostgreSQL backend behind the one database interface: the same
// migrations (once, when several nodes start together), the same JavaScript
// types as PGlite for every column type the program stores, the same errors,
// transactions that roll back, and a server that starts and serves on it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase } from "../../src/db/open.ts";
import { isUniqueViolation } from "../../src/db/errors.ts";
import { silentLogger } from "../../src/lib/logger.ts";
import { migrations } from "../../src/db/migrations/index.ts";
import { ADMIN, client } from "../helpers/api.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres.ts";
import { startTestServer } from "../helpers/server.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createCa, createServerCert } from "../../src/lib/pki.ts";

let server: PostgresServer;
beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(async () => {
  await server?.stop();
});

const open = (url: string) => openDatabase({ dataDir: undefined, logger: silentLogger, postgres: { url, maxConnections: 4 } });

describe("the PostgreSQL backend", () => {
  it("three nodes starting together on an empty database migrate it once and agree on the installation", async () => {
    const url = await server.createDatabase();
    const dbs = await Promise.all([open(url), open(url), open(url)]);
    try {
      expect(dbs.map((d) => d.backend)).toEqual(["postgres", "postgres", "postgres"]);
      expect(new Set(dbs.map((d) => d.installationUid)).size).toBe(1);
      const versions = (await dbs[0]!.pg.query<{ version: number; n: number }>("select version, count(*)::int as n from schema_migrations group by version order by version")).rows;
      expect(versions.map((v) => v.version)).toEqual(migrations.map((m) => m.version).sort((a, b) => a - b));
      expect(versions.every((v) => v.n === 1)).toBe(true);
      expect(dbs.filter((d) => d.created).length).toBeGreaterThanOrEqual(1);
    } finally {
      await Promise.all(dbs.map((d) => d.close()));
    }
    // a later start finds nothing to do and the same installation
    const again = await open(url);
    try {
      expect(again.created).toBe(false);
    } finally {
      await again.close();
    }
  });

  it("answers with the JavaScript types PGlite gives, column type by column type", async () => {
    const url = await server.createDatabase();
    const remote = await open(url);
    const local = await openDatabase({ dataDir: undefined, logger: silentLogger });
    try {
      const sql = `select 9007199254740991::int8 as i8, '{1,2,null}'::int8[] as i8s, 42::int4 as i4, 1.5::float8 as f8, 12.50::numeric as num,
        '\\x00ff10'::bytea as bin, '2026-11-28 10:11:12.345+02'::timestamptz as tz, '2026-11-28 10:11:12.345'::timestamp as ts,
        '2026-11-28'::date as d, '{"a":[1,{"b":null}]}'::jsonb as j, '[1,2]'::json as js, '{a,"b c",NULL}'::text[] as texts,
        '1 day 02:00:00'::interval as iv, true as b, null::text as n, 'x'::text as t, 7::oid as o,
        array['2026-01-01 00:00:00'::timestamp] as tss, 'infinity'::timestamptz as inf`;
      const [a, b] = await Promise.all([remote.pg.query(sql), local.pg.query(sql)]);
      expect(a.rows).toEqual(b.rows);
      expect(a.fields).toEqual(b.fields);
      expect(a.rows[0]!["bin"]).toBeInstanceOf(Uint8Array);
      // parameters go in the same way: dates, bytes, arrays, objects as JSON
      const params = [new Date("2026-11-28T01:02:03.004Z"), new Uint8Array([1, 2, 3]), [1, 2, 3], JSON.stringify({ k: "v" }), 12345678901234];
      const q = "select $1::timestamptz as d, $2::bytea as b, $3::int8[] as a, $4::jsonb as j, $5::int8 as n, $1::timestamp as ts";
      const [pa, pb] = await Promise.all([remote.pg.query(q, params), local.pg.query(q, params)]);
      expect(pa.rows).toEqual(pb.rows);
      // multi-statement exec and affected rows
      const ea = await remote.pg.exec("create table t (a int primary key); insert into t values (1), (2); select a from t order by a");
      const eb = await local.pg.exec("create table t (a int primary key); insert into t values (1), (2); select a from t order by a");
      expect(ea.map((r) => r.rows)).toEqual(eb.map((r) => r.rows));
      expect((await remote.pg.query("update t set a = a + 10")).affectedRows).toBe(2);
      expect((await local.pg.query("update t set a = a + 10")).affectedRows).toBe(2);
      expect((await remote.pg.query("select a from t")).affectedRows).toBe((await local.pg.query("select a from t")).affectedRows);
      // a unique violation names its constraint on both
      for (const db of [remote, local]) {
        const err = await db.pg.query("insert into t values (11)").catch((e: unknown) => e);
        expect(isUniqueViolation(err, "t_pkey")).toBe(true);
      }
    } finally {
      await Promise.all([remote.close(), local.close()]);
    }
  });

  it("a transaction commits together and rolls back when its callback throws", async () => {
    const db = await open(await server.createDatabase());
    try {
      await db.pg.exec("create table k (v text)");
      await db.pg.transaction(async (tx) => {
        await tx.query("insert into k values ('a')");
        await tx.query("insert into k values ('b')");
      });
      await expect(
        db.pg.transaction(async (tx) => {
          await tx.query("insert into k values ('c')");
          throw new Error("changed my mind");
        }),
      ).rejects.toThrow("changed my mind");
      // a statement error inside also rolls everything back, and the connection goes on serving
      await expect(
        db.pg.transaction(async (tx) => {
          await tx.query("insert into k values ('d')");
          await tx.query("insert into nowhere values (1)");
        }),
      ).rejects.toThrow(/nowhere/);
      expect((await db.pg.query<{ v: string }>("select v from k order by v")).rows.map((r) => r.v)).toEqual(["a", "b"]);
      expect(await db.ping()).toBe(true);
    } finally {
      await db.close();
    }
    expect(await db.ping()).toBe(false);
  });

  it("refuses a database a newer Outpost migrated, naming both versions", async () => {
    const url = await server.createDatabase();
    const db = await open(url);
    await db.pg.query("insert into schema_migrations (version, name) values (9999, 'from_the_future')");
    await db.close();
    await expect(open(url)).rejects.toThrow(/schema version 9999; this version knows up to \d+/);
  });

  it("a server started on it serves the dashboard, and what it wrote is there for the next start", async () => {
    const url = await server.createDatabase();
    const first = await startTestServer({ "storage.database_url": url });
    try {
      const api = client(first.urls.dashboard);
      const created = await api.post("/api/admin/users", { auth: ADMIN, body: { login: "pg-user", password: "a-long-password-1", email: "pg@example.com" } });
      expect(created.status).toBe(200);
      expect(first.db.backend).toBe("postgres");
    } finally {
      await first.stop();
    }
    const second = await startTestServer({ "storage.database_url": url });
    try {
      const found = await client(second.urls.dashboard).get("/api/users/lookup?loginOrEmail=pg-user", { auth: ADMIN });
      expect(found.status).toBe(200);
      expect((found.body as { login: string }).login).toBe("pg-user");
    } finally {
      await second.stop();
    }
  });
});

describe("the PostgreSQL backend over TLS (sslmode, storage.database_ca_file)", () => {
  const ca = createCa("Outpost test database CA");
  let tlsServer: PostgresServer;
  let caFile = "";
  let otherCaFile = "";
  let dir = "";
  beforeAll(async () => {
    tlsServer = await startPostgres({ tls: createServerCert(ca, ["127.0.0.1", "localhost"]) });
    dir = mkdtempSync(join(tmpdir(), "outpost-pg-tls-"));
    caFile = join(dir, "ca.pem");
    otherCaFile = join(dir, "other-ca.pem");
    writeFileSync(caFile, ca.cert);
    writeFileSync(otherCaFile, createCa("Someone else's CA").cert);
  }, 120_000);
  afterAll(async () => {
    await tlsServer?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const encrypted = async (url: string, ca?: string) => {
    const db = await openDatabase({ dataDir: undefined, logger: silentLogger, postgres: { url, maxConnections: 2, ...(ca ? { caFile: ca } : {}) } });
    try {
      return (await db.pg.query<{ ssl: boolean }>("select ssl from pg_stat_ssl where pid = pg_backend_pid()")).rows[0]!.ssl;
    } finally {
      await db.close();
    }
  };

  it("verify-full with the server's CA connects encrypted; another CA is refused; require encrypts; disable does not", async () => {
    const base = await tlsServer.createDatabase();
    expect(await encrypted(`${base}?sslmode=verify-full`, caFile)).toBe(true);
    await expect(encrypted(`${base}?sslmode=verify-full`, otherCaFile)).rejects.toThrow(/certificate/i);
    await expect(encrypted(`${base}?sslmode=verify-ca`, otherCaFile)).rejects.toThrow(/certificate/i);
    expect(await encrypted(`${base}?sslmode=require`)).toBe(true);
    expect(await encrypted(`${base}?sslmode=disable`)).toBe(false);
    // node-postgres's own URL settings never undo sslmode (ssl=0 would turn TLS off; sslcert would drop the CA)
    expect(await encrypted(`${base}?sslmode=verify-full&ssl=0`, caFile)).toBe(true);
    await expect(encrypted(`${base}?sslmode=verify-full&ssl=false&sslcert=/nonexistent`, otherCaFile)).rejects.toThrow(/certificate/i);
    // the CA from the URL, as libpq's sslrootcert
    expect(await encrypted(`${base}?sslmode=verify-full&sslrootcert=${encodeURIComponent(caFile)}`)).toBe(true);
  });

  it("an sslmode libpq does not know is refused at start, naming it", async () => {
    await expect(encrypted(`${tlsServer.url}?sslmode=sometimes`)).rejects.toThrow(/sslmode must be disable, allow, prefer, require, verify-ca or verify-full \(got sometimes\)/);
  });
});
