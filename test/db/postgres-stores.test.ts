// The stores' state on a PostgreSQL server (issue 26): the write-ahead logs
// are rows of store_wal, log chunks rows of log_chunks. A line deleted through
// Loki's delete API is in no row afterwards (the pushes as they came in
// store_wal included), every other line stays, and a restart brings nothing
// back — the file-level test of test/logstore/delete.test.ts, for rows.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeColumns } from "../../src/apps/logstore/core/columns.ts";
import { pollUntil } from "../helpers/eventually.ts";
import { startPostgres, type PostgresServer } from "../helpers/postgres.ts";
import { startTestServer, testClock, type TestServer } from "../helpers/server.ts";
import { logClient } from "../logstore/helpers.ts";

const HOUR = 3_600_000;
const nsAt = (ms: number) => String(BigInt(ms) * 1_000_000n);

let server: PostgresServer;
let url = "";
let db: pg.Pool;
beforeAll(async () => {
  server = await startPostgres();
  url = await server.createDatabase();
  db = new pg.Pool({ connectionString: url, max: 1 });
}, 120_000);
afterAll(async () => {
  await db?.end();
  await server?.stop();
});

async function lines(s: TestServer, tenant: string, query: string, now: number): Promise<string[]> {
  const r = await logClient(s.urls.logs!).get("/svc/api/v1/query_range", tenant, { query, direction: "forward", limit: "5000", start: nsAt(now - 48 * HOUR), end: nsAt(now + 1000) });
  expect(r.status).toBe(200);
  return (r.body.data.result as Array<{ values: string[][] }>).flatMap((x) => x.values).sort((a, b) => (BigInt(a[0]!) < BigInt(b[0]!) ? -1 : 1)).map((v) => v[1]!);
}

/** every row of the database that holds `text`: in the write-ahead log as pushed, or in a stored chunk's lines */
async function rowsHolding(text: string): Promise<string[]> {
  const out: string[] = [];
  const wal = await db.query("select seq from store_wal where position($1::bytea in body) > 0", [Buffer.from(text)]);
  for (const r of wal.rows) out.push(`store_wal ${r.seq}`);
  const chunks = await db.query("select id, data from log_chunks where data is not null");
  for (const r of chunks.rows) {
    const c = decodeColumns(new Uint8Array(r.data));
    if (Buffer.from(c.lines).includes(text)) out.push(`log_chunks ${r.id}`);
  }
  return out;
}

describe("the log store on PostgreSQL", () => {
  it("a deleted line is in no row of the database afterwards, not even the write-ahead log; the others stay, across a restart", async () => {
    const clock = testClock();
    const flags = { "storage.database_url": url, "logs.compactor.delete_request_cancel_period": "1h", "logs.compactor.compaction_interval": "200ms" };
    const t0 = clock.now();
    const line = (i: number) => (i % 4 === 0 ? `user=u${i} password=hunter2` : `user=u${i} action=view`);
    const all = Array.from({ length: 40 }, (_, i) => line(i));
    const kept = all.filter((l) => !l.includes("hunter2"));
    const first = await startTestServer(flags, clock);
    try {
      const logs = logClient(first.urls.logs!);
      expect((await logs.push("acme", [{ stream: { app: "api" }, values: all.slice(0, 30).map((l, i): [string, string] => [nsAt(t0 - 30 * 60_000 + i * 1000), l]) }])).status).toBe(204);
      // the first pushes go to chunks (rows), the later ones stay in the head and the log
      clock.advance(6 * 60_000);
      expect(await pollUntil(async () => Number((await db.query("select count(*) as n from log_chunks")).rows[0].n) >= 1)).toBe(true);
      expect((await logs.push("acme", [{ stream: { app: "api" }, values: all.slice(30).map((l, i): [string, string] => [nsAt(t0 - 10 * 60_000 + i * 1000), l]) }])).status).toBe(204);
      expect(await rowsHolding("hunter2")).not.toEqual([]);

      const created = await fetch(`${first.urls.logs!}/loki/api/v1/delete?${new URLSearchParams({ query: '{app="api"} |= "hunter2"', start: String(Math.floor((t0 - HOUR) / 1000)) })}`, { method: "POST", headers: { "X-Scope-OrgID": "acme" } });
      expect(created.status).toBe(204);
      clock.advance(2 * HOUR);
      expect(await pollUntil(async () => {
        const r = await fetch(`${first.urls.logs!}/loki/api/v1/delete`, { headers: { "X-Scope-OrgID": "acme" } });
        return ((await r.json()) as Array<{ status: string }>)[0]?.status === "processed";
      })).toBe(true);
      expect(await lines(first, "acme", '{app="api"}', clock.now())).toEqual(kept);
      expect(await pollUntil(async () => (await rowsHolding("hunter2")).length === 0)).toBe(true);
    } finally {
      await first.stop();
    }
    const again = await startTestServer(flags, clock);
    try {
      expect(await lines(again, "acme", '{app="api"}', clock.now())).toEqual(kept);
      expect(await rowsHolding("hunter2")).toEqual([]);
    } finally {
      await again.stop();
    }
  });
});
