// Preferences of a user, a team or an organization (spec "Preferences";
// reference §7.3). Stored as the keys that were set; a full update replaces
// them all, a patch only the keys it names. The effective preferences of a
// user resolve user, then teams, then organization, then the server defaults.
import type { Sql } from "../../../../db/sql.ts";
import { badRequest } from "../../../../lib/errors.ts";
import { reloadable, type ReadModelStats } from "../../../../lib/reloadable.ts";

export interface Preferences {
  theme?: string;
  homeDashboardUID?: string;
  timezone?: string;
  weekStart?: string;
  language?: string;
  navbar?: { bookmarkUrls: string[] | null };
  queryHistory?: { homeTab: string };
}

export type Owner = { orgId: number; userId?: number; teamId?: number };

export const THEMES = ["light", "dark", ""];
export const WEEK_STARTS = ["", "saturday", "sunday", "monday"];
const SPECIAL_ZONES = ["", "utc", "browser"];

/** the server defaults, under everything else */
export const DEFAULT_PREFERENCES: Required<Pick<Preferences, "theme" | "timezone" | "weekStart" | "homeDashboardUID">> = {
  theme: "dark",
  timezone: "browser",
  weekStart: "",
  homeDashboardUID: "",
};

let zones: Set<string> | undefined;
/** IANA zones the runtime knows (the spec: any valid IANA timezone), plus utc, browser and "" */
export function isValidTimezone(zone: string): boolean {
  if (SPECIAL_ZONES.includes(zone)) return true;
  zones ??= new Set([...Intl.supportedValuesOf("timeZone"), "UTC", "Etc/UTC"]);
  return zones.has(zone);
}

/** checks the values a caller sent; the keys present are the ones to write */
export function checkPreferences(p: Preferences): void {
  if (p.theme !== undefined && !THEMES.includes(p.theme)) throw badRequest("Invalid theme");
  if (p.timezone !== undefined && !isValidTimezone(p.timezone)) throw badRequest("Invalid timezone");
  if (p.weekStart !== undefined && !WEEK_STARTS.includes(p.weekStart)) throw badRequest("Invalid week start");
}

/** drops empty values: a fresh owner reads as {} (omit-if-empty, reference §7.3) */
export function compact(p: Preferences): Preferences {
  const out: Preferences = {};
  for (const [k, v] of Object.entries(p) as Array<[keyof Preferences, unknown]>) {
    if (v === "" || v === undefined || v === null) continue;
    (out as Record<string, unknown>)[k] = v;
  }
  return out;
}

const key = (o: Owner) => [o.orgId, o.userId ?? 0, o.teamId ?? 0];

export interface PreferenceStore {
  /** another node changed the table: what is held is read again at next use */
  invalidate(): void;
  get(owner: Owner): Promise<Preferences>;
  /** replace: everything not in `p` returns to its default */
  replace(owner: Owner, p: Preferences): Promise<void>;
  /** patch: only the keys in `p` change */
  patch(owner: Owner, p: Preferences): Promise<void>;
  /** what applies to a user in an organization, teams in ascending id order */
  effective(orgId: number, userId: number, teamIds: readonly number[]): Promise<Preferences & typeof DEFAULT_PREFERENCES>;
  /** loads so far (GET /metrics) */
  readonly stats: ReadModelStats;
}

/**
 * Every stored row is held in memory (one per user, team and organization that
 * set something), loaded on first use and written through: reads such as
 * GET /api/user's theme cost no round trip (DESIGN rule 7). This store is the
 * only writer of the table.
 */
export function createPreferenceStore(pg: Sql): PreferenceStore {
  const ownerKey = (o: Owner) => key(o).join(":");
  const rows = reloadable(async () => {
    const r = await pg.query<{ org_id: number; user_id: number; team_id: number; prefs: Preferences }>(
      "select org_id, user_id, team_id, prefs from preferences",
    );
    return new Map(r.rows.map((x) => [ownerKey({ orgId: x.org_id, userId: x.user_id, teamId: x.team_id }), compact(x.prefs)]));
  });
  const write = async (owner: Owner, p: Preferences) => {
    // loaded before the write, so a load cannot overtake it with the old row
    const all = await rows.get();
    const stored = compact(p);
    await pg.query(
      `insert into preferences (org_id, user_id, team_id, prefs, updated_at) values ($1, $2, $3, $4, now())
       on conflict (org_id, user_id, team_id) do update set prefs = excluded.prefs, updated_at = now()`,
      [...key(owner), stored],
    );
    all.set(ownerKey(owner), stored);
  };
  const store: PreferenceStore = {
    async get(owner) {
      return { ...(await rows.get()).get(ownerKey(owner)) };
    },
    async replace(owner, p) {
      await write(owner, p);
    },
    async patch(owner, p) {
      await write(owner, { ...(await store.get(owner)), ...p });
    },
    async effective(orgId, userId, teamIds) {
      const all = await rows.get();
      // organization first, then teams by id, then the user: later layers win
      const layers = [{ orgId }, ...teamIds.map((teamId) => ({ orgId, teamId })), { orgId, userId }];
      return Object.assign({ ...DEFAULT_PREFERENCES }, ...layers.map((o) => all.get(ownerKey(o)) ?? {}));
    },
    stats: rows.stats,
    invalidate: () => rows.invalidate(),
  };
  return store;
}
