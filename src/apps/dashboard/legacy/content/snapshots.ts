// /api/snapshots and /api/dashboard/snapshots: dashboard snapshots in the
// real product's shapes. The key is the capability to read a snapshot (any
// signed-in caller who has it); the delete key, returned once at creation,
// deletes it; an org Admin or the snapshot's creator may delete by key.
import type { Context } from "hono";
import { type } from "../../../../lib/arktype.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { positiveInt, queryParams } from "../../../../lib/http/query.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { Snapshot, SnapshotStore } from "../../core/content/snapshots.ts";

const SnapshotIn = type({
  dashboard: "Record<string, unknown>",
  "name?": "string",
  "expires?": "number",
  "external?": "boolean",
  "key?": "string",
  "deleteKey?": "string",
});

export interface SnapshotDeps {
  snapshots: SnapshotStore;
  /** the dashboard server's root URL (ends with /) */
  rootUrl: () => string;
  now: () => number;
}

const notFound = () => new ApiError(404, "Dashboard snapshot not found");
const DELETED = "Snapshot deleted. It might take an hour before it's cleared from any CDN caches.";
/** the real product's "never" (fifty years on) */
const NEVER_MS = 50 * 365 * 24 * 3600 * 1000;

export function registerSnapshots(r: Router, deps: SnapshotDeps): void {
  const expiresOf = (s: Snapshot) => (s.expires ?? new Date(s.created.getTime() + NEVER_MS)).toISOString();

  r.post("/api/snapshots", { action: "snapshots:create" }, async (c) => {
    const body = await parseBody(c, SnapshotIn);
    if (body.external) throw new ApiError(403, "External dashboard creation is disabled");
    const id = identityOf(c);
    const s = await deps.snapshots.create(id.orgId, id.user.id, body, new Date(deps.now()));
    return c.json({
      deleteKey: s.deleteKey,
      deleteUrl: `${deps.rootUrl()}api/snapshots-delete/${s.deleteKey}`,
      key: s.key,
      url: `${deps.rootUrl()}dashboard/snapshot/${s.key}`,
      id: s.id,
    });
  }, { body: SnapshotIn, responses: { 409: "the key or delete key is taken" } });

  r.get("/api/snapshots/:key", { signedIn: true }, async (c) => {
    const s = await deps.snapshots.byKey(c.req.param("key")!, new Date(deps.now()));
    if (!s) throw notFound();
    return c.json({
      meta: {
        isSnapshot: true, type: "snapshot", canSave: false, canEdit: false, canStar: false, canShare: false,
        slug: "", expires: expiresOf(s), created: s.created.toISOString(), updated: s.updated.toISOString(),
        updatedBy: "", createdBy: "", version: 0, hasAcl: false, isFolder: false, folderId: 0, folderUid: "",
        folderTitle: "", folderUrl: "", provisioned: false, provisionedExternalId: "",
      },
      dashboard: s.dashboard,
    });
  });

  r.get("/api/dashboard/snapshots", { signedIn: true }, async (c) => {
    const id = identityOf(c);
    const params = queryParams(c);
    // an org Admin sees the organization's snapshots, anyone else their own (the real product's rule)
    const own = id.orgRole === "Admin" ? undefined : id.user.id;
    const list = await deps.snapshots.list(id.orgId, own, params.one("query") ?? "", Math.min(positiveInt(params.one("limit"), 1000), 5000), new Date(deps.now()));
    return c.json(list.map((s) => ({
      id: s.id, name: s.name, key: s.key, orgId: s.orgId, userId: s.userId, external: false, externalUrl: "",
      expires: expiresOf(s), created: s.created.toISOString(), updated: s.updated.toISOString(),
    })));
  });

  const remove = async (s: Snapshot | undefined) => {
    if (!s) throw notFound();
    await deps.snapshots.delete(s.id);
    return { message: DELETED, id: s.id };
  };

  r.delete("/api/snapshots/:key", { action: "snapshots:delete" }, async (c) => {
    const id = identityOf(c);
    const s = await deps.snapshots.byKey(c.req.param("key")!);
    if (s && (s.orgId !== id.orgId || (id.orgRole !== "Admin" && s.userId !== id.user.id))) throw new ApiError(403, "Access denied to this snapshot");
    return c.json(await remove(s));
  });

  r.get("/api/snapshots-delete/:deleteKey", { action: "snapshots:delete" }, async (c: Context) =>
    c.json(await remove(await deps.snapshots.byDeleteKey(c.req.param("deleteKey")!))),
  );
}
