// /api/annotations: organization and dashboard annotations, the Graphite
// form, tags (spec "Legacy annotations"; messages from reference §2).
// Organization annotations are reached through annotations:type:organization;
// dashboard ones through annotations:type:dashboard or the dashboard's and its
// folders' scopes, and only by callers who may read the dashboard.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { ApiError, badRequest } from "../../../../lib/errors.ts";
import { readJson } from "../../../../lib/http/base-app.ts";
import { nullsAbsent } from "../../../../lib/http/validate.ts";
import { intParam, positiveInt } from "../../../../lib/http/query.ts";
import { accessDenied, identityOf, type Router } from "../../access/guard.ts";
import type { DashboardAccess, DashboardRef } from "../../apis/dashboard-access.ts";
import type { KindContext } from "../../apis/kind.ts";
import type { AccessModel } from "../../core/identity/access-model.ts";
import { orderedSpan, type AnnotationChange, type AnnotationRow, type AnnotationStore } from "../../core/content/annotations.ts";
import { parseId } from "../../core/identity/orgs.ts";
import { hasPermission, type PermissionSet } from "../../core/identity/permissions.ts";
import { avatarUrl } from "../../core/identity/users.ts";
import { jsonObject } from "../schemas.ts";

/** the largest time a JavaScript Date holds: stored times and spans stay far from bigint overflow */
export const MAX_EPOCH_MS = 8_640_000_000_000_000;
const epoch = type(`0 <= number.integer <= ${MAX_EPOCH_MS}`).describe("epoch milliseconds");
const safeId = type("0 <= number.integer <= 9007199254740991").describe("a whole number");
/** tags are indexed: their combined length is capped, as the real product caps them */
const MAX_TAGS_LENGTH = 500;
const NewAnnotation = type({
  "text?": "string",
  "dashboardUID?": "string",
  "dashboardId?": safeId,
  "panelId?": safeId,
  "time?": epoch,
  "timeEnd?": epoch,
  "tags?": "string[] | null",
  "data?": jsonObject.or("null"),
});
const Change = type({
  "text?": "string",
  "time?": epoch,
  "timeEnd?": epoch,
  "tags?": "string[] | null",
  "data?": jsonObject.or("null"),
});
const Graphite = type({ "what?": "string", "when?": type(`0 <= number <= ${MAX_EPOCH_MS}`), "tags?": "unknown", "data?": "string" });
const MassDelete = type({ "dashboardUID?": "string", "dashboardId?": safeId, "panelId?": safeId, "annotationId?": "0 < number.integer <= 2147483647" });

const ORG = "annotations:type:organization";
const DASHBOARD = "annotations:type:dashboard";

export interface AnnotationDeps {
  annotations: AnnotationStore;
  dashboards: DashboardAccess;
  model: AccessModel;
  now: () => number;
  /** changes whenever a managed folder or dashboard permission changes */
  permissionsRevision: () => number;
}

/** a body checked against a schema; any failure is the real product's one message */
async function bodyOf<T>(c: Context, schema: (d: unknown) => T | InstanceType<typeof type.errors>, failure: string): Promise<T> {
  // malformed JSON is the real product's bare message; unsafe JSON keeps its reason
  const data = nullsAbsent(
    await readJson(c).catch((err: unknown) => {
      throw err instanceof ApiError && err.message.startsWith("bad request data: the body is not valid JSON") ? badRequest("bad request data") : err;
    }),
  );
  if (Array.isArray(data)) throw badRequest(`${failure}: the body must be a JSON object`);
  const out = schema(data);
  if (out instanceof type.errors) throw badRequest(`${failure}: ${out.summary.split("\n").join("; ")}`);
  return out;
}

function uniqueTags(tags: readonly string[] | null | undefined): string[] {
  const out = [...new Set((tags ?? []).map((t) => t.trim()).filter(Boolean))];
  if (out.reduce((n, t) => n + t.length, 0) > MAX_TAGS_LENGTH) throw badRequest(`tags are too long: at most ${MAX_TAGS_LENGTH} characters in all`);
  return out;
}

export function registerAnnotations(r: Router, deps: AnnotationDeps): void {
  const annotationId = (c: Context) => parseId(c.req.param("id"), "annotationId is invalid");

  /** may the caller do `action` on an annotation of this dashboard (or of the organization when none) */
  const allowed = async (ctx: KindContext, action: string, d: DashboardRef | undefined) => {
    if (!d) return hasPermission(ctx.identity.permissions, action, [ORG]);
    return (await deps.dashboards.may(ctx, d, action, [DASHBOARD])) && deps.dashboards.canRead(ctx, d);
  };
  const requireAllowed = async (ctx: KindContext, action: string, d: DashboardRef | undefined) => {
    if (await allowed(ctx, action, d)) return;
    throw d ? new ApiError(403, "Access denied to this dashboard") : accessDenied(action);
  };
  /** per caller (their permission set, made once per identity snapshot): the dashboards they may read annotations of */
  const visibleCache: VisibleCache = new WeakMap();
  /** an existing annotation the caller may act on */
  const existing = async (c: Context, action: string) => {
    const ctx = deps.dashboards.context(c);
    const row = await deps.annotations.get(ctx.orgId, annotationId(c));
    const d = row.dashboardUID ? await deps.dashboards.get(ctx, row.dashboardUID) : undefined;
    if (!(await allowed(ctx, "annotations:read", d))) throw new ApiError(404, "Annotation not found");
    await requireAllowed(ctx, action, d);
    return row;
  };
  const render = async (rows: AnnotationRow[]) => {
    const snap = await deps.model.snapshot();
    return rows.map((a) => {
      const user = snap.users.get(a.userId);
      return {
        id: a.id,
        alertId: a.alertId,
        alertName: "",
        dashboardId: a.dashboardId,
        ...(a.dashboardUID ? { dashboardUID: a.dashboardUID } : {}),
        panelId: a.panelId,
        userId: a.userId,
        userName: user?.login ?? "",
        newState: a.newState,
        prevState: a.prevState,
        created: a.created,
        updated: a.updated,
        time: a.time,
        timeEnd: a.timeEnd,
        text: a.text,
        tags: a.tags,
        login: user?.login ?? "",
        email: user?.email ?? "",
        avatarUrl: user ? avatarUrl(user.email) : "",
        data: a.data,
      };
    });
  };

  r.get("/api/annotations", { action: "annotations:read" }, async (c) => {
    const ctx = deps.dashboards.context(c);
    const q = (name: string, max = MAX_EPOCH_MS) => intParam(c.req.query(name), name, max);
    const type = c.req.query("type");
    let dashboardUID = c.req.query("dashboardUID") || undefined;
    if (dashboardUID !== undefined && !(await deps.dashboards.get(ctx, dashboardUID))) {
      throw badRequest("Invalid dashboard UID in annotation request");
    }
    const dashboardId = q("dashboardId");
    if (dashboardUID === undefined && dashboardId !== undefined && dashboardId > 0) {
      dashboardUID = (await deps.dashboards.byId(ctx, dashboardId))?.uid ?? "";
    }
    const rows = await deps.annotations.find(ctx.orgId, {
      from: q("from"),
      to: q("to"),
      limit: positiveInt(c.req.query("limit"), 100),
      alertId: q("alertId"),
      dashboardUID,
      panelId: q("panelId"),
      userId: q("userId", 2_147_483_647),
      type: type === "alert" || type === "annotation" ? type : undefined,
      tags: [...new Set(c.req.queries("tags") ?? [])].filter(Boolean),
      matchAny: c.req.query("matchAny") === "true",
      orgVisible: hasPermission(ctx.identity.permissions, "annotations:read", [ORG]),
      dashboards: await visibleDashboards(ctx, deps.dashboards, allowed, dashboardUID, visibleCache, deps.permissionsRevision),
    });
    return c.json(await render(rows));
  });

  r.get("/api/annotations/tags", { action: "annotations:read" }, async (c) => {
    const tags = await deps.annotations.tags(identityOf(c).orgId, c.req.query("tag") ?? "", positiveInt(c.req.query("limit"), 100));
    return c.json({ result: { tags } });
  });

  r.get("/api/annotations/:id", { action: "annotations:read" }, async (c) => {
    const row = await existing(c, "annotations:read");
    return c.json((await render([row]))[0]);
  });

  r.post("/api/annotations", { action: "annotations:create" }, async (c) => {
    const body = await bodyOf(c, NewAnnotation, "bad request data");
    if (!body.text?.trim()) throw badRequest("Failed to save annotation");
    const ctx = deps.dashboards.context(c);
    // an unknown dashboard leaves an organization annotation, as the real product does
    const d = body.dashboardUID
      ? await deps.dashboards.get(ctx, body.dashboardUID)
      : body.dashboardId
        ? await deps.dashboards.byId(ctx, body.dashboardId)
        : undefined;
    await requireAllowed(ctx, "annotations:create", d);
    const t = body.time || deps.now();
    const [time, timeEnd] = orderedSpan(t, body.timeEnd || t);
    const id = await deps.annotations.create(ctx.orgId, {
      dashboardUID: d?.uid ?? null,
      dashboardId: d?.id ?? 0,
      panelId: body.panelId ?? 0,
      userId: ctx.identity.user.id,
      time,
      timeEnd,
      text: body.text,
      tags: uniqueTags(body.tags),
      data: body.data ?? {},
    });
    return c.json({ message: "Annotation added", id });
  }, { body: NewAnnotation });

  r.post("/api/annotations/graphite", { action: "annotations:create", scope: () => ORG }, async (c) => {
    const body = await bodyOf(c, Graphite, "Failed to save Graphite annotation");
    if (!body.what?.trim()) throw badRequest("Failed to save Graphite annotation");
    const tags = graphiteTags(body.tags);
    // `when` is in seconds (the Graphite events API); a value only milliseconds can be is taken as such
    const when = body.when ? (body.when >= 1e12 ? Math.round(body.when) : Math.round(body.when * 1000)) : deps.now();
    const ctx = deps.dashboards.context(c);
    const id = await deps.annotations.create(ctx.orgId, {
      dashboardUID: null,
      dashboardId: 0,
      panelId: 0,
      userId: ctx.identity.user.id,
      time: when,
      timeEnd: when,
      text: body.data ? `${body.what}\n${body.data}` : body.what,
      tags,
      data: {},
    });
    return c.json({ message: "Graphite annotation added", id });
  }, { body: Graphite });

  // PUT replaces text and tags (and data when given); a zero or missing time keeps the stored one
  r.put("/api/annotations/:id", { action: "annotations:write" }, async (c) => {
    annotationId(c);
    const body = await bodyOf(c, Change, "bad request data");
    const row = await existing(c, "annotations:write");
    const change: AnnotationChange = { text: body.text ?? "", tags: uniqueTags(body.tags) };
    if (body.time) change.time = body.time;
    if (body.timeEnd) change.timeEnd = body.timeEnd;
    if (body.data) change.data = body.data;
    await deps.annotations.update(row.orgId, row.id, change);
    return c.json({ message: "Annotation updated" });
  }, { body: Change });

  // PATCH changes what is given: non-empty text, non-zero times, tags and data when not null
  r.patch("/api/annotations/:id", { action: "annotations:write" }, async (c) => {
    annotationId(c);
    const body = await bodyOf(c, Change, "bad request data");
    const row = await existing(c, "annotations:write");
    const change: AnnotationChange = {};
    if (body.text) change.text = body.text;
    if (body.time) change.time = body.time;
    if (body.timeEnd) change.timeEnd = body.timeEnd;
    if (body.tags) change.tags = uniqueTags(body.tags);
    if (body.data) change.data = body.data;
    await deps.annotations.update(row.orgId, row.id, change);
    return c.json({ message: "Annotation patched" });
  }, { body: Change });

  r.delete("/api/annotations/:id", { action: "annotations:delete" }, async (c) => {
    const row = await existing(c, "annotations:delete");
    await deps.annotations.delete(row.orgId, row.id);
    return c.json({ message: "Annotation deleted" });
  });

  r.post("/api/annotations/mass-delete", { action: "annotations:delete" }, async (c) => {
    const body = await bodyOf(c, MassDelete, "bad request data");
    const ctx = deps.dashboards.context(c);
    if (body.annotationId !== undefined) {
      const row = await deps.annotations.get(ctx.orgId, body.annotationId);
      const d = row.dashboardUID ? await deps.dashboards.get(ctx, row.dashboardUID) : undefined;
      await requireAllowed(ctx, "annotations:delete", d);
      await deps.annotations.delete(ctx.orgId, row.id);
      return c.json({ message: "Annotations deleted" });
    }
    // a dashboard id needs its panel; a dashboard uid alone removes all of its annotations
    if (body.dashboardUID === undefined && (body.dashboardId === undefined || body.panelId === undefined)) {
      throw badRequest("bad request data");
    }
    const d = body.dashboardUID !== undefined ? await deps.dashboards.get(ctx, body.dashboardUID) : await deps.dashboards.byId(ctx, body.dashboardId!);
    if (!d) throw new ApiError(404, "Dashboard not found");
    await requireAllowed(ctx, "annotations:delete", d);
    await deps.annotations.deleteForDashboards(ctx.orgId, [d.uid], body.panelId);
    return c.json({ message: "Annotations deleted" });
  }, { body: MassDelete, responses: { 404: "Dashboard not found, or Annotation not found (the annotationId named)" } });
}

/** the Graphite form's tags: an array of strings, or one string of space-separated tags */
function graphiteTags(raw: unknown): string[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === "string") return uniqueTags(raw.split(/\s+/));
  if (Array.isArray(raw) && raw.every((t) => typeof t === "string")) return uniqueTags(raw as string[]);
  throw badRequest("Failed to save Graphite annotation");
}

type VisibleCache = WeakMap<PermissionSet, { revision: string; filter: { only: string[] } | { except: string[] } }>;

/**
 * The dashboards whose annotations the caller may read, or undefined when
 * that is all of them (the query then needs no dashboard filter). Worked out
 * once per caller until a dashboard, folder or permission changes: a
 * Viewer's annotation list must not check every dashboard of a large
 * organization on every refresh.
 */
async function visibleDashboards(
  ctx: KindContext,
  dashboards: DashboardAccess,
  allowed: (ctx: KindContext, action: string, d: DashboardRef) => Promise<boolean>,
  /** the one dashboard asked for (a panel's refresh): only it is checked */
  only: string | undefined,
  cache: VisibleCache,
  permissionsRevision: () => number,
): Promise<{ only: string[] } | { except: string[] } | undefined> {
  const p = ctx.identity.permissions;
  if (hasPermission(p, "annotations:read", [DASHBOARD]) && hasPermission(p, "dashboards:read", ["dashboards:*"])) return undefined;
  if (only !== undefined) {
    const d = await dashboards.get(ctx, only);
    return { only: d && (await allowed(ctx, "annotations:read", d)) ? [d.uid] : [] };
  }
  const revision = `${await dashboards.revision(ctx)}:${permissionsRevision()}`;
  const known = cache.get(p);
  if (known?.revision === revision) return known.filter;
  const visible: string[] = [];
  const hidden: string[] = [];
  for (const d of await dashboards.all(ctx)) (await allowed(ctx, "annotations:read", d) ? visible : hidden).push(d.uid);
  const filter = hidden.length < visible.length ? { except: hidden } : { only: visible };
  cache.set(p, { revision, filter });
  return filter;
}
