// /api/user/preferences, /api/org/preferences and /api/teams/:id/preferences:
// GET, PUT (replace; omitted keys reset) and PATCH (only the keys sent).
// Update replies are {message} typed text/plain, as the spec says.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { notFound } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Access, type Router } from "../../access/guard.ts";
import type { DashboardAccess } from "../../apis/dashboard-access.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import { parseId } from "../../core/identity/orgs.ts";
import { checkPreferences, compact, type Owner, type PreferenceStore, type Preferences } from "../../core/content/preferences.ts";
import { getTeam } from "../../core/identity/teams.ts";

// keys the real product does not know are dropped, not stored
const PreferencesIn = type({
  "+": "delete",
  "theme?": "string",
  "homeDashboardId?": "0 <= number.integer <= 2147483647",
  "homeDashboardUID?": "string",
  "timezone?": "string",
  "weekStart?": "string",
  "language?": "string",
  "navbar?": { "+": "delete", "bookmarkUrls?": "string[] | null" },
  "queryHistory?": { "+": "delete", "homeTab?": "string" },
});

export interface PreferenceDeps {
  preferences: PreferenceStore;
  dashboards: DashboardAccess;
  identity: IdentityDeps;
}

export function registerPreferences(r: Router, deps: PreferenceDeps): void {
  /** the body as stored preferences: the home dashboard must exist and be readable */
  const parse = async (c: Context): Promise<Preferences> => {
    const body = await parseBody(c, PreferencesIn);
    const { homeDashboardId, navbar, queryHistory, ...rest } = body;
    const p: Preferences = { ...rest };
    if (navbar) p.navbar = { bookmarkUrls: navbar.bookmarkUrls ?? null };
    if (queryHistory) p.queryHistory = { homeTab: queryHistory.homeTab ?? "" };
    checkPreferences(p);
    const ctx = deps.dashboards.context(c);
    if (p.homeDashboardUID) {
      const d = await deps.dashboards.get(ctx, p.homeDashboardUID);
      if (!d || !(await deps.dashboards.canRead(ctx, d))) throw notFound("Dashboard not found");
    } else if (homeDashboardId !== undefined && p.homeDashboardUID === undefined) {
      // deprecated: the numeric id is turned into the uid (0 clears it)
      const d = homeDashboardId ? await deps.dashboards.byId(ctx, homeDashboardId) : undefined;
      if (homeDashboardId && (!d || !(await deps.dashboards.canRead(ctx, d)))) throw notFound("Dashboard not found");
      p.homeDashboardUID = d?.uid ?? "";
    }
    return p;
  };
  /** stored preferences as the API shows them, with the deprecated id beside the uid */
  const show = async (c: Context, p: Preferences) => {
    const out: Record<string, unknown> = { ...compact(p) };
    if (p.homeDashboardUID) {
      const d = await deps.dashboards.get(deps.dashboards.context(c), p.homeDashboardUID);
      if (d) out.homeDashboardId = d.id;
    }
    return out;
  };
  const updated = (c: Context) => c.text(JSON.stringify({ message: "Preferences updated" }), 200, { "Content-Type": "text/plain; charset=utf-8" });

  const homeMissing = "Dashboard not found: the home dashboard named is not there or the caller cannot read it";
  /** the routes of one owner's preferences; `missing`: what a 404 of a write means */
  const family = (path: string, owner: (c: Context) => Promise<Owner>, read: Access, write: Access, missing = homeMissing) => {
    const doc = { body: PreferencesIn, responses: { 404: missing } };
    r.get(path, read, async (c) => c.json(await show(c, await deps.preferences.get(await owner(c)))));
    r.put(path, write, async (c) => {
      const who = await owner(c);
      await deps.preferences.replace(who, await parse(c));
      return updated(c);
    }, doc);
    r.patch(path, write, async (c) => {
      const who = await owner(c);
      await deps.preferences.patch(who, await parse(c));
      return updated(c);
    }, doc);
  };

  const self = { signedIn: true } as const;
  family("/api/user/preferences", async (c) => ({ orgId: identityOf(c).orgId, userId: identityOf(c).user.id }), self, self);
  family(
    "/api/org/preferences",
    async (c) => ({ orgId: identityOf(c).orgId }),
    { action: "orgs.preferences:read" },
    { action: "orgs.preferences:write" },
  );
  const teamScope = (c: Context) => `teams:id:${c.req.param("id")}`;
  family(
    "/api/teams/:id/preferences",
    async (c) => {
      const orgId = identityOf(c).orgId;
      const teamId = parseId(c.req.param("id"), "teamId is invalid");
      await getTeam(deps.identity, orgId, teamId);
      return { orgId, teamId };
    },
    { action: "teams:read", scope: teamScope },
    { action: "teams:write", scope: teamScope },
    `Team not found, or ${homeMissing}`,
  );
}
