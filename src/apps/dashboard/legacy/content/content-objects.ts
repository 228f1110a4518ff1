// What the legacy folder and dashboard routes share: the caller's kind
// context, the /apis objects seen in the legacy shapes (numeric ids, logins,
// folder DTOs, dashboard JSON with id/uid/version), and the machinery's
// Status errors turned into the legacy family's bodies. The objects are those
// of /apis (one store, one set of rules), so the two families always agree.
import type { Context } from "hono";
import { ApiError } from "../../../../lib/errors.ts";
import { identityOf } from "../../access/guard.ts";
import { createKindContext } from "../../apis/context.ts";
import { CREATED_BY, FOLDER_ANNOTATION, INTERNAL_ID_LABEL, UPDATED_AT, UPDATED_BY, type KindContext, type KindDescriptor } from "../../apis/kind.ts";
import { folderUrl } from "../../apis/urls.ts";
import type { ResourceStore, StoredObject } from "../../apis/store.ts";
import type { AccessModel } from "../../core/identity/access-model.ts";
import type { NamespaceContext } from "../../core/identity/namespaces.ts";
import { hasPermission } from "../../core/identity/permissions.ts";

export interface ContentDeps {
  store: ResourceStore;
  namespaces: NamespaceContext;
  folders: KindDescriptor;
  dashboards: KindDescriptor;
  model: AccessModel;
  now: () => number;
}

export const kindContext = (c: Context, deps: ContentDeps): KindContext => {
  const identity = identityOf(c);
  return createKindContext(identity, identity.orgId, deps.store, deps.namespaces, deps.now);
};

export const idOf = (o: StoredObject) => Number(o.metadata.labels[INTERNAL_ID_LABEL] ?? 0);
export const titleOf = (o: StoredObject) => String(o.spec.title ?? "");
export const parentOf = (o: StoredObject) => o.metadata.annotations[FOLDER_ANNOTATION] ?? "";

/** the real product's legacy uid rule: letters, digits, '-' and '_', at most 40 */
export function checkLegacyUid(uid: string, folder: boolean): void {
  if (!/^[a-zA-Z0-9_-]*$/.test(uid)) {
    throw new ApiError(400, "uid contains illegal characters", folder ? { messageId: "folder.invalid-uid-chars" } : {});
  }
  if (uid.length > 40) throw new ApiError(400, "uid too long, max 40 characters", folder ? { messageId: "folder.uid-too-long" } : {});
}

/** every object of a kind in the caller's organization with this deprecated numeric id */
export async function objectById(ctx: KindContext, d: KindDescriptor, id: number): Promise<StoredObject | undefined> {
  return ctx.store.byId(ctx.bucket(d.group, d.resource), id);
}

/** "user:<uid>" → the login the legacy API shows (the real product's "Anonymous" for one it no longer knows) */
export async function loginOf(model: AccessModel, actor: string | undefined): Promise<string> {
  const uid = actor?.slice(actor.indexOf(":") + 1);
  if (!uid) return "Anonymous";
  const snap = await model.snapshot();
  let byUid = logins.get(snap.users);
  if (!byUid) {
    byUid = new Map([...snap.users.values()].map((u) => [u.uid, u.login]));
    logins.set(snap.users, byUid);
  }
  return byUid.get(uid) ?? "Anonymous";
}
const logins = new WeakMap<object, Map<string, string>>();

/**
 * Runs a machinery call and turns its Status errors into the legacy bodies,
 * by status; errors the legacy family shares with /apis (nesting, alert
 * rules, messages with a messageId) pass through as they are. A field
 * problem names the field as the legacy body calls it (`fields` renames
 * spec paths; "spec." is dropped otherwise).
 */
export async function legacyErrors<T>(
  run: Promise<T>, byStatus: Partial<Record<number, () => ApiError>>, fields: Record<string, string> = {},
): Promise<T> {
  try {
    return await run;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // the product's own structured errors (folder.accessEscalation, folder.maximum-depth-reached) keep their words
    if (err.options.messageId) throw err;
    const causes = err.options.details?.causes as Array<{ message: string; field?: string }> | undefined;
    const mapped = byStatus[err.status]?.();
    if (mapped) throw mapped;
    const cause = causes?.[0];
    if (cause && err.status === 400) {
      const field = fields[cause.field ?? ""] ?? (cause.field ?? "").replace(/^spec\./, "");
      throw new ApiError(400, !field || cause.message.includes(field) ? cause.message : `${field}: ${cause.message}`);
    }
    throw err;
  }
}

export const folderErrors = {
  notFound: () => new ApiError(404, "folder not found", { body: { status: "not-found" } }),
  versionMismatch: () => new ApiError(412, "the folder has been changed by someone else", { body: { status: "version-mismatch" } }),
  exists: () => new ApiError(409, "a folder/dashboard with the same uid already exists"),
  denied: () => new ApiError(403, "Access denied"),
};

/** the folder as GET /api/folders/:uid shows it, with its parents when folders nest */
export async function folderDto(ctx: KindContext, deps: ContentDeps, o: StoredObject, nested: boolean): Promise<Record<string, unknown>> {
  const scopes = await deps.folders.scopes(ctx, o.metadata.name, parentOf(o) || undefined);
  const may = (action: string) => hasPermission(ctx.identity.permissions, action, scopes);
  const parents: Record<string, unknown>[] = [];
  if (nested) {
    const chain = (await ctx.folderChain(parentOf(o) || undefined)).reverse();
    for (const name of chain) {
      const p = await ctx.store.get(ctx.bucket(deps.folders.group, deps.folders.resource), name);
      if (p) parents.push(await basicFolder(ctx, deps, p));
    }
  }
  return {
    ...(await basicFolder(ctx, deps, o)),
    hasAcl: false,
    canSave: may("folders:write"),
    canEdit: may("folders:write"),
    canAdmin: may("folders.permissions:write"),
    canDelete: may("folders:delete"),
    ...(nested ? { parents } : {}),
  };
}

async function basicFolder(ctx: KindContext, deps: ContentDeps, o: StoredObject): Promise<Record<string, unknown>> {
  const parent = parentOf(o);
  return {
    id: idOf(o),
    uid: o.metadata.name,
    orgId: ctx.orgId,
    title: titleOf(o),
    ...(typeof o.spec.description === "string" ? { description: o.spec.description } : {}),
    url: folderUrl(o.metadata.name, titleOf(o)),
    createdBy: await loginOf(deps.model, o.metadata.annotations[CREATED_BY]),
    created: o.metadata.creationTimestamp,
    updatedBy: await loginOf(deps.model, o.metadata.annotations[UPDATED_BY]),
    updated: o.metadata.annotations[UPDATED_AT] ?? o.metadata.creationTimestamp,
    version: o.metadata.generation,
    ...(parent ? { parentUid: parent } : {}),
  };
}

/** the dashboard JSON of the legacy API: the spec with its uid, numeric id and version */
export function dashboardJson(o: StoredObject): Record<string, unknown> {
  return { ...o.spec, id: idOf(o), uid: o.metadata.name, version: o.metadata.generation };
}
