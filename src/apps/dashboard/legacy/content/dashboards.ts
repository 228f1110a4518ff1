// /api/dashboards: the legacy dashboard API over the dashboard.svc.app objects:
// save (POST /db with folderUid, message, overwrite and the real product's
// version-mismatch and name-exists answers), get with meta and delete by
// uid, the home dashboard, tags.
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import { dashboardAccessInfo } from "../../apis/kinds/dashboards.ts";
import { CREATED_BY, UPDATED_AT, UPDATED_BY, type KindContext } from "../../apis/kind.ts";
import { canRead, deleteObject } from "../../apis/objects.ts";
import { dashboardUrl, folderUrl } from "../../apis/urls.ts";
import type { StoredObject } from "../../apis/store.ts";
import type { PreferenceStore } from "../../core/content/preferences.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import { HOME_DASHBOARD } from "./home-dashboard.ts";
import { dashboardJson, idOf, kindContext, legacyErrors, loginOf, titleOf, type ContentDeps } from "./content-objects.ts";
import { SaveIn, dashboardErrors, readableDashboard, saveDashboard, savedJson } from "./dashboard-save.ts";

export interface LegacyDashboardDeps extends ContentDeps {
  preferences: PreferenceStore;
}

const NEVER = "0001-01-01T00:00:00Z";

export function registerLegacyDashboards(r: Router, deps: LegacyDashboardDeps): void {
  r.post("/api/dashboards/db", { signedIn: true }, async (c) => {
    const ctx = kindContext(c, deps);
    const body = await parseBody(c, SaveIn);
    return c.json(savedJson(await saveDashboard(ctx, deps, body)));
  }, { body: SaveIn, responses: { 412: "version-mismatch or name-exists (status word in the body)" } });

  r.get("/api/dashboards/home", { signedIn: true }, async (c) => {
    const ctx = kindContext(c, deps);
    const identity = identityOf(c);
    const teams = ((await deps.model.snapshot()).teamsOfUser.get(identity.user.id) ?? []).filter((t) => t.orgId === identity.orgId);
    const prefs = await deps.preferences.effective(identity.orgId, identity.user.id, teams.map((t) => t.teamId).sort((a, b) => a - b));
    if (prefs.homeDashboardUID) {
      const o = await ctx.store.get(ctx.bucket(deps.dashboards.group, deps.dashboards.resource), prefs.homeDashboardUID);
      if (o && (await canRead(deps.dashboards, ctx, o))) return c.json({ redirectUri: dashboardUrl(o.metadata.name, titleOf(o)) });
    }
    const canEdit = hasPermission(identity.permissions, "dashboards:create", undefined);
    return c.json({
      dashboard: HOME_DASHBOARD,
      meta: {
        isHome: true, canSave: false, canEdit, canAdmin: false, canStar: false, canDelete: false,
        slug: "", url: "", expires: NEVER, created: NEVER, updated: NEVER, updatedBy: "", createdBy: "", version: 0,
        hasAcl: false, isFolder: false, folderId: 0, folderUid: "", folderTitle: "General", folderUrl: "",
        provisioned: false, provisionedExternalId: "",
      },
    });
  });

  r.get("/api/dashboards/tags", { signedIn: true }, async (c) => {
    const ctx = kindContext(c, deps);
    const counts = new Map<string, number>();
    for (const o of await ctx.store.list(ctx.bucket(deps.dashboards.group, deps.dashboards.resource))) {
      const tags = Array.isArray(o.spec.tags) ? o.spec.tags : [];
      if (!tags.length || !(await canRead(deps.dashboards, ctx, o))) continue;
      for (const t of new Set(tags)) if (typeof t === "string") counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    return c.json([...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([term, count]) => ({ term, count })));
  });

  r.get("/api/dashboards/uid/:uid", { signedIn: true }, async (c) => {
    const ctx = kindContext(c, deps);
    const o = await readableDashboard(ctx, deps, c.req.param("uid")!);
    return c.json({ dashboard: dashboardJson(o), meta: await meta(ctx, deps, o) });
  });

  r.delete("/api/dashboards/uid/:uid", { signedIn: true }, async (c) => {
    const ctx = kindContext(c, deps);
    const o = await readableDashboard(ctx, deps, c.req.param("uid")!);
    const gone = await legacyErrors(deleteObject(deps.dashboards, ctx, o.metadata.name, new URLSearchParams()), {
      403: dashboardErrors.denied,
      404: dashboardErrors.notFound,
    });
    const title = titleOf(gone);
    return c.json({ title, message: `Dashboard ${title} deleted`, uid: gone.metadata.name, id: idOf(gone) });
  });
}

/** GET /api/dashboards/uid/:uid's meta: what the caller may do, who wrote it when, where it lives */
async function meta(ctx: KindContext, deps: ContentDeps, o: StoredObject) {
  const { folder, ...info } = await dashboardAccessInfo(deps.dashboards, ctx, o);
  return {
    type: "db",
    canSave: info.canSave,
    canEdit: info.canEdit,
    canAdmin: info.canAdmin,
    canStar: info.canStar,
    canDelete: info.canDelete,
    slug: info.slug,
    url: info.url,
    expires: NEVER,
    created: o.metadata.creationTimestamp,
    updated: o.metadata.annotations[UPDATED_AT] ?? o.metadata.creationTimestamp,
    updatedBy: await loginOf(deps.model, o.metadata.annotations[UPDATED_BY]),
    createdBy: await loginOf(deps.model, o.metadata.annotations[CREATED_BY]),
    version: o.metadata.generation,
    hasAcl: false,
    isFolder: false,
    folderId: folder ? idOf(folder) : 0,
    folderUid: folder?.metadata.name ?? "",
    folderTitle: folder ? titleOf(folder) : "General",
    folderUrl: folder ? folderUrl(folder.metadata.name, titleOf(folder)) : "",
    provisioned: false,
    provisionedExternalId: "",
    annotationsPermissions: info.annotationsPermissions,
  };
}
