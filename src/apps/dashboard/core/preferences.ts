// Preferences of a user, a team or an organization (spec "Preferences";
// reference §7.3). Stored as the keys that were set; a full update replaces
// them all, a patch only the keys it names. The effective preferences of a
// user resolve user, then teams, then organization, then the server defaults.
import type { PGlite } from "@electric-sql/pglite";
import { badRequest } from "../../../lib/errors.ts";

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
  get(owner: Owner): Promise<Preferences>;
  /** replace: everything not in `p` returns to its default */
  replace(owner: Owner, p: Preferences): Promise<void>;
  /** patch: only the keys in `p` change */
  patch(owner: Owner, p: Preferences): Promise<void>;
  /** what applies to a user in an organization, teams in ascending id order */
  effective(orgId: number, userId: number, teamIds: readonly number[]): Promise<Preferences & typeof DEFAULT_PREFERENCES>;
}

export function createPreferenceStore(pg: PGlite): PreferenceStore {
  const write = (owner: Owner, p: Preferences) =>
    pg.query(
      `insert into preferences (org_id, user_id, team_id, prefs, updated_at) values ($1, $2, $3, $4, now())
       on conflict (org_id, user_id, team_id) do update set prefs = excluded.prefs, updated_at = now()`,
      [...key(owner), compact(p)],
    );
  const store: PreferenceStore = {
    async get(owner) {
      const r = await pg.query<{ prefs: Preferences }>(
        "select prefs from preferences where org_id = $1 and user_id = $2 and team_id = $3",
        key(owner),
      );
      return r.rows[0]?.prefs ?? {};
    },
    async replace(owner, p) {
      await write(owner, p);
    },
    async patch(owner, p) {
      await write(owner, { ...(await store.get(owner)), ...p });
    },
    async effective(orgId, userId, teamIds) {
      const r = await pg.query<{ user_id: number; team_id: number; prefs: Preferences }>(
        `select user_id, team_id, prefs from preferences
          where org_id = $1 and ((user_id = 0 and team_id = 0) or (user_id = $2 and team_id = 0) or (user_id = 0 and team_id = any($3::int[])))`,
        [orgId, userId, [...teamIds]],
      );
      // organization first, then teams by id, then the user: later layers win
      const rank = (x: { user_id: number; team_id: number }) => (x.user_id ? Infinity : x.team_id);
      const layers = r.rows.sort((a, b) => rank(a) - rank(b)).map((x) => compact(x.prefs));
      return Object.assign({ ...DEFAULT_PREFERENCES }, ...layers);
    },
  };
  return store;
}
