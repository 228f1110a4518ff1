// Stars: one user's bookmarks, shared by the collections API and the legacy
// /api/user/stars endpoints.
import type { PGlite } from "@electric-sql/pglite";

export interface StarRef {
  group: string;
  kind: string;
  name: string;
}

export async function addStar(pg: PGlite, userId: number, orgId: number, ref: StarRef): Promise<void> {
  await pg.query(
    "insert into stars (user_id, org_id, api_group, kind, name) values ($1, $2, $3, $4, $5) on conflict do nothing",
    [userId, orgId, ref.group, ref.kind, ref.name],
  );
}

/** false when nothing was starred */
export async function removeStar(pg: PGlite, userId: number, orgId: number, ref: StarRef): Promise<boolean> {
  const r = await pg.query(
    "delete from stars where user_id = $1 and org_id = $2 and api_group = $3 and kind = $4 and name = $5",
    [userId, orgId, ref.group, ref.kind, ref.name],
  );
  return (r.affectedRows ?? 0) > 0;
}

export async function listStars(pg: PGlite, userId: number, orgId: number): Promise<StarRef[]> {
  const r = await pg.query<{ api_group: string; kind: string; name: string }>(
    "select api_group, kind, name from stars where user_id = $1 and org_id = $2 order by created_at, name",
    [userId, orgId],
  );
  return r.rows.map((s) => ({ group: s.api_group, kind: s.kind, name: s.name }));
}
