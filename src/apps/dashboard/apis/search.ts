// GET /api/search: folders and dashboards of the caller's organization that
// the caller may read, from the in-memory store (spec "Search (legacy)").
import type { Context } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { queryParams } from "../../../lib/http/query.ts";
import { identityOf, type Router } from "../access/guard.ts";
import type { NamespaceContext } from "../core/identity/namespaces.ts";
import type { StarStore } from "../core/content/stars.ts";
import { createKindContext } from "./context.ts";
import { FOLDER_ANNOTATION, INTERNAL_ID_LABEL, type KindDescriptor } from "./kind.ts";
import { canRead } from "./objects.ts";
import type { ResourceStore, StoredObject } from "./store.ts";
import { dashboardUrl, folderUrl, slugify } from "./urls.ts";

export interface SearchDeps {
  stars: StarStore;
  store: ResourceStore;
  namespaces: NamespaceContext;
  folders: KindDescriptor;
  dashboards: KindDescriptor;
  now: () => number;
}


/** repeated and comma-separated values of a query parameter */
function many(c: Context, name: string): string[] {
  return (queryParams(c).all(name) ?? []).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "");
}

/** the spec: limit defaults to 1000, at most 5000; invalid values fall back to 1000 */
function limitOf(raw: string | undefined): number {
  const n = Number(raw);
  return raw !== undefined && /^\d+$/.test(raw) && n >= 1 && n <= 5000 ? n : 1000;
}

interface Indexed {
  o: StoredObject;
  /** lower-cased title, for the query filter */
  title: string;
  /** the parts of its search hit that depend only on the stored objects, made on first use */
  hit?: Record<string, unknown>;
}

/**
 * Objects of a bucket ordered by title (case-insensitive), rebuilt only when
 * the bucket changes: a search then filters a ready list instead of sorting
 * every object on every request.
 */
function titleIndex(store: ResourceStore) {
  const cache = new Map<string, { revision: string; items: Indexed[] }>();
  /** `also`: another bucket whose changes invalidate this index too (folders, for the folder fields of dashboard hits) */
  return async (key: { group: string; resource: string; namespace: string }, also?: typeof key): Promise<Indexed[]> => {
    const id = `${key.group}/${key.resource}/${key.namespace}`;
    const revision = `${await store.revision(key)}:${also ? await store.revision(also) : ""}`;
    const hit = cache.get(id);
    if (hit && hit.revision === revision) return hit.items;
    const items = (await store.list(key))
      .map((o) => ({ o, title: String(o.spec.title ?? "").toLowerCase() }))
      .sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : a.o.metadata.name < b.o.metadata.name ? -1 : 1));
    cache.set(id, { revision, items });
    return items;
  };
}

export function registerSearch(r: Router, deps: SearchDeps): void {
  const indexed = titleIndex(deps.store);
  const handler = async (c: Context) => {
    const identity = identityOf(c);
    const ctx = createKindContext(identity, identity.orgId, deps.store, deps.namespaces, deps.now);
    const ids = many(c, "dashboardIds");
    const uids = [...many(c, "dashboardUIDs"), ...many(c, "dashboardUID")];
    if (ids.length && uids.length) throw new ApiError(400, "search supports UIDs or IDs, not both");
    const params = queryParams(c);
    const query = (params.one("query") ?? "").toLowerCase();
    const tags = many(c, "tag");
    const type = params.one("type");
    const folderUids = params.all("folderUIDs") === undefined ? undefined : many(c, "folderUIDs").map((f) => (f === "general" ? "" : f));
    if (params.all("folderUIDs") !== undefined && folderUids!.length === 0) folderUids!.push("");
    const starredOnly = params.one("starred") === "true";
    const limit = limitOf(params.one("limit"));
    const page = Math.max(1, Number.parseInt(params.one("page") ?? "1", 10) || 1);

    const stars = identity.kind === "user" ? await deps.stars.list(identity.user.id, identity.orgId) : [];
    const starred = new Set(stars.map((s) => `${s.kind}/${s.name}`));
    const folders = await indexed(ctx.bucket(deps.folders.group, deps.folders.resource));
    const folderByName = new Map(folders.map((f) => [f.o.metadata.name, f.o]));

    const hit = (entry: Indexed, kind: "Folder" | "Dashboard") => {
      entry.hit ??= staticHit(entry.o, kind);
      return { ...entry.hit, orgId: identity.orgId, isStarred: starred.has(`${kind}/${entry.o.metadata.name}`) };
    };
    const staticHit = (o: StoredObject, kind: "Folder" | "Dashboard") => {
      const title = String(o.spec.title ?? "");
      const uid = o.metadata.name;
      const parent = o.metadata.annotations[FOLDER_ANNOTATION];
      const folder = parent ? folderByName.get(parent) : undefined;
      return {
        id: Number(o.metadata.labels[INTERNAL_ID_LABEL]),
        uid,
        title,
        uri: `db/${slugify(title)}`,
        url: kind === "Folder" ? folderUrl(uid, title) : dashboardUrl(uid, title),
        slug: slugify(title),
        type: kind === "Folder" ? "dash-folder" : "dash-db",
        tags: [...((o.spec.tags as string[] | undefined) ?? [])].sort(),
        ...(kind === "Dashboard" && folder
          ? {
              folderId: Number(folder.metadata.labels[INTERNAL_ID_LABEL]),
              folderUid: folder.metadata.name,
              folderTitle: String(folder.spec.title ?? ""),
              folderUrl: folderUrl(folder.metadata.name, String(folder.spec.title ?? "")),
            }
          : {}),
      };
    };

    const keep = ({ o, title }: Indexed, kind: "Folder" | "Dashboard") => {
      if (query && !title.includes(query)) return false;
      if (tags.length) {
        const own = (o.spec.tags as string[] | undefined) ?? [];
        if (!tags.every((t) => own.includes(t))) return false;
      }
      if (ids.length && !ids.includes(o.metadata.labels[INTERNAL_ID_LABEL] ?? "")) return false;
      if (uids.length && !uids.includes(o.metadata.name)) return false;
      if (folderUids && !folderUids.includes(o.metadata.annotations[FOLDER_ANNOTATION] ?? "")) return false;
      if (starredOnly && !starred.has(`${kind}/${o.metadata.name}`)) return false;
      return true;
    };

    const results: ReturnType<typeof hit>[] = [];
    const end = page * limit;
    // folders first, then dashboards, each by title (the real product's order)
    if (type !== "dash-db" && !ids.length && !uids.length && !tags.length) {
      for (const f of folders) {
        if (keep(f, "Folder") && (await canRead(deps.folders, ctx, f.o))) results.push(hit(f, "Folder"));
        if (results.length >= end) break;
      }
    }
    if (type !== "dash-folder" && results.length < end) {
      const folderBucket = ctx.bucket(deps.folders.group, deps.folders.resource);
      for (const d of await indexed(ctx.bucket(deps.dashboards.group, deps.dashboards.resource), folderBucket)) {
        if (keep(d, "Dashboard") && (await canRead(deps.dashboards, ctx, d.o))) results.push(hit(d, "Dashboard"));
        if (results.length >= end) break;
      }
    }
    return c.json(results.slice((page - 1) * limit, end));
  };
  r.get("/api/search", { signedIn: true }, handler);
}
