// /api/library-elements: library panels in folders, their versions and the
// dashboards connected to them (spec "Library elements"; reference §5).
// Access follows the element's folder: library.panels:<verb> on
// folders:uid:<folder> (root: folders:uid:general) or library.panels:uid:<uid>.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { badRequest } from "../../../../lib/errors.ts";
import { positiveInt } from "../../../../lib/http/query.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { accessDenied, identityOf, type Router } from "../../access/guard.ts";
import type { DashboardAccess } from "../../apis/dashboard-access.ts";
import { INTERNAL_ID_LABEL, type KindContext } from "../../apis/kind.ts";
import type { ResourceStore } from "../../apis/store.ts";
import type { AccessModel, Snapshot } from "../../core/identity/access-model.ts";
import {
  checkKind, checkUid, notFoundError, type ElementInput, type LibraryElement, type LibraryElementStore,
} from "../../core/content/library-elements.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import { avatarUrl } from "../../core/identity/users.ts";
import { jsonObject } from "../schemas.ts";

const model = jsonObject;
const NewElement = type({
  "folderId?": "0 <= number.integer <= 2147483647",
  "folderUid?": "string",
  "name?": "string <= 150",
  model,
  kind: "number.integer",
  "uid?": "string",
});
const Patch = type({
  "folderId?": "0 <= number.integer <= 2147483647",
  "folderUid?": "string",
  "name?": "string <= 150",
  "model?": model,
  "kind?": "number.integer",
  version: "0 <= number.integer <= 2147483647",
  "uid?": "string",
});

const ROOT = "general";
const ROOT_NAME = "General";

export interface LibraryElementDeps {
  elements: LibraryElementStore;
  dashboards: DashboardAccess;
  store: ResourceStore;
  model: AccessModel;
  now: () => number;
}

/** comma-separated values of a query parameter */
const list = (raw: string | undefined) => (raw ?? "").split(",").map((s) => s.trim()).filter(Boolean);

export function registerLibraryElements(r: Router, deps: LibraryElementDeps): void {
  const folders = (ctx: KindContext) => ctx.bucket("folder.svc.app", "folders");

  /** the scopes an element in `folderUid` is reached through */
  const scopes = async (ctx: KindContext, folderUid: string, uid?: string) => {
    const chain = folderUid ? await ctx.folderChain(folderUid) : [ROOT];
    return [...(uid ? [`library.panels:uid:${uid}`] : []), ...chain.map((f) => `folders:uid:${f}`)];
  };
  const may = async (ctx: KindContext, action: string, folderUid: string, uid?: string) =>
    hasPermission(ctx.identity.permissions, action, await scopes(ctx, folderUid, uid));
  const require = async (ctx: KindContext, action: string, folderUid: string, uid?: string) => {
    if (!(await may(ctx, action, folderUid, uid))) throw accessDenied(action);
  };

  /** "" for the root; a folder named by uid or deprecated id must exist */
  const folderOf = async (ctx: KindContext, folderUid: string | undefined, folderId: number | undefined, fallback: string) => {
    if (folderUid !== undefined) {
      if (folderUid === "" || folderUid === ROOT) return "";
      if (!(await deps.store.get(folders(ctx), folderUid))) throw badRequest("folder not found");
      return folderUid;
    }
    if (folderId === undefined) return fallback;
    if (folderId === 0) return "";
    const f = (await deps.store.list(folders(ctx))).find((x) => x.metadata.labels[INTERNAL_ID_LABEL] === String(folderId));
    if (!f) throw badRequest("folder not found");
    return f.metadata.name;
  };

  const userRef = (snap: Snapshot, id: number) => {
    const u = snap.users.get(id);
    return { id, name: u?.login ?? "", avatarUrl: avatarUrl(u?.email ?? "") };
  };
  const dto = async (ctx: KindContext, e: LibraryElement) => {
    const snap = await deps.model.snapshot();
    const folder = e.folderUid ? await deps.store.get(folders(ctx), e.folderUid) : undefined;
    return {
      id: e.id,
      orgId: e.orgId,
      folderId: Number(folder?.metadata.labels[INTERNAL_ID_LABEL] ?? 0),
      folderUid: e.folderUid,
      uid: e.uid,
      name: e.name,
      kind: e.kind,
      type: e.type,
      description: e.description,
      model: e.model,
      version: e.version,
      meta: {
        folderName: folder ? String(folder.spec.title ?? "") : ROOT_NAME,
        folderUid: e.folderUid,
        connectedDashboards: e.connectedDashboards,
        created: e.created.toISOString(),
        updated: e.updated.toISOString(),
        createdBy: userRef(snap, e.createdBy),
        updatedBy: userRef(snap, e.updatedBy),
      },
    };
  };
  /** an element the caller may read; one they may not is reported as missing */
  const readable = async (c: Context) => {
    const ctx = deps.dashboards.context(c);
    const e = await deps.elements.get(ctx.orgId, c.req.param("uid")!);
    if (!(await may(ctx, "library.panels:read", e.folderUid, e.uid))) throw notFoundError();
    return { ctx, e };
  };

  r.get("/api/library-elements", { action: "library.panels:read" }, async (c) => {
    const ctx = deps.dashboards.context(c);
    const q = (name: string) => c.req.query(name);
    if (q("folderFilter") && q("folderFilterUIDs")) throw badRequest("cannot pass both folderFilter and folderFilterUIDs");
    const kind = q("kind") ? Number(q("kind")) : undefined;
    const types = list(q("typeFilter"));
    const exclude = q("excludeUid");
    let folderFilter: Set<string> | undefined;
    if (q("folderFilterUIDs")) folderFilter = new Set(list(q("folderFilterUIDs")).map((f) => (f === ROOT ? "" : f)));
    else if (q("folderFilter")) {
      const ids = new Set(list(q("folderFilter")));
      const all = await deps.store.list(folders(ctx));
      folderFilter = new Set([
        ...(ids.has("0") ? [""] : []),
        ...all.filter((f) => ids.has(f.metadata.labels[INTERNAL_ID_LABEL] ?? "")).map((f) => f.metadata.name),
      ]);
    }
    const search = (q("searchString") ?? "").toLowerCase();
    const matches: LibraryElement[] = [];
    for (const e of await deps.elements.list(ctx.orgId)) {
      if (kind !== undefined && e.kind !== kind) continue;
      if (types.length && !types.includes(e.type)) continue;
      if (exclude && e.uid === exclude) continue;
      if (folderFilter && !folderFilter.has(e.folderUid)) continue;
      if (search && !e.name.toLowerCase().includes(search) && !e.description.toLowerCase().includes(search)) {
        // without a folder filter, an element also matches through its folder's title
        const title = !folderFilter && e.folderUid ? await deps.dashboards.folderTitle(ctx, e.folderUid) : undefined;
        if (!title?.toLowerCase().includes(search)) continue;
      }
      if (await may(ctx, "library.panels:read", e.folderUid, e.uid)) matches.push(e);
    }
    if (q("sortDirection") === "alpha-desc") matches.reverse();
    const perPage = positiveInt(q("perPage"), 100);
    const page = positiveInt(q("page"), 1);
    const elements = await Promise.all(matches.slice((page - 1) * perPage, page * perPage).map((e) => dto(ctx, e)));
    return c.json({ result: { totalCount: matches.length, page, perPage, elements } });
  });

  r.get("/api/library-elements/name/:name", { action: "library.panels:read" }, async (c) => {
    const ctx = deps.dashboards.context(c);
    const name = c.req.param("name")!;
    const found: LibraryElement[] = [];
    for (const e of await deps.elements.list(ctx.orgId)) {
      if (e.name === name && (await may(ctx, "library.panels:read", e.folderUid, e.uid))) found.push(e);
    }
    if (!found.length) throw notFoundError();
    return c.json({ result: await Promise.all(found.map((e) => dto(ctx, e))) });
  });

  r.get("/api/library-elements/:uid", { action: "library.panels:read" }, async (c) => {
    const { ctx, e } = await readable(c);
    return c.json({ result: await dto(ctx, e) });
  });

  const connections = async (c: Context) => {
    const { ctx, e } = await readable(c);
    const snap = await deps.model.snapshot();
    const rows = await deps.elements.connections(ctx.orgId, e.id);
    return c.json({
      result: rows.map((x) => ({
        id: x.id,
        kind: e.kind,
        elementId: e.id,
        connectionId: x.dashboardId,
        connectionUid: x.dashboardUid,
        created: x.created.toISOString(),
        createdBy: userRef(snap, x.createdBy),
      })),
    });
  };
  r.get("/api/library-elements/:uid/connections", { action: "library.panels:read" }, connections);

  r.post("/api/library-elements", { action: "library.panels:create" }, async (c) => {
    const body = await parseBody(c, NewElement);
    checkKind(body.kind);
    if (body.uid) checkUid(body.uid);
    const name = (body.name ?? (typeof body.model.title === "string" ? body.model.title : "")).trim();
    if (!name) throw badRequest("bad request data: name must be a non-empty string");
    const ctx = deps.dashboards.context(c);
    const folderUid = await folderOf(ctx, body.folderUid, body.folderId, "");
    await require(ctx, "library.panels:create", folderUid);
    const input: ElementInput = { uid: body.uid, folderUid, name, kind: body.kind, model: body.model };
    const e = await deps.elements.create(ctx.orgId, input, identityOf(c).user.id, new Date(deps.now()));
    return c.json({ result: await dto(ctx, e) });
  }, { body: NewElement });

  r.patch("/api/library-elements/:uid", { action: "library.panels:write" }, async (c) => {
    const body = await parseBody(c, Patch);
    const { ctx, e } = await readable(c);
    await require(ctx, "library.panels:write", e.folderUid, e.uid);
    if (body.kind !== undefined) checkKind(body.kind);
    if (body.uid) checkUid(body.uid);
    const folderUid = await folderOf(ctx, body.folderUid, body.folderId, e.folderUid);
    if (folderUid !== e.folderUid) await require(ctx, "library.panels:create", folderUid);
    const name = body.name?.trim() || e.name;
    const input: ElementInput = { uid: body.uid, folderUid, name, kind: body.kind ?? e.kind, model: body.model ?? e.model };
    const updated = await deps.elements.update(ctx.orgId, e, input, body.version, identityOf(c).user.id, new Date(deps.now()));
    return c.json({ result: await dto(ctx, updated) });
  }, { body: Patch, responses: { 412: "the library element has been changed by someone else (the version sent is not the current one)" } });

  r.delete("/api/library-elements/:uid", { action: "library.panels:delete" }, async (c) => {
    const { ctx, e } = await readable(c);
    await require(ctx, "library.panels:delete", e.folderUid, e.uid);
    await deps.elements.delete(ctx.orgId, e);
    return c.json({ message: "Library element deleted", id: e.id });
  });
}
