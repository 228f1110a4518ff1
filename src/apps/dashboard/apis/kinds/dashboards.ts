// Dashboards (dashboard.svc.app): spec is the dashboard JSON. The listed
// top-level fields are type-checked when present, unknown ones are kept;
// spec.version follows metadata.generation.
import { type } from "../../../../lib/arktype.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import { toResponse } from "../envelope.ts";
import type { DashboardDependents } from "../../core/content/dashboard-dependents.ts";
import { CREATED_BY, FOLDER_ANNOTATION, INTERNAL_ID_LABEL, UPDATED_AT, UPDATED_BY, statusErrors, type KindContext, type KindDescriptor } from "../kind.ts";
import { dashboardUrl, folderUrl, slugify } from "../urls.ts";
import type { StoredObject } from "../store.ts";
import { checkSpec, checkTitle } from "../spec-check.ts";
import { NAME_LIMITS } from "../../core/identity/name-limits.ts";
import type { ResourcePermissions } from "../../core/identity/resource-permissions.ts";

/** what the folder and dashboard kinds do with managed permissions */
export type ManagedPermissionHooks = Pick<ResourcePermissions, "addDefaults" | "forget">;

const DashboardSpec = type({
  title: "string",
  "annotations?": { "list?": "unknown[]" },
  "editable?": "boolean",
  "fiscalYearStartMonth?": "number",
  "graphTooltip?": "number",
  "links?": "unknown[]",
  "panels?": "unknown[]",
  "preload?": "boolean",
  "schemaVersion?": "number",
  "tags?": "string[]",
  "templating?": { "list?": "unknown[]" },
  "time?": { "from?": "string", "to?": "string" },
  "timepicker?": "object",
  "timezone?": "string",
  "version?": "number",
});

const folderScopes = (chain: string[]) => chain.map((f) => `folders:uid:${f}`);

export interface DashboardKindOptions {
  /** library panel connections and annotations that follow each dashboard */
  dependents?: DashboardDependents;
  /** managed permissions: a new dashboard's defaults, dropped with it */
  permissions?: ManagedPermissionHooks;
}

const idOf = (o: StoredObject) => Number(o.metadata.labels[INTERNAL_ID_LABEL] ?? 0);

export function dashboardKind(options: DashboardKindOptions = {}): KindDescriptor {
  const d: KindDescriptor = {
    group: "dashboard.svc.app",
    resource: "dashboards",
    kind: "Dashboard",
    versions: [
      { name: "v1", stable: true, defaultOn: true },
      { name: "v1beta1", stable: false, defaultOn: false },
      { name: "v0alpha1", stable: false, defaultOn: false },
    ],
    specSchema: DashboardSpec,
    maxNameLength: 40,
    inFolders: true,
    staleStatus: 409,
    actions: { read: "dashboards:read", create: "dashboards:create", write: "dashboards:write", delete: "dashboards:delete" },
    validateSpec(spec, name) {
      checkSpec(d, DashboardSpec, spec, name);
      const s = { ...(spec as Record<string, unknown>) };
      checkTitle(d, name, String(s.title), "dashboard", NAME_LIMITS.dashboardTitle);
      return s;
    },
    async scopes(ctx, name, folder) {
      return [`dashboards:uid:${name}`, ...folderScopes(await ctx.folderChain(folder))];
    },
    async createScopes(ctx, _name, folder) {
      return folder ? folderScopes(await ctx.folderChain(folder)) : ["folders:uid:general"];
    },
    async beforeWrite(_ctx, next) {
      next.spec = { ...next.spec, version: next.metadata.generation };
    },
    async afterWrite(ctx, o, previous) {
      if (!previous) await options.permissions?.addDefaults(ctx.orgId, "dashboards", o.metadata.name, ctx.identity.user.id, !o.metadata.annotations[FOLDER_ANNOTATION]);
      const dashboard = { uid: o.metadata.name, id: idOf(o), spec: o.spec };
      await options.dependents?.saved(ctx.orgId, dashboard, ctx.identity.user.id, new Date(ctx.now()));
    },
    async afterDelete(ctx, o) {
      await options.dependents?.deleted(ctx.orgId, [o.metadata.name]);
      await options.permissions?.forget(ctx.orgId, "dashboards", [o.metadata.name]);
    },
    subresources: {
      dto: (ctx, object, version) => dto(d, ctx, object, version),
    },
  };
  return d;
}

/**
 * What the caller may do with a dashboard and the folder it lives in: the
 * /dto subresource and the legacy GET /api/dashboards/uid/:uid meta share it.
 */
export async function dashboardAccessInfo(d: KindDescriptor, ctx: KindContext, o: StoredObject) {
  const folderName = o.metadata.annotations[FOLDER_ANNOTATION];
  const scopes = await d.scopes(ctx, o.metadata.name, folderName);
  const may = (action: string, s: string[] = scopes) => hasPermission(ctx.identity.permissions, action, s);
  const folder = folderName ? await ctx.store.get(ctx.bucket("folder.svc.app", "folders"), folderName) : undefined;
  const annotations = (type: string) => ({
    canAdd: may("annotations:create", [`annotations:type:${type}`]),
    canEdit: may("annotations:write", [`annotations:type:${type}`]),
    canDelete: may("annotations:delete", [`annotations:type:${type}`]),
  });
  const title = String(o.spec.title ?? "");
  return {
    slug: slugify(title),
    url: dashboardUrl(o.metadata.name, title),
    canSave: may("dashboards:write"),
    canEdit: may("dashboards:write"),
    canAdmin: may("dashboards.permissions:write"),
    canStar: ctx.identity.kind === "user",
    canDelete: may("dashboards:delete"),
    annotationsPermissions: { dashboard: annotations("dashboard"), organization: annotations("organization") },
    folder,
  };
}

/** GET <dashboard>/dto: the object plus what the caller may do with it (the real product's DTO) */
async function dto(d: KindDescriptor, ctx: KindContext, o: StoredObject, version: string) {
  const { folder, ...info } = await dashboardAccessInfo(d, ctx, o);
  return {
    ...toResponse(d, version, o),
    kind: "DashboardWithAccessInfo",
    access: {
      slug: info.slug,
      url: info.url,
      isPublic: false,
      canSave: info.canSave,
      canEdit: info.canEdit,
      canAdmin: info.canAdmin,
      canStar: info.canStar,
      canDelete: info.canDelete,
      annotationsPermissions: info.annotationsPermissions,
      created: o.metadata.creationTimestamp,
      createdBy: o.metadata.annotations[CREATED_BY],
      updated: o.metadata.annotations[UPDATED_AT],
      updatedBy: o.metadata.annotations[UPDATED_BY],
      version: o.metadata.generation,
      folderUid: folder?.metadata.name ?? "",
      folderTitle: folder ? String(folder.spec.title ?? "") : "",
      folderUrl: folder ? folderUrl(folder.metadata.name, String(folder.spec.title ?? "")) : "",
    },
  };
}
