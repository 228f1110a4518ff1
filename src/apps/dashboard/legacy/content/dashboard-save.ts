// Saving a dashboard as the legacy API does, and the lookups and errors the
// legacy dashboard routes share (dashboards.ts, dashboard-versions.ts): the
// objects are those /apis serves, saved through the same machinery.
import { type } from "../../../../lib/arktype.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { newUid } from "../../../../lib/ids.ts";
import { FOLDER_ANNOTATION, MESSAGE_ANNOTATION, type KindContext } from "../../apis/kind.ts";
import { canRead, createObject, updateObject } from "../../apis/objects.ts";
import { dashboardUrl, slugify } from "../../apis/urls.ts";
import type { StoredObject } from "../../apis/store.ts";
import { checkLegacyUid, idOf, legacyErrors, objectById, parentOf, titleOf, type ContentDeps } from "./content-objects.ts";

export const SaveIn = type({
  dashboard: "Record<string, unknown>",
  "folderId?": "number.integer",
  "folderUid?": "string",
  "message?": "string",
  "overwrite?": "boolean",
});

/** the real product's dashboard errors (status word in the body where it has one) */
export const dashboardErrors = {
  notFound: () => new ApiError(404, "Dashboard not found"),
  notFoundOnSave: () => new ApiError(404, "Dashboard not found", { body: { status: "not-found" } }),
  versionMismatch: () => new ApiError(412, "The dashboard has been changed by someone else", { body: { status: "version-mismatch" } }),
  nameExists: () => new ApiError(412, "A dashboard with the same name in the folder already exists", { body: { status: "name-exists" } }),
  sameUid: () => new ApiError(400, "A dashboard with the same uid already exists"),
  emptyTitle: () => new ApiError(400, "Dashboard title cannot be empty", { body: { status: "empty-name" } }),
  saveDenied: () => new ApiError(403, "Access denied to save dashboard"),
  denied: () => new ApiError(403, "Access denied to this dashboard"),
  folderNotFound: () => new ApiError(400, "folder not found"),
};

export interface SaveRequest {
  dashboard: Record<string, unknown>;
  folderUid?: string | undefined;
  folderId?: number | undefined;
  message?: string | undefined;
  overwrite?: boolean | undefined;
  /** the version a restore brings back */
  restoredFrom?: number;
}

export const RESTORED_FROM_ANNOTATION = "svc.app/restoredFrom";

/**
 * Saves a dashboard as POST /api/dashboards/db does (and a restore, which is
 * a save of an old version): found by uid or deprecated id, checked against
 * the version it was read at and the titles of its folder, stored as the
 * next version of the same object /apis serves.
 */
export async function saveDashboard(ctx: KindContext, deps: ContentDeps, req: SaveRequest): Promise<StoredObject> {
  const { id: rawId, uid: rawUid, version: rawVersion, ...spec } = req.dashboard;
  const title = typeof spec.title === "string" ? spec.title.trim() : "";
  if (!title) throw dashboardErrors.emptyTitle();
  const uid = typeof rawUid === "string" ? rawUid.trim() : "";
  checkLegacyUid(uid, false);
  const id = typeof rawId === "number" && Number.isInteger(rawId) ? rawId : 0;
  const version = typeof rawVersion === "number" ? rawVersion : 0;
  const overwrite = req.overwrite === true;
  const dashboards = ctx.bucket(deps.dashboards.group, deps.dashboards.resource);

  const folder = await folderOfSave(ctx, deps, req);
  // the uid names the dashboard; the deprecated id only when there is no uid
  const byId = id ? await objectById(ctx, deps.dashboards, id) : undefined;
  if (id && !byId && !uid) throw dashboardErrors.notFoundOnSave();
  const byUid = uid ? await ctx.store.get(dashboards, uid) : undefined;
  if (byId && byUid && byId !== byUid) throw dashboardErrors.sameUid();
  let existing = uid ? byUid : byId;
  if (existing && version !== existing.metadata.generation && !overwrite) throw dashboardErrors.versionMismatch();

  // another dashboard of the same title in the target folder: refused, or taken over with overwrite
  const sameTitle = (await ctx.store.byTitle(dashboards, folder, title)).find((o) => o !== existing);
  if (sameTitle) {
    if (!overwrite) throw dashboardErrors.nameExists();
    existing = sameTitle;
  }

  const annotations: Record<string, string> = { ...(existing?.metadata.annotations ?? {}) };
  delete annotations[MESSAGE_ANNOTATION];
  delete annotations[RESTORED_FROM_ANNOTATION];
  if (folder) annotations[FOLDER_ANNOTATION] = folder;
  else delete annotations[FOLDER_ANNOTATION];
  if (req.message) annotations[MESSAGE_ANNOTATION] = req.message;
  if (req.restoredFrom !== undefined) annotations[RESTORED_FROM_ANNOTATION] = String(req.restoredFrom);
  const stored = { ...spec, title: spec.title };
  const errors = { 403: dashboardErrors.saveDenied, 404: dashboardErrors.notFoundOnSave, 409: dashboardErrors.versionMismatch };
  if (existing) {
    // the version read is checked again in the write queue: of two saves of the same version, the second is a 412
    const resourceVersion = overwrite ? undefined : existing.metadata.resourceVersion;
    const body = { metadata: { name: existing.metadata.name, labels: existing.metadata.labels, annotations, resourceVersion }, spec: stored };
    return legacyErrors(updateObject(deps.dashboards, ctx, existing.metadata.name, body, { alwaysNewVersion: true }), errors);
  }
  const body = { metadata: { name: uid || newUid(), annotations }, spec: stored };
  return legacyErrors(createObject(deps.dashboards, ctx, body), { ...errors, 409: dashboardErrors.sameUid });
}

/** the folder a save names: folderUid, else the deprecated folderId (0: the root); one that does not exist is a 400 */
async function folderOfSave(ctx: KindContext, deps: ContentDeps, req: SaveRequest): Promise<string> {
  const folders = ctx.bucket(deps.folders.group, deps.folders.resource);
  if (req.folderUid) {
    if (!(await ctx.store.get(folders, req.folderUid))) throw dashboardErrors.folderNotFound();
    return req.folderUid;
  }
  if (req.folderId) {
    const f = await objectById(ctx, deps.folders, req.folderId);
    if (!f) throw dashboardErrors.folderNotFound();
    return f.metadata.name;
  }
  return "";
}

/** the answer of a save: what the real product's clients read back */
export function savedJson(o: StoredObject) {
  return {
    id: idOf(o),
    uid: o.metadata.name,
    url: dashboardUrl(o.metadata.name, titleOf(o)),
    status: "success",
    version: o.metadata.generation,
    slug: slugify(titleOf(o)),
    folderUid: parentOf(o),
  };
}

/** the dashboard of the path the caller may read: 404 first, then 403 */
export async function readableDashboard(ctx: KindContext, deps: ContentDeps, uid: string): Promise<StoredObject> {
  const o = await ctx.store.get(ctx.bucket(deps.dashboards.group, deps.dashboards.resource), uid);
  if (!o) throw dashboardErrors.notFound();
  if (!(await canRead(deps.dashboards, ctx, o))) throw dashboardErrors.denied();
  return o;
}

/** the uid of a dashboard named by its deprecated numeric id in the path */
export async function uidOfId(ctx: KindContext, deps: ContentDeps, raw: string): Promise<string> {
  const o = /^\d{1,10}$/.test(raw) ? await objectById(ctx, deps.dashboards, Number(raw)) : undefined;
  if (!o) throw dashboardErrors.notFound();
  return o.metadata.name;
}
