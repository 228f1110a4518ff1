// /api/dashboards/{uid/:uid,id/:id}/versions and /restore: a dashboard's
// saved versions from the /apis history (the same rows ?resourceVersion and
// the get-history list read), in the real product's v12 shape
// ({continueToken, versions}), one version with its data, and a restore that
// saves an old version as the next one.
import type { Context } from "hono";
import { type } from "../../../../lib/arktype.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { positiveInt, queryParams } from "../../../../lib/http/query.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import type { Router } from "../../access/guard.ts";
import { MESSAGE_ANNOTATION, UPDATED_AT, UPDATED_BY, type KindContext } from "../../apis/kind.ts";
import type { StoredObject } from "../../apis/store.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import { dashboardJson, idOf, kindContext, loginOf, parentOf, type ContentDeps } from "./content-objects.ts";
import { RESTORED_FROM_ANNOTATION, dashboardErrors, readableDashboard, saveDashboard, savedJson, uidOfId } from "./dashboard-save.ts";

const RestoreIn = type({ version: "1 <= number.integer <= 2147483647" });

const versionNotFound = () => new ApiError(404, "Dashboard version not found");

export function registerDashboardVersions(r: Router, deps: ContentDeps): void {
  const bucket = (ctx: KindContext) => ctx.bucket(deps.dashboards.group, deps.dashboards.resource);

  /** the dashboard of the path (by uid or deprecated id); versions are for those who may save it */
  const writable = async (c: Context, ctx: KindContext): Promise<StoredObject> => {
    const uid = c.req.param("uid") ?? (await uidOfId(ctx, deps, c.req.param("id")!));
    const o = await readableDashboard(ctx, deps, uid);
    const scopes = await deps.dashboards.scopes(ctx, uid, parentOf(o) || undefined);
    if (!hasPermission(ctx.identity.permissions, deps.dashboards.actions.write, scopes)) throw dashboardErrors.denied();
    return o;
  };

  const versionMeta = async (o: StoredObject) => {
    const generation = o.metadata.generation;
    return {
      id: Number(o.metadata.resourceVersion),
      dashboardId: idOf(o),
      uid: o.metadata.name,
      parentVersion: generation > 1 ? generation - 1 : 0,
      restoredFrom: Number(o.metadata.annotations[RESTORED_FROM_ANNOTATION] ?? 0) || 0,
      version: generation,
      created: o.metadata.annotations[UPDATED_AT] ?? o.metadata.creationTimestamp,
      createdBy: await loginOf(deps.model, o.metadata.annotations[UPDATED_BY]),
      message: o.metadata.annotations[MESSAGE_ANNOTATION] ?? "",
    };
  };

  const list = async (c: Context) => {
    const ctx = kindContext(c, deps);
    const o = await writable(c, ctx);
    const params = queryParams(c);
    const limit = Math.min(positiveInt(params.one("limit"), 1000), 10_000);
    const start = positiveInt(params.one("start"), 0);
    const token = params.one("continueToken");
    if (token !== undefined && token !== "" && !/^\d{1,18}$/.test(token)) throw new ApiError(400, "invalid continueToken");
    const rows = await ctx.store.history(bucket(ctx), o.metadata.name, token || undefined, start + limit + 1, o.metadata.uid);
    const page = rows.slice(start, start + limit);
    const more = rows.length > start + limit;
    return c.json({
      continueToken: more ? page[page.length - 1]!.metadata.resourceVersion : "",
      versions: await Promise.all(page.map(versionMeta)),
    });
  };

  const one = async (c: Context) => {
    const ctx = kindContext(c, deps);
    const o = await writable(c, ctx);
    const raw = c.req.param("version")!;
    if (!/^\d{1,10}$/.test(raw)) throw new ApiError(400, "version is invalid");
    const found = await ctx.store.atGeneration(bucket(ctx), o.metadata.name, Number(raw), o.metadata.uid);
    if (!found) throw versionNotFound();
    return c.json({ ...(await versionMeta(found)), data: dashboardJson(found) });
  };

  const restore = async (c: Context) => {
    const ctx = kindContext(c, deps);
    const o = await writable(c, ctx);
    const { version } = await parseBody(c, RestoreIn);
    const old = await ctx.store.atGeneration(bucket(ctx), o.metadata.name, version, o.metadata.uid);
    if (!old) throw versionNotFound();
    const saved = await saveDashboard(ctx, deps, {
      dashboard: { ...old.spec, uid: o.metadata.name, version: o.metadata.generation },
      folderUid: parentOf(o),
      message: `Restored from version ${version}`,
      restoredFrom: version,
    });
    return c.json(savedJson(saved));
  };

  for (const by of ["uid/:uid", "id/:id"]) {
    r.get(`/api/dashboards/${by}/versions`, { signedIn: true }, list);
    r.get(`/api/dashboards/${by}/versions/:version`, { signedIn: true }, one);
    r.post(`/api/dashboards/${by}/restore`, { signedIn: true }, restore, { body: RestoreIn, responses: { 412: "name-exists" } });
  }
}
