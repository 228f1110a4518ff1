// GET /api/search: folders and dashboards of the caller's organization that
// the caller may read, from the in-memory store (spec "Search (legacy)").
import type { Context } from "hono";
import { ApiError } from "../../../lib/errors.ts";
import { identityOf, type Router } from "../access/guard.ts";
import type { NamespaceContext } from "../core/namespaces.ts";
import { listStars } from "../core/stars.ts";
import type { PGlite } from "@electric-sql/pglite";
import { createKindContext } from "./context.ts";
import { FOLDER_ANNOTATION, INTERNAL_ID_LABEL, type KindDescriptor } from "./kind.ts";
import { canRead } from "./objects.ts";
import type { ResourceStore, StoredObject } from "./store.ts";

export interface SearchDeps {
  pg: PGlite;
  store: ResourceStore;
  namespaces: NamespaceContext;
  folders: KindDescriptor;
  dashboards: KindDescriptor;
  now: () => number;
}

export function slugify(title: string): string {
  return title.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
}

export const dashboardUrl = (uid: string, title: string) => `/d/${uid}/${slugify(title)}`;
export const folderUrl = (uid: string, title: string) => `/dashboards/f/${uid}/${slugify(title)}`;

/** repeated and comma-separated values of a query parameter */
function many(c: Context, name: string): string[] {
  return (c.req.queries(name) ?? []).flatMap((v) => v.split(",")).map((v) => v.trim()).filter((v) => v !== "");
}

/** the spec: limit defaults to 1000, at most 5000; invalid values fall back to 1000 */
function limitOf(raw: string | undefined): number {
  const n = Number(raw);
  return raw !== undefined && /^\d+$/.test(raw) && n >= 1 && n <= 5000 ? n : 1000;
}

export function registerSearch(r: Router, deps: SearchDeps): void {
  const handler = async (c: Context) => {
    const identity = identityOf(c);
    const ctx = createKindContext(identity, identity.orgId, deps.store, deps.namespaces, deps.now);
    const ids = many(c, "dashboardIds");
    const uids = [...many(c, "dashboardUIDs"), ...many(c, "dashboardUID")];
    if (ids.length && uids.length) throw new ApiError(400, "search supports UIDs or IDs, not both");
    const query = (c.req.query("query") ?? "").toLowerCase();
    const tags = many(c, "tag");
    const type = c.req.query("type");
    const folderUids = c.req.queries("folderUIDs") === undefined ? undefined : many(c, "folderUIDs").map((f) => (f === "general" ? "" : f));
    if (c.req.queries("folderUIDs") !== undefined && folderUids!.length === 0) folderUids!.push("");
    const starredOnly = c.req.query("starred") === "true";
    const limit = limitOf(c.req.query("limit"));
    const page = Math.max(1, Number.parseInt(c.req.query("page") ?? "1", 10) || 1);

    const stars = identity.kind === "user" ? await listStars(deps.pg, identity.user.id, identity.orgId) : [];
    const starred = new Set(stars.map((s) => `${s.kind}/${s.name}`));
    const folders = await deps.store.list(ctx.bucket(deps.folders.group, deps.folders.resource));
    const folderByName = new Map(folders.map((f) => [f.metadata.name, f]));

    const hit = (o: StoredObject, kind: "Folder" | "Dashboard") => {
      const title = String(o.spec.title ?? "");
      const uid = o.metadata.name;
      const parent = o.metadata.annotations[FOLDER_ANNOTATION];
      const folder = parent ? folderByName.get(parent) : undefined;
      return {
        id: Number(o.metadata.labels[INTERNAL_ID_LABEL]),
        uid,
        orgId: identity.orgId,
        title,
        uri: `db/${slugify(title)}`,
        url: kind === "Folder" ? folderUrl(uid, title) : dashboardUrl(uid, title),
        slug: slugify(title),
        type: kind === "Folder" ? "dash-folder" : "dash-db",
        tags: [...((o.spec.tags as string[] | undefined) ?? [])].sort(),
        isStarred: starred.has(`${kind}/${uid}`),
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

    const keep = (o: StoredObject, kind: "Folder" | "Dashboard") => {
      const title = String(o.spec.title ?? "").toLowerCase();
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

    const byTitle = (a: StoredObject, b: StoredObject) =>
      String(a.spec.title ?? "").toLowerCase().localeCompare(String(b.spec.title ?? "").toLowerCase()) ||
      a.metadata.name.localeCompare(b.metadata.name);
    const results: ReturnType<typeof hit>[] = [];
    // folders first, then dashboards, each by title (the real product's order)
    if (type !== "dash-db" && !ids.length && !uids.length && !tags.length) {
      for (const f of [...folders].sort(byTitle)) if (keep(f, "Folder") && (await canRead(deps.folders, ctx, f))) results.push(hit(f, "Folder"));
    }
    if (type !== "dash-folder") {
      const dashboards = await deps.store.list(ctx.bucket(deps.dashboards.group, deps.dashboards.resource));
      for (const d of [...dashboards].sort(byTitle)) if (keep(d, "Dashboard") && (await canRead(deps.dashboards, ctx, d))) results.push(hit(d, "Dashboard"));
    }
    return c.json(results.slice((page - 1) * limit, page * limit));
  };
  r.get("/api/search", { signedIn: true }, handler);
  r.get("/api/search/", { signedIn: true }, handler);
}
