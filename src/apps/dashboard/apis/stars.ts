// Stars (collections.svc.app/v1alpha1) and the legacy /api/user/stars
// endpoints over the same data. A user manages only their own stars.
import type { Context } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { identityOf, type Router } from "../access/guard.ts";
import { namespaceOf, orgIdOfNamespace, type NamespaceContext } from "../core/identity/namespaces.ts";
import type { StarRef, StarStore } from "../core/content/stars.ts";
import type { DashboardAccess } from "./dashboard-access.ts";
import type { ResourceStore } from "./store.ts";

export interface StarsDeps {
  stars: StarStore;
  store: ResourceStore;
  namespaces: NamespaceContext;
  /** dashboards by their legacy numeric id (the legacy star routes) */
  dashboards: DashboardAccess;
  /** the collections API version is served */
  collectionsOn: boolean;
}

const KINDS: Record<string, { group: string; resource: string }> = {
  Dashboard: { group: "dashboard.svc.app", resource: "dashboards" },
  Folder: { group: "folder.svc.app", resource: "folders" },
};

export function registerStars(r: Router, deps: StarsDeps): void {
  const self = { signedIn: true as const, usersOnly: true };

  /** stars point at objects that exist (dashboards and folders are checked) */
  const requireTarget = async (orgId: number, ref: StarRef) => {
    const k = KINDS[ref.kind];
    if (!k || k.group !== ref.group) return;
    const found = await deps.store.get({ ...k, namespace: namespaceOf(orgId, deps.namespaces) }, ref.name);
    if (!found) throw new ApiError(404, `${k.resource}.${k.group} "${ref.name}" not found`, { reason: "NotFound" });
  };

  if (deps.collectionsOn) {
    const path = "/apis/collections.svc.app/v1alpha1/namespaces/:namespace/stars/:owner";
    const own = (c: Context) => {
      const id = identityOf(c);
      const orgId = orgIdOfNamespace(c.req.param("namespace")!, deps.namespaces);
      if (orgId === undefined) throw new ApiError(400, `invalid namespace "${c.req.param("namespace")}"`, { reason: "BadRequest" });
      if (orgId !== id.orgId) throw new ApiError(403, "the namespace is not one of the caller's organizations", { reason: "Forbidden" });
      if (c.req.param("owner") !== `user-${id.user.uid}`) {
        throw new ApiError(403, "a user can only manage their own stars", { reason: "Forbidden" });
      }
      return { userId: id.user.id, orgId };
    };
    const orgOf = (c: Context) => String(orgIdOfNamespace(c.req.param("namespace") ?? "", deps.namespaces) ?? -1);
    const access = { ...self, orgOf };
    const change = async (c: Context, on: boolean) => {
      const { userId, orgId } = own(c);
      const ref = { group: c.req.param("group")!, kind: c.req.param("kind")!, name: c.req.param("id")! };
      if (on) {
        await requireTarget(orgId, ref);
        await deps.stars.add(userId, orgId, ref);
        return c.json({}, 200);
      }
      return (await deps.stars.remove(userId, orgId, ref)) ? c.json({}, 200) : c.body(null, 204);
    };
    r.put(`${path}/update/:group/:kind/:id`, access, (c) => change(c, true));
    r.post(`${path}/update/:group/:kind/:id`, access, (c) => change(c, true));
    r.delete(`${path}/update/:group/:kind/:id`, access, (c) => change(c, false));
    r.get(path, access, async (c) => {
      const { userId, orgId } = own(c);
      const grouped = new Map<string, { group: string; kind: string; names: string[] }>();
      for (const s of await deps.stars.list(userId, orgId)) {
        const key = `${s.group}/${s.kind}`;
        const entry = grouped.get(key) ?? { group: s.group, kind: s.kind, names: [] };
        entry.names.push(s.name);
        grouped.set(key, entry);
      }
      return c.json({
        kind: "Stars",
        apiVersion: "collections.svc.app/v1alpha1",
        metadata: { name: c.req.param("owner"), namespace: namespaceOf(orgId, deps.namespaces) },
        spec: { resource: [...grouped.values()] },
      });
    });
  }

  // the deprecated legacy form, on the same data
  const dashboardRef = (c: Context): StarRef => ({ group: "dashboard.svc.app", kind: "Dashboard", name: c.req.param("uid")! });
  r.get("/api/user/stars", self, async (c) => {
    const id = identityOf(c);
    const stars = await deps.stars.list(id.user.id, id.orgId);
    return c.json(stars.filter((s) => s.kind === "Dashboard").map((s) => s.name));
  });
  r.post("/api/user/stars/dashboard/uid/:uid", self, async (c) => {
    const id = identityOf(c);
    const ref = dashboardRef(c);
    await requireTarget(id.orgId, ref).catch(() => {
      throw new ApiError(404, "Dashboard not found");
    });
    await deps.stars.add(id.user.id, id.orgId, ref);
    return c.json({ message: "Dashboard starred!" });
  });
  r.delete("/api/user/stars/dashboard/uid/:uid", self, async (c) => {
    const id = identityOf(c);
    await deps.stars.remove(id.user.id, id.orgId, dashboardRef(c));
    return c.json({ message: "Dashboard unstarred" });
  });

  /** a dashboard named by its legacy numeric id, as the oldest clients star it */
  const dashboardById = async (c: Context): Promise<StarRef> => {
    const raw = c.req.param("id")!;
    if (!/^[1-9]\d{0,15}$/.test(raw)) throw new ApiError(400, "Invalid dashboard ID");
    const found = await deps.dashboards.byId(deps.dashboards.context(c), Number(raw));
    if (!found) throw new ApiError(404, "Dashboard not found");
    return { group: "dashboard.svc.app", kind: "Dashboard", name: found.uid };
  };
  r.post("/api/user/stars/dashboard/:id", self, async (c) => {
    const id = identityOf(c);
    await deps.stars.add(id.user.id, id.orgId, await dashboardById(c));
    return c.json({ message: "Dashboard starred!" });
  });
  r.delete("/api/user/stars/dashboard/:id", self, async (c) => {
    const id = identityOf(c);
    await deps.stars.remove(id.user.id, id.orgId, await dashboardById(c));
    return c.json({ message: "Dashboard unstarred" });
  });
}
