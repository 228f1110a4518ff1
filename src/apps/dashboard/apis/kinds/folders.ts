// Folders (folder.svc.app): spec.title, a parent through the svc.app/folder
// annotation, nesting up to a maximum depth without cycles; deleting one
// removes its subfolders and their dashboards (spec state table).
import { type } from "../../../../lib/arktype.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import { FOLDER_ANNOTATION, statusErrors, type KindContext, type KindDescriptor } from "../kind.ts";
import type { DashboardDependents } from "../../core/content/dashboard-dependents.ts";
import type { LibraryElementStore } from "../../core/content/library-elements.ts";
import type { StarStore } from "../../core/content/stars.ts";
import { checkSpec, checkTitle } from "../spec-check.ts";
import { NAME_LIMITS } from "../../core/identity/name-limits.ts";
import type { StoredObject } from "../store.ts";
import type { ManagedPermissionHooks } from "./dashboards.ts";

const FolderSpec = type({ title: "string", "description?": "string" });
const RESERVED = ["general", "sharedwithme"];

export const FOLDERS = { group: "folder.svc.app", resource: "folders" };

export interface FolderOptions {
  nested: boolean;
  maxDepth: number;
  alertRules: { countIn(orgId: number, folders: string[]): Promise<number>; deleteIn(orgId: number, folders: string[]): Promise<void> };
  /** library elements live in folders and go with them, unless a dashboard elsewhere uses one */
  libraryElements?: Pick<LibraryElementStore, "checkFoldersDeletable" | "deleteInFolders" | "countIn">;
  dependents?: DashboardDependents;
  stars?: Pick<StarStore, "forget">;
  /** managed permissions: a new folder's defaults, dropped with it and what it held */
  permissions?: ManagedPermissionHooks;
}

const uidScope = (name: string) => `folders:uid:${name}`;

/** every folder below `name`, deepest last */
export async function descendants(ctx: KindContext, name: string): Promise<StoredObject[]> {
  const all = await ctx.store.list(ctx.bucket(FOLDERS.group, FOLDERS.resource));
  const children = new Map<string, StoredObject[]>();
  for (const f of all) {
    const parent = f.metadata.annotations[FOLDER_ANNOTATION];
    if (parent) children.set(parent, [...(children.get(parent) ?? []), f]);
  }
  const out: StoredObject[] = [];
  const walk = (n: string, depth: number) => {
    if (depth > 16) return;
    for (const c of children.get(n) ?? []) {
      out.push(c);
      walk(c.metadata.name, depth + 1);
    }
  };
  walk(name, 0);
  return out;
}

/** what a folder's permissions can give (the real product's canMove compares these) */
const MOVE_ACTIONS = [
  "folders:read", "folders:write", "folders:delete", "folders:create", "folders.permissions:read", "folders.permissions:write",
  "dashboards:read", "dashboards:write", "dashboards:create", "dashboards:delete", "dashboards.permissions:read", "dashboards.permissions:write",
];

/**
 * A folder may not move under one where the caller holds more than on the
 * folder itself: what the new parent grants would reach the folder, so an
 * Editor could move a folder under one they administer and take its
 * permissions over (the real product's folder.accessEscalation).
 */
async function refuseEscalation(ctx: KindContext, name: string, from: string | undefined, to: string): Promise<void> {
  const uid = (f: string) => `folders:uid:${f}`;
  const source = [name, ...(await ctx.folderChain(from))].map(uid);
  const target = (await ctx.folderChain(to)).map(uid);
  for (const action of MOVE_ACTIONS) {
    if (hasPermission(ctx.identity.permissions, action, target) && !hasPermission(ctx.identity.permissions, action, source)) {
      throw new ApiError(403, "user cannot move a folder to another folder where they have higher permissions", {
        messageId: "folder.accessEscalation", reason: "Forbidden",
      });
    }
  }
}

/** the resources /counts names, by the keys of the legacy /api/folders/:uid/counts */
const COUNTED: Record<string, { group: string; resource: string }> = {
  folder: FOLDERS,
  dashboard: { group: "dashboard.svc.app", resource: "dashboards" },
  librarypanel: { group: "sql-fallback", resource: "library_elements" },
  alertrule: { group: "sql-fallback", resource: "alertrules" },
};

/** what a folder holds, its subfolders' contents included: the /counts subresource and the legacy counts */
export async function folderCounts(ctx: KindContext, options: Pick<FolderOptions, "alertRules" | "libraryElements">, name: string) {
  const below = (await descendants(ctx, name)).map((f) => f.metadata.name);
  const names = new Set([name, ...below]);
  const dashboards = await ctx.store.list(ctx.bucket("dashboard.svc.app", "dashboards"));
  return {
    folder: below.length,
    dashboard: dashboards.filter((d) => names.has(d.metadata.annotations[FOLDER_ANNOTATION] ?? "")).length,
    librarypanel: (await options.libraryElements?.countIn(ctx.orgId, [...names])) ?? 0,
    alertrule: await options.alertRules.countIn(ctx.orgId, [...names]),
  };
}

export function folderKind(options: FolderOptions): KindDescriptor {
  const d: KindDescriptor = {
    ...FOLDERS,
    kind: "Folder",
    versions: [
      { name: "v1", stable: true, defaultOn: true },
      { name: "v1beta1", stable: false, defaultOn: false },
    ],
    specSchema: FolderSpec,
    maxNameLength: 40,
    inFolders: true,
    staleStatus: 412,
    deleteAlsoLocks: [{ group: "dashboard.svc.app", resource: "dashboards" }],
    actions: { read: "folders:read", create: "folders:create", write: "folders:write", delete: "folders:delete" },
    validateSpec(spec, name) {
      if (RESERVED.includes(name.toLowerCase())) {
        throw new ApiError(400, `"${name}" is a reserved folder uid`, { messageId: "folder.invalid-uid", reason: "BadRequest" });
      }
      const s = checkSpec(d, FolderSpec, spec, name);
      checkTitle(d, name, s.title, "folder", NAME_LIMITS.folderTitle);
      return s as Record<string, unknown>;
    },
    async scopes(ctx, name, parent) {
      return [name, ...(await ctx.folderChain(parent))].map(uidScope);
    },
    async createScopes(ctx, _name, parent) {
      return parent ? (await ctx.folderChain(parent)).map(uidScope) : [uidScope("general")];
    },
    async beforeWrite(ctx, next, previous) {
      const name = next.metadata.name;
      const parent = next.metadata.annotations[FOLDER_ANNOTATION];
      if (!parent || parent === previous?.metadata.annotations[FOLDER_ANNOTATION]) return;
      if (!options.nested) throw statusErrors.invalid(d, name, `metadata.annotations.${FOLDER_ANNOTATION}`, "nested folders are disabled");
      if (parent === name) throw new ApiError(400, "folder cannot be parent of itself", { reason: "BadRequest" });
      if (previous) await refuseEscalation(ctx, name, previous.metadata.annotations[FOLDER_ANNOTATION], parent);
      const chain = await ctx.folderChain(parent);
      if (chain.includes(name)) {
        throw new ApiError(400, "cannot move folder under its own descendant, this would create a circular reference", { reason: "BadRequest" });
      }
      // depth of the new parent's chain, this folder, and the deepest subfolder it carries along
      let height = 0;
      if (previous) {
        for (const f of await descendants(ctx, name)) {
          const below = (await ctx.folderChain(f.metadata.annotations[FOLDER_ANNOTATION])).indexOf(name) + 1;
          height = Math.max(height, below);
        }
      }
      if (chain.length + 1 + height > options.maxDepth) {
        throw new ApiError(400, `folder max depth exceeded, max depth is ${options.maxDepth}`, {
          messageId: "folder.maximum-depth-reached",
          reason: "BadRequest",
        });
      }
    },
    subresources: {
      counts: async (ctx, o, version) => ({
        kind: "DescendantCounts",
        apiVersion: `${FOLDERS.group}/${version}`,
        counts: Object.entries(await folderCounts(ctx, options, o.metadata.name)).map(([resource, count]) => ({ ...COUNTED[resource]!, count })),
      }),
      parents: async (ctx, o, version) => {
        const chain = await ctx.folderChain(o.metadata.name);
        const items: Array<Record<string, string>> = [];
        for (const name of chain.reverse()) {
          const f = await ctx.store.get(ctx.bucket(FOLDERS.group, FOLDERS.resource), name);
          if (!f) continue;
          const parent = f.metadata.annotations[FOLDER_ANNOTATION];
          items.push({ name, title: String(f.spec.title ?? ""), ...(parent ? { parent } : {}) });
        }
        return { kind: "FolderInfoList", apiVersion: `${FOLDERS.group}/${version}`, items };
      },
    },
    async afterWrite(ctx, o, previous) {
      if (!previous) await options.permissions?.addDefaults(ctx.orgId, "folders", o.metadata.name, ctx.identity.user.id, !o.metadata.annotations[FOLDER_ANNOTATION]);
    },
    async beforeDelete(ctx, object, query) {
      // the folder goes with everything inside it: subfolders, their dashboards
      // and alert rules; rules only when asked for (forceDeleteRules defaults to false)
      const folders = [object, ...(await descendants(ctx, object.metadata.name))];
      const names = new Set(folders.map((f) => f.metadata.name));
      const dashboards = ctx.bucket("dashboard.svc.app", "dashboards");
      const inside = (await ctx.store.list(dashboards)).filter((x) => names.has(x.metadata.annotations[FOLDER_ANNOTATION] ?? ""));
      const leaving = inside.map((x) => x.metadata.name);
      await options.libraryElements?.checkFoldersDeletable(ctx.orgId, [...names], leaving);
      const rules = await options.alertRules.countIn(ctx.orgId, [...names]);
      if (rules > 0) {
        if (query.get("forceDeleteRules") !== "true") {
          throw new ApiError(400, "folder cannot be deleted: folder contains alert rules", { reason: "BadRequest" });
        }
        await options.alertRules.deleteIn(ctx.orgId, [...names]);
      }
      await ctx.store.delete(dashboards, leaving);
      await options.dependents?.deleted(ctx.orgId, leaving);
      await options.permissions?.forget(ctx.orgId, "dashboards", leaving);
      await options.permissions?.forget(ctx.orgId, "folders", [...names]);
      await options.libraryElements?.deleteInFolders(ctx.orgId, [...names]);
      await options.stars?.forget(ctx.orgId, FOLDERS.group, "Folder", [...names]);
      await ctx.store.delete(ctx.bucket(FOLDERS.group, FOLDERS.resource), [...names].filter((n) => n !== object.metadata.name));
    },
  };
  return d;
}
