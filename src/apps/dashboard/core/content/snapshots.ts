// Dashboard snapshots (the real product's /api/snapshots): a dashboard's JSON,
// with the data its panels showed, stored under an unguessable key that is
// the capability to read it, and a second key that deletes it. No external
// snapshot server: an air-gapped site has none to send them to.
import type { Sql } from "../../../../db/sql.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import { isUniqueViolation } from "../../../../db/errors.ts";

export interface Snapshot {
  id: number;
  orgId: number;
  userId: number;
  key: string;
  deleteKey: string;
  name: string;
  dashboard: Record<string, unknown>;
  expires: Date | null;
  created: Date;
  updated: Date;
}

export interface SnapshotInput {
  dashboard: Record<string, unknown>;
  name?: string | undefined;
  /** seconds; 0 or absent: never */
  expires?: number | undefined;
  key?: string | undefined;
  deleteKey?: string | undefined;
}

export interface SnapshotStore {
  create(orgId: number, userId: number, input: SnapshotInput, now: Date): Promise<Snapshot>;
  /** by key, unless expired at `now` (any, without it) */
  byKey(key: string, now?: Date): Promise<Snapshot | undefined>;
  byDeleteKey(deleteKey: string): Promise<Snapshot | undefined>;
  /** an organization's snapshots (only `userId`'s when given), newest first */
  list(orgId: number, userId: number | undefined, query: string, limit: number, now: Date): Promise<Snapshot[]>;
  delete(id: number): Promise<void>;
}

const KEY = /^[A-Za-z0-9_-]{1,64}$/;
/** a hundred years: past it a date is out of the database's range long before it matters */
const MAX_EXPIRES_S = 100 * 365 * 24 * 3600;

interface Row {
  id: number;
  org_id: number;
  user_id: number;
  key: string;
  delete_key: string;
  name: string;
  dashboard: Record<string, unknown>;
  expires_at: string | null;
  created_at: string;
  updated_at: string;
}

const toSnapshot = (r: Row): Snapshot => ({
  id: Number(r.id),
  orgId: Number(r.org_id),
  userId: Number(r.user_id),
  key: r.key,
  deleteKey: r.delete_key,
  name: r.name,
  dashboard: r.dashboard,
  expires: r.expires_at ? new Date(r.expires_at) : null,
  created: new Date(r.created_at),
  updated: new Date(r.updated_at),
});

export function createSnapshotStore(pg: Sql): SnapshotStore {
  return {
    async create(orgId, userId, input, now) {
      for (const [field, value] of [["key", input.key], ["deleteKey", input.deleteKey]] as const) {
        if (value !== undefined && value !== "" && !KEY.test(value)) {
          throw new ApiError(400, `${field} must be 1 to 64 letters, digits, '-' or '_'`);
        }
      }
      if (input.expires !== undefined && (!Number.isInteger(input.expires) || input.expires < 0 || input.expires > MAX_EXPIRES_S)) {
        throw new ApiError(400, `expires must be a whole number of seconds up to ${MAX_EXPIRES_S} (100 years), 0 for never`);
      }
      const name = input.name || String(input.dashboard.title ?? "");
      const expires = input.expires ? new Date(now.getTime() + input.expires * 1000) : null;
      const r = await pg
        .query<Row>(
          `insert into dashboard_snapshots (org_id, user_id, key, delete_key, name, dashboard, expires_at, created_at, updated_at)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $8) returning *`,
          [orgId, userId, input.key || newUid(32), input.deleteKey || newUid(32), name, input.dashboard, expires, now],
        )
        .catch((err: unknown) => {
          if (isUniqueViolation(err, "dashboard_snapshots_key_key") || isUniqueViolation(err, "dashboard_snapshots_delete_key_key")) {
            throw new ApiError(409, "a snapshot with this key already exists");
          }
          throw err;
        });
      return toSnapshot(r.rows[0]!);
    },
    async byKey(key, now) {
      const r = await pg.query<Row>(
        "select * from dashboard_snapshots where key = $1 and ($2::timestamptz is null or expires_at is null or expires_at > $2)",
        [key, now ?? null],
      );
      return r.rows[0] ? toSnapshot(r.rows[0]) : undefined;
    },
    async byDeleteKey(deleteKey) {
      const r = await pg.query<Row>("select * from dashboard_snapshots where delete_key = $1", [deleteKey]);
      return r.rows[0] ? toSnapshot(r.rows[0]) : undefined;
    },
    async list(orgId, userId, query, limit, now) {
      const r = await pg.query<Row>(
        `select id, org_id, user_id, key, delete_key, name, '{}'::jsonb as dashboard, expires_at, created_at, updated_at
           from dashboard_snapshots
          where org_id = $1 and ($2::int is null or user_id = $2) and (expires_at is null or expires_at > $3)
            and ($4 = '' or strpos(lower(name), lower($4)) > 0)
          order by created_at desc, id desc limit $5`,
        [orgId, userId ?? null, now, query, limit],
      );
      return r.rows.map(toSnapshot);
    },
    async delete(id) {
      await pg.query("delete from dashboard_snapshots where id = $1", [id]);
    },
  };
}
