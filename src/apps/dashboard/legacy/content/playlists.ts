// /api/playlists: the legacy playlist API over the playlist.svc.app objects
// (name is spec.title), in the real product's shapes.
import type { Context } from "hono";
import { type } from "../../../../lib/arktype.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { positiveInt, queryParams } from "../../../../lib/http/query.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { newUid } from "../../../../lib/ids.ts";
import type { Router } from "../../access/guard.ts";
import type { KindContext, KindDescriptor } from "../../apis/kind.ts";
import { canRead, createObject, deleteObject, updateObject } from "../../apis/objects.ts";
import type { StoredObject } from "../../apis/store.ts";
import { checkLegacyUid, idOf, kindContext, legacyErrors, titleOf, type ContentDeps } from "./content-objects.ts";

const ItemIn = type({ type: "'dashboard_by_uid' | 'dashboard_by_tag' | 'dashboard_by_id'", value: "string", "order?": "number", "title?": "string" });
const PlaylistIn = type({ "uid?": "string", name: "string", interval: "string", "items?": ItemIn.array() });

export interface LegacyPlaylistDeps extends ContentDeps {
  playlists: KindDescriptor;
}

const notFound = () => new ApiError(404, "Playlist not found");
const denied = () => new ApiError(403, "Access denied");

export function registerLegacyPlaylists(r: Router, deps: LegacyPlaylistDeps): void {
  const d = deps.playlists;
  const bucket = (ctx: KindContext) => ctx.bucket(d.group, d.resource);
  const items = (o: StoredObject) => ((o.spec.items as Array<{ type: string; value: string }> | undefined) ?? []).map((i) => ({ type: i.type, value: i.value }));
  const show = (o: StoredObject) => ({ id: idOf(o), uid: o.metadata.name, name: titleOf(o), interval: String(o.spec.interval ?? ""), items: items(o) });
  const errors = { 404: notFound, 403: denied };
  const fields = { "spec.title": "name" };
  const readable = async (c: Context, ctx: KindContext) => {
    const o = await ctx.store.get(bucket(ctx), c.req.param("uid")!);
    if (!o) throw notFound();
    if (!(await canRead(d, ctx, o))) throw denied();
    return o;
  };
  /** the body as a playlist spec, the items in the order given */
  const specOf = (body: typeof PlaylistIn.infer) => ({
    title: body.name,
    interval: body.interval,
    items: [...(body.items ?? [])].sort((a, b) => (a.order ?? 0) - (b.order ?? 0)).map((i) => ({ type: i.type, value: i.value })),
  });

  r.get("/api/playlists", { action: "playlists:read" }, async (c) => {
    const ctx = kindContext(c, deps);
    const params = queryParams(c);
    const query = (params.one("query") ?? "").toLowerCase();
    const limit = positiveInt(params.one("limit"), 1000);
    const out: Array<{ id: number; uid: string; name: string; interval: string }> = [];
    for (const o of await ctx.store.list(bucket(ctx))) {
      if (query && !titleOf(o).toLowerCase().includes(query)) continue;
      if (!(await canRead(d, ctx, o))) continue;
      out.push({ id: idOf(o), uid: o.metadata.name, name: titleOf(o), interval: String(o.spec.interval ?? "") });
      if (out.length >= limit) break;
    }
    return c.json(out);
  });

  r.get("/api/playlists/:uid", { action: "playlists:read" }, async (c) => c.json(show(await readable(c, kindContext(c, deps)))));

  r.get("/api/playlists/:uid/items", { action: "playlists:read" }, async (c) => c.json(items(await readable(c, kindContext(c, deps)))));

  r.post("/api/playlists", { action: "playlists:create" }, async (c) => {
    const ctx = kindContext(c, deps);
    const body = await parseBody(c, PlaylistIn);
    const uid = body.uid?.trim() || newUid();
    checkLegacyUid(uid, false);
    const o = await legacyErrors(createObject(d, ctx, { metadata: { name: uid }, spec: specOf(body) }), errors, fields);
    return c.json(show(o));
  }, { body: PlaylistIn });

  r.put("/api/playlists/:uid", { action: "playlists:write" }, async (c) => {
    const ctx = kindContext(c, deps);
    const current = await readable(c, ctx);
    const body = await parseBody(c, PlaylistIn);
    const next = { metadata: { name: current.metadata.name, labels: current.metadata.labels, annotations: current.metadata.annotations }, spec: specOf(body) };
    return c.json(show(await legacyErrors(updateObject(d, ctx, current.metadata.name, next), errors, fields)));
  }, { body: PlaylistIn });

  r.delete("/api/playlists/:uid", { action: "playlists:delete" }, async (c) => {
    const ctx = kindContext(c, deps);
    const current = await readable(c, ctx);
    await legacyErrors(deleteObject(d, ctx, current.metadata.name, new URLSearchParams()), errors);
    return c.json({});
  });
}
