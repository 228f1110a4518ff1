// Stars: one user's bookmarks, shared by the collections API and the legacy
// /api/user/stars endpoints. Kept in memory per user once read, since search
// marks every hit with isStarred.
import type { Sql } from "../../../../db/sql.ts";

export interface StarRef {
  group: string;
  kind: string;
  name: string;
}

export interface StarStore {
  /** another node changed the table: what is held is read again at next use */
  invalidate(): void;
  add(userId: number, orgId: number, ref: StarRef): Promise<void>;
  /** false when nothing was starred */
  remove(userId: number, orgId: number, ref: StarRef): Promise<boolean>;
  list(userId: number, orgId: number): Promise<readonly StarRef[]>;
  /** every user's stars of objects that were deleted */
  forget(orgId: number, group: string, kind: string, names: string[]): Promise<void>;
}

export function createStarStore(pg: Sql): StarStore {
  const cache = new Map<string, Promise<StarRef[]>>();
  const key = (userId: number, orgId: number) => `${userId}:${orgId}`;
  return {
    invalidate: () => cache.clear(),
    async add(userId, orgId, ref) {
      cache.delete(key(userId, orgId));
      await pg.query(
        "insert into stars (user_id, org_id, api_group, kind, name) values ($1, $2, $3, $4, $5) on conflict do nothing",
        [userId, orgId, ref.group, ref.kind, ref.name],
      );
      cache.delete(key(userId, orgId));
    },
    async remove(userId, orgId, ref) {
      cache.delete(key(userId, orgId));
      const r = await pg.query(
        "delete from stars where user_id = $1 and org_id = $2 and api_group = $3 and kind = $4 and name = $5",
        [userId, orgId, ref.group, ref.kind, ref.name],
      );
      cache.delete(key(userId, orgId));
      return (r.affectedRows ?? 0) > 0;
    },
    async forget(orgId, group, kind, names) {
      if (!names.length) return;
      await pg.query("delete from stars where org_id = $1 and api_group = $2 and kind = $3 and name = any($4::text[])", [orgId, group, kind, names]);
      cache.clear();
    },
    list(userId, orgId) {
      const k = key(userId, orgId);
      let hit = cache.get(k);
      if (!hit) {
        hit = pg
          .query<{ api_group: string; kind: string; name: string }>(
            "select api_group, kind, name from stars where user_id = $1 and org_id = $2 order by created_at, name",
            [userId, orgId],
          )
          .then((r) => r.rows.map((s) => ({ group: s.api_group, kind: s.kind, name: s.name })));
        hit.catch(() => cache.delete(k));
        if (cache.size > 10_000) cache.clear();
        cache.set(k, hit);
      }
      return hit;
    },
  };
}
