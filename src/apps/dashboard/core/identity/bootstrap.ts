// First-boot content of the identity tables: organization 1 ("Main Org.")
// and the built-in admin user with the configured initial password.
// Idempotent: runs at every start and changes nothing that exists.
import type { Sql } from "../../../../db/sql.ts";
import { newUid } from "../../../../lib/ids.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";

export const MAIN_ORG_NAME = "Main Org.";
export const DEFAULT_ADMIN_PASSWORD = "admin";

/**
 * bcrypt of the public default password "admin", made once: first boot with
 * the default password then costs no hashing (~0.1 s). It reveals nothing the
 * documentation does not already say.
 */
const DEFAULT_ADMIN_HASH = "$2b$10$m0wqsCMDO4QXzwb5fJqDreYihOs.DScxDr.ynRgCXtJqOxnMwFC5e";

export async function bootstrapIdentity(pg: Sql, adminPassword: string): Promise<{ createdAdmin: boolean }> {
  const existing = await pg.query<{ n: number }>("select count(*)::int as n from users where lower(login) = 'admin'");
  const needsAdmin = existing.rows[0]!.n === 0;
  // hash outside the transaction: it takes ~0.1 s of CPU
  const hash = !needsAdmin ? "" : adminPassword === DEFAULT_ADMIN_PASSWORD ? DEFAULT_ADMIN_HASH : await hashPassword(adminPassword);
  await pg.transaction(async (tx) => {
    await tx.query(`insert into orgs (id, name) values (1, $1) on conflict do nothing`, [MAIN_ORG_NAME]);
    await tx.query(`select setval(pg_get_serial_sequence('orgs', 'id'), greatest((select max(id) from orgs), 1))`);
    if (needsAdmin) {
      const user = await tx.query<{ id: number }>(
        `insert into users (uid, login, email, name, password_hash, is_server_admin, current_org_id)
         values ($1, 'admin', 'admin@localhost', '', $2, true, 1) returning id`,
        [newUid(), hash],
      );
      await tx.query(`insert into org_members (org_id, user_id, role) values (1, $1, 'Admin')`, [user.rows[0]!.id]);
    }
  });
  return { createdAdmin: needsAdmin };
}

/** whether the built-in admin user still has the default password */
export async function adminHasDefaultPassword(pg: Sql): Promise<boolean> {
  return isDefaultAdminHash(await adminPasswordHash(pg));
}

async function adminPasswordHash(pg: Sql): Promise<string | null> {
  const r = await pg.query<{ password_hash: string | null }>("select password_hash from users where lower(login) = 'admin'");
  return r.rows[0]?.password_hash ?? null;
}

async function isDefaultAdminHash(hash: string | null): Promise<boolean> {
  if (!hash) return false;
  return hash === DEFAULT_ADMIN_HASH || (await verifyPassword(DEFAULT_ADMIN_PASSWORD, hash));
}

/**
 * adminHasDefaultPassword for every page load (GET /api/frontend/settings):
 * one cheap select per call, and the bcrypt comparison (~0.1 s) only when the
 * stored hash differs from the one last checked, so a password change shows
 * on the next call.
 */
export function defaultPasswordCheck(pg: Sql): () => Promise<boolean> {
  let memo: { hash: string | null; isDefault: Promise<boolean> } | undefined;
  return async () => {
    const hash = await adminPasswordHash(pg);
    let entry = memo;
    if (!entry || entry.hash !== hash) {
      const fresh = { hash, isDefault: isDefaultAdminHash(hash) };
      memo = entry = fresh;
      // a failed check is not remembered: the next call tries again
      fresh.isDefault.catch(() => { if (memo === fresh) memo = undefined; });
    }
    return entry.isDefault;
  };
}
