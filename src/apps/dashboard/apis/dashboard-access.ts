// Dashboards as the legacy content APIs meet them (annotations, library
// panels, preferences, reports): looked up by uid or deprecated numeric id in
// the caller's organization, with the scopes they are reached through (the
// dashboard itself and its folders) and whether the caller may read them.
import type { Context } from "hono";
import { identityOf } from "../access/guard.ts";
import type { Identity } from "../core/identity/authenticate.ts";
import type { NamespaceContext } from "../core/identity/namespaces.ts";
import { hasPermission } from "../core/identity/permissions.ts";
import { createKindContext } from "./context.ts";
import { FOLDER_ANNOTATION, INTERNAL_ID_LABEL, type KindContext, type KindDescriptor } from "./kind.ts";
import { canRead } from "./objects.ts";
import type { ResourceStore, StoredObject } from "./store.ts";

export interface DashboardRef {
  uid: string;
  id: number;
  title: string;
  object: StoredObject;
}

export interface DashboardAccess {
  /** the kind context of the caller in their current organization */
  context(c: Context): KindContext;
  contextOf(identity: Identity, orgId: number): KindContext;
  get(ctx: KindContext, uid: string): Promise<DashboardRef | undefined>;
  byId(ctx: KindContext, id: number): Promise<DashboardRef | undefined>;
  all(ctx: KindContext): Promise<DashboardRef[]>;
  /** dashboards:uid:<uid> and folders:uid:<f> for each folder up to the root */
  scopes(ctx: KindContext, d: DashboardRef): Promise<string[]>;
  canRead(ctx: KindContext, d: DashboardRef): Promise<boolean>;
  /** may the caller do `action` on the dashboard through any of `extra` or its own scopes */
  may(ctx: KindContext, d: DashboardRef, action: string, extra?: string[]): Promise<boolean>;
  /** changes whenever a dashboard or folder of the caller's organization changes */
  revision(ctx: KindContext): Promise<string>;
  /** a folder's title, or undefined when there is no such folder */
  folderTitle(ctx: KindContext, uid: string): Promise<string | undefined>;
}

export interface DashboardAccessDeps {
  store: ResourceStore;
  namespaces: NamespaceContext;
  dashboards: KindDescriptor;
  now: () => number;
}

export function refOf(o: StoredObject): DashboardRef {
  return { uid: o.metadata.name, id: Number(o.metadata.labels[INTERNAL_ID_LABEL] ?? 0), title: String(o.spec.title ?? ""), object: o };
}

export function createDashboardAccess(deps: DashboardAccessDeps): DashboardAccess {
  const key = (ctx: KindContext) => ctx.bucket(deps.dashboards.group, deps.dashboards.resource);
  const contextOf = (identity: Identity, orgId: number) => createKindContext(identity, orgId, deps.store, deps.namespaces, deps.now);
  const access: DashboardAccess = {
    context: (c) => {
      const id = identityOf(c);
      return contextOf(id, id.orgId);
    },
    contextOf,
    async get(ctx, uid) {
      const o = await deps.store.get(key(ctx), uid);
      return o ? refOf(o) : undefined;
    },
    async byId(ctx, id) {
      const o = await deps.store.byId(key(ctx), id);
      return o ? refOf(o) : undefined;
    },
    async all(ctx) {
      return (await deps.store.list(key(ctx))).map(refOf);
    },
    scopes: (ctx, d) => deps.dashboards.scopes(ctx, d.uid, d.object.metadata.annotations[FOLDER_ANNOTATION]),
    canRead: (ctx, d) => canRead(deps.dashboards, ctx, d.object),
    async may(ctx, d, action, extra = []) {
      if (hasPermission(ctx.identity.permissions, action, [...extra, `dashboards:uid:${d.uid}`])) return true;
      return hasPermission(ctx.identity.permissions, action, await access.scopes(ctx, d));
    },
    async revision(ctx) {
      return `${await deps.store.revision(key(ctx))}:${await deps.store.revision(ctx.bucket("folder.svc.app", "folders"))}`;
    },
    async folderTitle(ctx, uid) {
      const f = await deps.store.get(ctx.bucket("folder.svc.app", "folders"), uid);
      return f ? String(f.spec.title ?? "") : undefined;
    },
  };
  return access;
}
