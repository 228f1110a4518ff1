// /api/folders: the legacy folder API over the folder.svc.app objects (list
// with paging and parentUid, get by uid and by id, create, update with
// version/overwrite, move, delete with forceDeleteRules, counts), in the real
// product's shapes and messages.
import type { Context } from "hono";
import { type } from "../../../../lib/arktype.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { positiveInt, queryParams } from "../../../../lib/http/query.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { newUid } from "../../../../lib/ids.ts";
import type { Router } from "../../access/guard.ts";
import { FOLDER_ANNOTATION, type KindContext } from "../../apis/kind.ts";
import { canRead, createObject, deleteObject, updateObject } from "../../apis/objects.ts";
import type { StoredObject } from "../../apis/store.ts";
import { folderCounts, type FolderOptions } from "../../apis/kinds/folders.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import {
  checkLegacyUid, folderDto, folderErrors, idOf, kindContext, legacyErrors, objectById, parentOf, titleOf, type ContentDeps,
} from "./content-objects.ts";

const FolderIn = type({
  "uid?": "string",
  title: "string",
  "description?": "string",
  "parentUid?": "string",
});

const FolderUpdateIn = type({
  "uid?": "string",
  "title?": "string",
  "description?": "string",
  "version?": "number.integer",
  "overwrite?": "boolean",
});

const MoveIn = type({ "parentUid?": "string" });

const COLLATOR = new Intl.Collator("en", { sensitivity: "base" });

export interface LegacyFolderDeps extends ContentDeps {
  nested: boolean;
  /** the stores whose objects a folder's counts include */
  counting: Pick<FolderOptions, "alertRules" | "libraryElements">;
}

export function registerLegacyFolders(r: Router, deps: LegacyFolderDeps): void {
  const bucket = (ctx: KindContext) => ctx.bucket(deps.folders.group, deps.folders.resource);
  const all = (ctx: KindContext) => ctx.store.list(bucket(ctx));

  /** the folder of the path, readable by the caller (404 first, then 403, as the real product) */
  const readable = async (c: Context, ctx: KindContext): Promise<StoredObject> => {
    const o = await ctx.store.get(bucket(ctx), c.req.param("uid")!);
    if (!o) throw folderErrors.notFound();
    if (!(await canRead(deps.folders, ctx, o))) throw folderErrors.denied();
    return o;
  };
  const show = (ctx: KindContext, o: StoredObject) => folderDto(ctx, deps, o, deps.nested);
  /** the organization's folders by title, sorted once per change of the bucket (not on every list) */
  const sorted = new Map<string, { revision: number; folders: StoredObject[] }>();
  const byTitle = async (ctx: KindContext) => {
    const revision = await ctx.store.revision(bucket(ctx));
    const known = sorted.get(ctx.namespace);
    if (known?.revision === revision) return known.folders;
    const folders = (await all(ctx)).sort((a, b) => COLLATOR.compare(titleOf(a), titleOf(b)) || (a.metadata.name < b.metadata.name ? -1 : 1));
    sorted.set(ctx.namespace, { revision, folders });
    return folders;
  };
  const machineryErrors = { 404: folderErrors.notFound, 409: folderErrors.exists, 412: folderErrors.versionMismatch, 403: folderErrors.denied };

  r.get("/api/folders", { action: "folders:read" }, async (c) => {
    const ctx = kindContext(c, deps);
    const params = queryParams(c);
    const limit = positiveInt(params.one("limit"), 1000);
    const page = positiveInt(params.one("page"), 1);
    const parent = deps.nested ? params.one("parentUid") ?? "" : undefined;
    if (parent && !(await ctx.store.get(bucket(ctx), parent))) throw folderErrors.notFound();
    const folders = (await byTitle(ctx)).filter((o) => parent === undefined || parentOf(o) === parent);
    const hits: Record<string, unknown>[] = [];
    const skip = (page - 1) * limit;
    let seen = 0;
    for (const o of folders) {
      if (!(await canRead(deps.folders, ctx, o))) continue;
      if (seen++ < skip) continue;
      hits.push({ id: idOf(o), uid: o.metadata.name, title: titleOf(o), ...(parentOf(o) ? { parentUid: parentOf(o) } : {}) });
      if (hits.length >= limit) break;
    }
    return c.json(hits);
  });

  r.get("/api/folders/id/:id", { action: "folders:read" }, async (c) => {
    const ctx = kindContext(c, deps);
    const raw = c.req.param("id")!;
    const o = /^\d{1,10}$/.test(raw) ? await objectById(ctx, deps.folders, Number(raw)) : undefined;
    if (!o) throw folderErrors.notFound();
    if (!(await canRead(deps.folders, ctx, o))) throw folderErrors.denied();
    return c.json(await show(ctx, o));
  });

  r.get("/api/folders/:uid", { action: "folders:read" }, async (c) => {
    const ctx = kindContext(c, deps);
    return c.json(await show(ctx, await readable(c, ctx)));
  });

  r.get("/api/folders/:uid/counts", { action: "folders:read" }, async (c) => {
    const ctx = kindContext(c, deps);
    const o = await readable(c, ctx);
    return c.json(await folderCounts(ctx, deps.counting, o.metadata.name));
  });

  r.post("/api/folders", { action: "folders:create" }, async (c) => {
    const ctx = kindContext(c, deps);
    const body = await parseBody(c, FolderIn);
    const uid = body.uid?.trim() || newUid();
    checkLegacyUid(uid, true);
    const title = body.title.trim();
    if (!title) throw new ApiError(400, "folder title cannot be empty");
    const parent = deps.nested ? body.parentUid ?? "" : "";
    // the right to create there first: what a parent holds is not told to who may not create in it
    const target = await deps.folders.createScopes(ctx, uid, parent || undefined);
    if (!hasPermission(ctx.identity.permissions, deps.folders.actions.create, target)) throw folderErrors.denied();
    if (parent && !(await ctx.store.get(bucket(ctx), parent))) throw folderErrors.notFound();
    if (title.toLowerCase() === "general" || (await ctx.store.byTitle(bucket(ctx), parent, title)).length > 0) {
      throw new ApiError(400, "a folder with that name already exists");
    }
    const object = {
      metadata: { name: uid, annotations: parent ? { [FOLDER_ANNOTATION]: parent } : {} },
      spec: { title, ...(body.description !== undefined ? { description: body.description } : {}) },
    };
    const created = await legacyErrors(createObject(deps.folders, ctx, object), machineryErrors);
    return c.json(await show(ctx, created));
  }, { body: FolderIn, responses: { 409: "a folder with this uid exists" } });

  r.put("/api/folders/:uid", { action: "folders:write" }, async (c) => {
    const ctx = kindContext(c, deps);
    const current = await readable(c, ctx);
    const body = await parseBody(c, FolderUpdateIn);
    if (body.uid && body.uid !== current.metadata.name) throw new ApiError(400, "the uid of a folder cannot be changed");
    if (!body.overwrite && (body.version ?? 0) !== current.metadata.generation) throw folderErrors.versionMismatch();
    const title = body.title === undefined ? titleOf(current) : body.title.trim();
    if (!title) throw new ApiError(400, "folder title cannot be empty");
    const parent = parentOf(current);
    if (title !== titleOf(current) && (await ctx.store.byTitle(bucket(ctx), parent, title)).some((f) => f !== current)) {
      throw new ApiError(400, "a folder with that name already exists");
    }
    const spec = { ...current.spec, title, ...(body.description !== undefined ? { description: body.description } : {}) };
    const next = { metadata: { ...current.metadata, resourceVersion: body.overwrite ? undefined : current.metadata.resourceVersion }, spec };
    const updated = await legacyErrors(updateObject(deps.folders, ctx, current.metadata.name, next), machineryErrors);
    return c.json(await show(ctx, updated));
  }, { body: FolderUpdateIn, responses: { 412: "version-mismatch: the folder changed since the version sent" } });

  r.post("/api/folders/:uid/move", { action: "folders:write" }, async (c) => {
    const ctx = kindContext(c, deps);
    const current = await readable(c, ctx);
    const { parentUid = "" } = await parseBody(c, MoveIn);
    if (!deps.nested) throw new ApiError(400, "nested folders are disabled");
    if (parentUid && !(await ctx.store.get(bucket(ctx), parentUid))) throw folderErrors.notFound();
    const target = await deps.folders.createScopes(ctx, current.metadata.name, parentUid || undefined);
    if (!hasPermission(ctx.identity.permissions, deps.folders.actions.create, target)) {
      throw new ApiError(403, `user does not have permissions to move a folder to folder with UID ${parentUid || "general"}`);
    }
    const annotations = { ...current.metadata.annotations };
    if (parentUid) annotations[FOLDER_ANNOTATION] = parentUid;
    else delete annotations[FOLDER_ANNOTATION];
    const next = { metadata: { ...current.metadata, annotations }, spec: current.spec };
    const moved = await legacyErrors(updateObject(deps.folders, ctx, current.metadata.name, next), machineryErrors);
    return c.json(await show(ctx, moved));
  }, { body: MoveIn });

  r.delete("/api/folders/:uid", { action: "folders:delete" }, async (c) => {
    const ctx = kindContext(c, deps);
    const current = await readable(c, ctx);
    const query = new URLSearchParams();
    query.set("forceDeleteRules", queryParams(c).one("forceDeleteRules") === "true" ? "true" : "false");
    const gone = await legacyErrors(deleteObject(deps.folders, ctx, current.metadata.name, query), machineryErrors);
    return c.json({ title: titleOf(gone), message: `Folder ${titleOf(gone)} deleted`, id: idOf(gone), uid: gone.metadata.name });
  }, { responses: { 400: "the folder holds alert rules and forceDeleteRules is not true" } });
}
