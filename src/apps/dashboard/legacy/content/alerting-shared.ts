// What the alerting provisioning routes share (not a route file): the
// provenance a write asks for, the folder a rule lives in, the rule body's
// schema and the export answer (YAML by default, JSON when asked).
import type { Context } from "hono";
import { stringify as toYaml } from "yaml";
import { type } from "../../../../lib/arktype.ts";
import { queryParams } from "../../../../lib/http/query.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import { createKindContext } from "../../apis/context.ts";
import { FOLDER_ANNOTATION, type KindDescriptor } from "../../apis/kind.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import type { ResourceStore } from "../../apis/store.ts";
import type { Provenance } from "../../core/content/alerting-common.ts";
import { namespaceOf, type NamespaceContext } from "../../core/identity/namespaces.ts";

/** the real product's X-Disable-Provenance: present (whatever its value), the object stays editable in the UI */
export const provenanceOf = (c: Context): Provenance => (c.req.header("X-Disable-Provenance") === undefined ? "api" : "");

/** a rule as clients write it: the types here, the rest in the rule store */
export const RuleIn = type({
  "uid?": "string",
  "title?": "string",
  "ruleGroup?": "string",
  "folderUID?": "string",
  "condition?": "string",
  "data?": "unknown[]",
  "noDataState?": "string",
  "execErrState?": "string",
  "for?": "string",
  "keep_firing_for?": "string",
  "annotations?": "Record<string, string>",
  "labels?": "Record<string, string>",
  "isPaused?": "boolean",
  "notification_settings?": "Record<string, unknown>",
  "record?": "Record<string, unknown>",
  "missingSeriesEvalsToResolve?": "number.integer",
});

export interface FolderDeps {
  store: ResourceStore;
  folders: KindDescriptor;
  namespaces: NamespaceContext;
}

/** the title of a folder of the organization, undefined when there is no such folder */
export async function folderTitle(deps: FolderDeps, orgId: number, uid: string): Promise<string | undefined> {
  const bucket = { group: deps.folders.group, resource: deps.folders.resource, namespace: namespaceOf(orgId, deps.namespaces) };
  const folder = await deps.store.get(bucket, uid);
  return folder ? String(folder.spec.title ?? uid) : undefined;
}

/**
 * May the caller read the rules of this folder: alert.rules:read and
 * folders:read on it or a folder above (a Viewer reaches a folder's rules
 * through the folder's managed permissions, as in the real product)
 */
export async function mayReadRulesIn(c: Context, deps: FolderDeps, folderUid: string): Promise<boolean> {
  const identity = identityOf(c);
  const ctx = createKindContext(identity, identity.orgId, deps.store, deps.namespaces, Date.now);
  const folder = await deps.store.get(ctx.bucket(deps.folders.group, deps.folders.resource), folderUid);
  const scopes = await deps.folders.scopes(ctx, folderUid, folder?.metadata.annotations[FOLDER_ANNOTATION]);
  return hasPermission(identity.permissions, "alert.rules:read", scopes) && hasPermission(identity.permissions, "folders:read", scopes);
}

/** an export in the provisioning file format: YAML unless the Accept header or ?format asks for JSON; ?download=true as a file */
export function exportResponse(c: Context, file: Record<string, unknown>): Response {
  const q = queryParams(c);
  const asked = q.one("format");
  const json = asked === "json" || (asked !== "yaml" && (c.req.header("Accept") ?? "").includes("json"));
  const ext = json ? "json" : "yaml";
  const headers: Record<string, string> = { "Content-Type": json ? "application/json" : "text/yaml" };
  if (q.one("download") === "true") headers["Content-Disposition"] = `attachment;filename=export.${ext}`;
  return c.body(json ? JSON.stringify(file) : toYaml(file), 200, headers);
}

/** DELETE <base>/:name of a mute timing or template: the caller's provenance, ?version checked when given, 204 */
export function routeDeleteByName(
  r: Router, base: string, remove: (orgId: number, name: string, provenance: Provenance, version: string | undefined) => Promise<void>,
): void {
  r.delete(`${base}/:name`, { action: "alert.provisioning:write" }, async (c) => {
    await remove(identityOf(c).orgId, c.req.param("name")!, provenanceOf(c), queryParams(c).one("version") || undefined);
    return c.body(null, 204);
  });
}
