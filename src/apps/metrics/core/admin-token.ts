// The token of the metrics store's tenant admin API (GEM's bootstrap admin
// token, made there by `-target=tokengen`). Either configured
// (metrics.admin_token) or generated on first boot and shown once; only its
// SHA-256 is stored (metrics_admin_token), so a lost generated token is
// replaced by configuring one.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Sql } from "../../../db/sql.ts";

export const ADMIN_TOKEN_PREFIX = "outpost-admin-";

export interface AdminToken {
  /** true when the password is the admin token (digests compared in constant time) */
  verify(password: string): boolean;
}

export interface AdminTokenOptions {
  pg: Sql;
  /** metrics.admin_token: when non-empty it is the token, and its hash replaces the stored one */
  configured: string;
  /**
   * called once, on the first boot without a configured token, with a message
   * holding the generated token; the caller writes it to standard error, never
   * to the structured log
   */
  announce(text: string): void;
}

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

export async function ensureAdminToken(options: AdminTokenOptions): Promise<AdminToken> {
  const { pg, configured } = options;
  let hash: Buffer;
  if (configured !== "") {
    hash = digest(configured);
    await pg.query(
      `insert into metrics_admin_token (id, hash) values (1, $1)
       on conflict (id) do update set hash = excluded.hash, created_at = now()`,
      [hash.toString("hex")],
    );
  } else {
    const stored = (await pg.query<{ hash: string }>("select hash from metrics_admin_token where id = 1")).rows[0];
    if (stored) {
      hash = Buffer.from(stored.hash, "hex");
    } else {
      const token = ADMIN_TOKEN_PREFIX + randomBytes(32).toString("base64url");
      hash = digest(token);
      await pg.query("insert into metrics_admin_token (id, hash) values (1, $1)", [hash.toString("hex")]);
      options.announce(
        `metrics store admin token (shown only this once; use it as the basic auth password with an empty user name, ` +
          `e.g. curl -u :<token>): ${token}`,
      );
    }
  }
  return {
    verify(password) {
      const given = digest(password);
      return given.length === hash.length && timingSafeEqual(given, hash);
    },
  };
}
