// GET /api/admin/stats: the real product's server-wide counters (its
// AdminStats fields), counted in one database round trip, with the ones
// Outpost has nothing for at 0, plus Outpost's own counts and the size of
// the data dir.
import type { Sql } from "../../../../db/sql.ts";
import { cachedDirectorySize } from "../../../../lib/dir-size.ts";
import type { DiskGuard } from "../../../../lib/disk-guard.ts";

const DAY_MS = 86_400_000;

/** a count of the resources of one kind (the groups of apis/kinds) */
const resources = (group: string, resource: string) =>
  `(select count(*) from resources where api_group = '${group}' and resource = '${resource}')::int`;

/**
 * The real product counts a user once, under their highest organization role
 * (Admin > Editor > anything else, which it counts as Viewer), and calls them
 * active when seen within 30 days; Outpost's "seen" is a sign-in session
 * (see user-lists.ts).
 */
const STATS_SQL = `
with people as (
  select u.id,
         max(case m.role when 'Admin' then 3 when 'Editor' then 2 else 1 end) as best,
         (select max(created_at) from sessions s where s.user_id = u.id) as seen
    from users u join org_members m on m.user_id = u.id
   where not u.is_service_account group by u.id
)
select
  (select count(*) from orgs)::int as orgs,
  (select count(*) from users where not is_service_account)::int as users,
  (select count(*) from people where best = 3)::int as admins,
  (select count(*) from people where best = 2)::int as editors,
  (select count(*) from people where best = 1)::int as viewers,
  (select count(*) from people where seen > $1)::int as "activeUsers",
  (select count(*) from people where seen > $1 and best = 3)::int as "activeAdmins",
  (select count(*) from people where seen > $1 and best = 2)::int as "activeEditors",
  (select count(*) from people where seen > $1 and best = 1)::int as "activeViewers",
  (select count(*) from sessions where expires_at > $3)::int as "activeSessions",
  (select count(*) from people where seen > $2)::int as "dailyActiveUsers",
  (select count(*) from people where seen > $2 and best = 3)::int as "dailyActiveAdmins",
  (select count(*) from people where seen > $2 and best = 2)::int as "dailyActiveEditors",
  (select count(*) from people where seen > $2 and best = 1)::int as "dailyActiveViewers",
  (select count(*) from sessions where created_at > $2 and expires_at > $3)::int as "dailyActiveSessions",
  ${resources("dashboard.svc.app", "dashboards")} as dashboards,
  ${resources("folder.svc.app", "folders")} as folders,
  ${resources("playlist.svc.app", "playlists")} as playlists,
  (select count(distinct t) from resources r,
     jsonb_array_elements_text(case when jsonb_typeof(r.object->'spec'->'tags') = 'array' then r.object->'spec'->'tags' else '[]'::jsonb end) t
    where r.api_group = 'dashboard.svc.app' and r.resource = 'dashboards')::int as tags,
  (select count(*) from data_sources)::int as datasources,
  (select count(*) from stars)::int as stars,
  (select count(*) from alert_rules)::int as alerts,
  (select count(*) from annotations)::int as annotations,
  (select count(*) from library_elements where kind = 1)::int as "libraryPanels",
  (select count(*) from users where is_service_account)::int as "serviceAccounts",
  (select count(*) from api_tokens)::int as "serviceAccountTokens"`;

/** the server-wide counts, in one round trip (GET /api/admin/stats, and the totals of GET /metrics) */
export async function countStats(pg: Sql, now: number): Promise<Record<string, number>> {
  const r = await pg.query<Record<string, number>>(STATS_SQL, [new Date(now - 30 * DAY_MS), new Date(now - DAY_MS), new Date(now)]);
  return r.rows[0]!;
}

export interface AdminStatsDeps {
  pg: Sql;
  /** the data dir; undefined when the database lives in memory */
  dataDir: string | undefined;
  now: () => number;
  /** the data dir's cap: its last measurement */
  disk?: Pick<DiskGuard, "usage" | "refusal"> | undefined;
}

/** the data dir's size is walked at most every 10 s: it may hold thousands of files */
const STORAGE_TTL_MS = 10_000;

export function createAdminStats(deps: AdminStatsDeps): () => Promise<Record<string, unknown>> {
  const dirSize = deps.dataDir === undefined ? async () => 0 : cachedDirectorySize(deps.dataDir, STORAGE_TTL_MS, deps.now);
  return async () => {
    const counts = await countStats(deps.pg, deps.now());
    return {
      ...counts,
      // Outpost has no dashboard snapshots; "active" already means seen within 30 days
      snapshots: 0,
      monthlyActiveUsers: counts.activeUsers,
      storage: { dataDir: deps.dataDir ?? null, bytes: await dirSize(), ...(await serverDatabase(deps.pg)), ...diskFigures(deps.disk) },
    };
  };
}

/** a PostgreSQL server's database is not in the data dir: its own size, and which backend (PGlite's is in bytes above) */
async function serverDatabase(pg: Sql): Promise<Record<string, unknown>> {
  if (pg.backend !== "postgres") return { backend: "pglite" };
  const r = await pg.query<{ bytes: number }>("select pg_database_size(current_database())::int8 as bytes");
  return { backend: "postgres", databaseBytes: r.rows[0]?.bytes ?? 0 };
}

/** the cap, the filesystem's free space and whether pushes are refused, as the disk guard last measured them */
function diskFigures(disk: AdminStatsDeps["disk"]): Record<string, unknown> {
  const u = disk?.usage();
  if (!u) return {};
  return { cap: u.cap ?? null, free: u.free ?? null, filesystemBytes: u.size ?? null, pushesRefused: disk?.refusal() ?? null };
}
