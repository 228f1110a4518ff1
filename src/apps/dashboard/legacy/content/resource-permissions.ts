// /api/folders/:uid/permissions and /api/dashboards/{uid/:uid,id/:id}/permissions:
// the managed permissions of a folder or dashboard (core/identity/
// resource-permissions.ts) in the real product's legacy shape; POST replaces
// the whole list. A dashboard's list also shows what it inherits from its
// folders (inherited: true).
import type { Sql } from "../../../../db/sql.ts";
import type { Context } from "hono";
import { type } from "../../../../lib/arktype.ts";
import { ApiError, badRequest } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import type { Router } from "../../access/guard.ts";
import type { KindContext, KindDescriptor } from "../../apis/kind.ts";
import type { StoredObject } from "../../apis/store.ts";
import { dashboardUrl, folderUrl, slugify } from "../../apis/urls.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import {
  LEVEL_NAMES, type EntryInput, type ManagedEntry, type ManagedKind, type ResourcePermissions,
} from "../../core/identity/resource-permissions.ts";
import { avatarUrl } from "../../core/identity/users.ts";
import { folderErrors, idOf, kindContext, parentOf, titleOf, type ContentDeps } from "./content-objects.ts";
import { dashboardErrors, readableDashboard, uidOfId } from "./dashboard-save.ts";

const Item = type({
  "userId?": "0 <= number.integer <= 2147483647",
  "teamId?": "0 <= number.integer <= 2147483647",
  "role?": "string",
  permission: "number.integer",
});
const UpdateIn = type({ items: Item.array().atMostLength(500) });

export interface ResourcePermissionDeps extends ContentDeps {
  pg: Sql;
  permissions: ResourcePermissions;
}

export function registerResourcePermissions(r: Router, deps: ResourcePermissionDeps): void {
  const folderBucket = (ctx: KindContext) => ctx.bucket(deps.folders.group, deps.folders.resource);

  /** the folder of the path and whether the caller may read or write its permissions */
  const folderOfPath = async (c: Context, ctx: KindContext, action: string) => {
    const o = await ctx.store.get(folderBucket(ctx), c.req.param("uid")!);
    if (!o) throw folderErrors.notFound();
    await requireOn(ctx, deps.folders, o, action, folderErrors.denied);
    return o;
  };
  const dashboardOfPath = async (c: Context, ctx: KindContext, action: string) => {
    const uid = c.req.param("uid") ?? (await uidOfId(ctx, deps, c.req.param("id")!));
    const o = await readableDashboard(ctx, deps, uid);
    await requireOn(ctx, deps.dashboards, o, action, dashboardErrors.denied);
    return o;
  };

  /** the entries as the legacy API lists them: who, which level, on what */
  const items = async (ctx: KindContext, kind: ManagedKind, on: StoredObject, inherited: boolean, target: StoredObject) => {
    const snap = await deps.model.snapshot();
    const teams = await teamsOf(ctx, deps);
    return deps.permissions.entries(ctx.orgId, kind, on.metadata.name).map((e: ManagedEntry) => {
      const user = e.userId !== null ? snap.users.get(e.userId) : undefined;
      const team = e.teamId !== null ? teams.get(e.teamId) : undefined;
      const isFolder = kind === "folders";
      return {
        id: e.id,
        ...(target === on && !isFolder ? { dashboardId: idOf(target) } : {}),
        ...(isFolder ? { folderId: idOf(on), folderUid: on.metadata.name } : {}),
        created: e.created,
        updated: e.updated,
        userId: e.userId ?? 0,
        userLogin: user?.login ?? "",
        userEmail: user?.email ?? "",
        userAvatarUrl: user ? avatarUrl(user.email) : "",
        teamId: e.teamId ?? 0,
        team: team?.name ?? "",
        teamEmail: team?.email ?? "",
        teamAvatarUrl: team ? avatarUrl(team.email || team.name) : "",
        ...(e.role ? { role: e.role } : {}),
        permission: e.permission,
        permissionName: LEVEL_NAMES[e.permission],
        uid: on.metadata.name,
        title: titleOf(on),
        slug: slugify(titleOf(on)),
        isFolder,
        url: isFolder ? folderUrl(on.metadata.name, titleOf(on)) : dashboardUrl(on.metadata.name, titleOf(on)),
        inherited,
      };
    });
  };

  /** the folders above an object, nearest last */
  const foldersAbove = async (ctx: KindContext, o: StoredObject): Promise<StoredObject[]> => {
    const out: StoredObject[] = [];
    for (const name of (await ctx.folderChain(parentOf(o) || undefined)).reverse()) {
      const f = await ctx.store.get(folderBucket(ctx), name);
      if (f) out.push(f);
    }
    return out;
  };

  const update = async (c: Context, ctx: KindContext, kind: ManagedKind, o: StoredObject) => {
    const body = await parseBody(c, UpdateIn);
    const entries = await checkItems(ctx, deps, body.items);
    await deps.permissions.replace(ctx.orgId, kind, o.metadata.name, entries);
  };

  r.get("/api/folders/:uid/permissions", { action: "folders.permissions:read" }, async (c) => {
    const ctx = kindContext(c, deps);
    const o = await folderOfPath(c, ctx, "folders.permissions:read");
    const inherited = await Promise.all((await foldersAbove(ctx, o)).map((f) => items(ctx, "folders", f, true, o)));
    return c.json([...inherited.flat(), ...(await items(ctx, "folders", o, false, o))]);
  });

  r.post("/api/folders/:uid/permissions", { action: "folders.permissions:write" }, async (c) => {
    const ctx = kindContext(c, deps);
    const o = await folderOfPath(c, ctx, "folders.permissions:write");
    await update(c, ctx, "folders", o);
    return c.json({ message: "Folder permissions updated" });
  }, { body: UpdateIn });

  for (const by of ["uid/:uid", "id/:id"]) {
    r.get(`/api/dashboards/${by}/permissions`, { action: "dashboards.permissions:read" }, async (c) => {
      const ctx = kindContext(c, deps);
      const o = await dashboardOfPath(c, ctx, "dashboards.permissions:read");
      const inherited = await Promise.all((await foldersAbove(ctx, o)).map((f) => items(ctx, "folders", f, true, o)));
      return c.json([...inherited.flat(), ...(await items(ctx, "dashboards", o, false, o))]);
    });

    r.post(`/api/dashboards/${by}/permissions`, { action: "dashboards.permissions:write" }, async (c) => {
      const ctx = kindContext(c, deps);
      const o = await dashboardOfPath(c, ctx, "dashboards.permissions:write");
      await update(c, ctx, "dashboards", o);
      return c.json({ message: "Dashboard permissions updated" });
    }, { body: UpdateIn });
  }
}

async function requireOn(ctx: KindContext, d: KindDescriptor, o: StoredObject, action: string, denied: () => ApiError): Promise<void> {
  const scopes = await d.scopes(ctx, o.metadata.name, parentOf(o) || undefined);
  if (!hasPermission(ctx.identity.permissions, action, scopes)) throw denied();
}

/** the teams of the organization by id (for the names the list shows) */
async function teamsOf(ctx: KindContext, deps: ResourcePermissionDeps) {
  const r = await deps.pg.query<{ id: number; name: string; email: string }>("select id, name, email from teams where org_id = $1", [ctx.orgId]);
  return new Map(r.rows.map((t) => [Number(t.id), t]));
}

/**
 * Each item names exactly one user, team or basic role of the organization,
 * with a level of 1, 2 or 4; Admins hold everything through their role, so an
 * Admin item is refused, as the real product's docs say.
 */
async function checkItems(ctx: KindContext, deps: ResourcePermissionDeps, list: ReadonlyArray<typeof Item.infer>): Promise<EntryInput[]> {
  const out: EntryInput[] = [];
  // the users and teams named, looked up at once
  const userIds = list.map((i) => i.userId || 0).filter((id) => id > 0);
  const teamIds = list.map((i) => i.teamId || 0).filter((id) => id > 0);
  const [m, t] = await Promise.all([
    deps.pg.query<{ id: number }>("select user_id as id from org_members where org_id = $1 and user_id = any($2::int[])", [ctx.orgId, userIds]),
    deps.pg.query<{ id: number }>("select id from teams where org_id = $1 and id = any($2::int[])", [ctx.orgId, teamIds]),
  ]);
  const members = new Set(m.rows.map((r) => Number(r.id)));
  const teams = new Set(t.rows.map((r) => Number(r.id)));
  for (const [i, item] of list.entries()) {
    const at = `items[${i}]`;
    if (item.permission !== 1 && item.permission !== 2 && item.permission !== 4) {
      throw badRequest(`${at}.permission must be 1 (View), 2 (Edit) or 4 (Admin) (was ${item.permission})`);
    }
    const userId = item.userId || 0;
    const teamId = item.teamId || 0;
    const role = item.role || "";
    const named = [userId > 0, teamId > 0, role !== ""].filter(Boolean).length;
    if (named !== 1) throw badRequest(`${at} must name exactly one of userId, teamId or role`);
    if (role && role !== "Viewer" && role !== "Editor") {
      throw badRequest(`${at}.role must be "Viewer" or "Editor" (Admins hold every permission through their role)`);
    }
    if (userId && !members.has(userId)) throw badRequest(`${at}.userId: user ${userId} is not a member of this organization`);
    if (teamId && !teams.has(teamId)) throw badRequest(`${at}.teamId: team ${teamId} is not in this organization`);
    const entry: EntryInput = {
      userId: userId || null, teamId: teamId || null, role: role ? (role as "Viewer" | "Editor") : null, permission: item.permission,
    };
    if (out.some((e) => e.userId === entry.userId && e.teamId === entry.teamId && e.role === entry.role)) {
      throw badRequest(`${at} names the same user, team or role as an earlier item`);
    }
    out.push(entry);
  }
  return out;
}
