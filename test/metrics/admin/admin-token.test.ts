// The admin token: generated and shown once on first boot (only its hash is
// stored), never shown again; a configured token replaces it.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN_TOKEN_PREFIX, ensureAdminToken } from "../../../src/apps/metrics/core/admin-token.ts";
import { openDatabase, type Database } from "../../../src/db/open.ts";
import { silentLogger } from "../../../src/lib/logger.ts";

describe("metrics store admin token", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ dataDir: undefined, logger: silentLogger });
  });
  afterAll(async () => {
    await db.close();
  });

  let generated = "";
  it("first boot without a configured token: one is generated, announced once, and verifies", async () => {
    const announced: string[] = [];
    const token = await ensureAdminToken({ pg: db.pg, configured: "", announce: (text) => announced.push(text) });
    expect(announced).toHaveLength(1);
    const m = new RegExp(`${ADMIN_TOKEN_PREFIX}[A-Za-z0-9_-]{43}`).exec(announced[0]!);
    expect(m).not.toBeNull();
    generated = m![0];
    expect(token.verify(generated)).toBe(true);
    expect(token.verify(`${generated}x`)).toBe(false);
    expect(token.verify("")).toBe(false);
    const rows = (await db.pg.query<{ hash: string }>("select hash from metrics_admin_token")).rows;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(rows[0]!.hash).not.toContain(generated);
  });

  it("a second boot on the same database announces nothing and the token still verifies", async () => {
    const announced: string[] = [];
    const token = await ensureAdminToken({ pg: db.pg, configured: "", announce: (text) => announced.push(text) });
    expect(announced).toEqual([]);
    expect(token.verify(generated)).toBe(true);
  });

  it("a configured token replaces the stored one, and stays after it is no longer configured", async () => {
    const announced: string[] = [];
    const token = await ensureAdminToken({ pg: db.pg, configured: "my-own-token", announce: (text) => announced.push(text) });
    expect(announced).toEqual([]);
    expect(token.verify("my-own-token")).toBe(true);
    expect(token.verify(generated)).toBe(false);
    const later = await ensureAdminToken({ pg: db.pg, configured: "", announce: (text) => announced.push(text) });
    expect(announced).toEqual([]);
    expect(later.verify("my-own-token")).toBe(true);
    expect((await db.pg.query("select * from metrics_admin_token")).rows).toHaveLength(1);
  });
});
