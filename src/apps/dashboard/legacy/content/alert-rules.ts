// /api/v1/provisioning/alert-rules: create, list, get and delete rules that
// live in folders (the real product's provisioning API, minimal).
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { ApiError } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import { createKindContext } from "../../apis/context.ts";
import type { KindDescriptor } from "../../apis/kind.ts";
import { requirePermission } from "../../apis/objects.ts";
import type { ResourceStore } from "../../apis/store.ts";
import type { AlertRuleStore } from "../../core/content/alert-rules.ts";
import type { NamespaceContext } from "../../core/identity/namespaces.ts";

const RuleIn = type({
  "uid?": "string",
  title: "string > 0",
  ruleGroup: "string > 0",
  folderUID: "string > 0",
  condition: "string > 0",
  data: "unknown[] > 0",
  "noDataState?": "string",
  "execErrState?": "string",
  "for?": "string",
  "annotations?": "Record<string, string>",
  "labels?": "Record<string, string>",
});

export interface AlertRuleDeps {
  rules: AlertRuleStore;
  store: ResourceStore;
  folders: KindDescriptor;
  namespaces: NamespaceContext;
  now: () => number;
}

export function registerAlertRules(r: Router, deps: AlertRuleDeps): void {
  const base = "/api/v1/provisioning/alert-rules";
  /** the scopes of the folder a rule lives in */
  const folderScopes = async (c: Context, folderUid: string) => {
    const id = identityOf(c);
    const ctx = createKindContext(id, id.orgId, deps.store, deps.namespaces, deps.now);
    const folder = await deps.store.get(ctx.bucket(deps.folders.group, deps.folders.resource), folderUid);
    if (!folder) throw new ApiError(400, `folder "${folderUid}" not found`);
    return { ctx, scopes: await deps.folders.scopes(ctx, folderUid, folder.metadata.annotations["svc.app/folder"]) };
  };

  r.post(base, { action: "alert.rules:create" }, async (c) => {
    const body = await parseBody(c, RuleIn);
    const { ctx, scopes } = await folderScopes(c, body.folderUID);
    await requirePermission(deps.folders, ctx, "alert.rules:create", scopes, body.folderUID);
    return c.json(await deps.rules.create(identityOf(c).orgId, body), 201);
  });

  r.get(base, { action: "alert.rules:read" }, async (c) => c.json(await deps.rules.list(identityOf(c).orgId)));

  r.get(`${base}/:uid`, { action: "alert.rules:read" }, async (c) => c.json(await deps.rules.get(identityOf(c).orgId, c.req.param("uid")!)));

  r.delete(`${base}/:uid`, { action: "alert.rules:delete" }, async (c) => {
    const rule = await deps.rules.get(identityOf(c).orgId, c.req.param("uid")!);
    const { ctx, scopes } = await folderScopes(c, String(rule.folderUID));
    await requirePermission(deps.folders, ctx, "alert.rules:delete", scopes, String(rule.folderUID));
    await deps.rules.delete(identityOf(c).orgId, String(rule.uid));
    return c.body(null, 204);
  });
}
