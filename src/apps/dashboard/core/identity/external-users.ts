// What the external sign-ins (LDAP, OAuth) write alike when they create or
// update a user in a transaction: an organization role, and a current
// organization that stays one the user belongs to.
import type { SqlTx } from "../../../../db/sql.ts";
import type { OrgRole } from "./basic-roles.ts";

/** the user's role in the organization, added or changed */
export async function setOrgRole(tx: SqlTx, orgId: number, userId: number, role: OrgRole): Promise<void> {
  await tx.query(
    `insert into org_members (org_id, user_id, role) values ($1, $2, $3)
     on conflict (org_id, user_id) do update set role = excluded.role, updated_at = now() where org_members.role <> excluded.role`,
    [orgId, userId, role],
  );
}

/** the current organization stays one the user belongs to */
export async function keepCurrentOrg(tx: SqlTx, userId: number): Promise<void> {
  await tx.query(
    `update users set current_org_id = (select min(org_id) from org_members where user_id = $1)
      where id = $1 and (current_org_id is null or current_org_id not in (select org_id from org_members where user_id = $1))`,
    [userId],
  );
}
