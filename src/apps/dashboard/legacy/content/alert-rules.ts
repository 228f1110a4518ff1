// /api/v1/provisioning/alert-rules: the real product's provisioning API for
// single rules (list, get, create, update, delete, export). Writes need
// alert.provisioning:write (Admin), as in the real product; a rule's folder
// must exist. X-Disable-Provenance leaves a rule editable in the UI.
import { parseBody } from "../../../../lib/http/validate.ts";
import type { Context } from "hono";
import { accessDenied, identityOf, type Router } from "../../access/guard.ts";
import { exportRule, shapeRule } from "../../core/content/alert-rule-model.ts";
import { groupNotFound, type AlertRuleStore } from "../../core/content/alert-rules.ts";
import { formatPromDuration, invalidRule } from "../../core/content/alerting-common.ts";
import { exportResponse, folderTitle, mayReadRulesIn, provenanceOf, RuleIn, type FolderDeps } from "./alerting-shared.ts";

export interface AlertRuleDeps extends FolderDeps {
  rules: AlertRuleStore;
}

export function registerAlertRules(r: Router, deps: AlertRuleDeps): void {
  const base = "/api/v1/provisioning/alert-rules";
  /** the real product's ensureNamespace: a rule's folder must exist */
  const requireFolder = async (orgId: number, uid: string | undefined) => {
    if (uid && (await folderTitle(deps, orgId, uid)) === undefined) throw invalidRule("folder does not exist");
  };

  r.post(base, { action: "alert.provisioning:write" }, async (c) => {
    const body = await parseBody(c, RuleIn);
    const orgId = identityOf(c).orgId;
    await requireFolder(orgId, body.folderUID);
    return c.json(await deps.rules.create(orgId, body, provenanceOf(c)), 201);
  }, { body: RuleIn, responses: { 409: "an alert rule with this uid already exists" } });

  // only the rules of folders the caller may read
  r.get(base, { action: "alert.rules:read" }, async (c) => {
    const rules = await deps.rules.list(identityOf(c).orgId);
    const readable = new Map<string, boolean>();
    const out = [];
    for (const rule of rules) {
      const folder = String(rule.folderUID);
      if (!readable.has(folder)) readable.set(folder, await mayReadRulesIn(c, deps, folder));
      if (readable.get(folder)) out.push(rule);
    }
    return c.json(out);
  });

  /** the rule of the path in a folder the caller may read */
  const readableRow = async (c: Context) => {
    const row = await deps.rules.row(identityOf(c).orgId, c.req.param("uid")!);
    if (row && !(await mayReadRulesIn(c, deps, row.folder_uid))) throw accessDenied("alert.rules:read");
    return row;
  };

  // a rule that is not there: 404 without a body, as the real product answers
  r.get(`${base}/:uid`, { action: "alert.rules:read" }, async (c) => {
    const row = await readableRow(c);
    return row ? c.json(shapeRule(row)) : c.body(null, 404);
  });

  r.get(`${base}/:uid/export`, { action: "alert.rules:read" }, async (c) => {
    const orgId = identityOf(c).orgId;
    const row = await readableRow(c);
    if (!row) throw groupNotFound();
    const folder = (await folderTitle(deps, orgId, row.folder_uid)) ?? row.folder_uid;
    return exportResponse(c, {
      apiVersion: 1,
      groups: [{ orgId, name: row.rule_group, folder, interval: formatPromDuration(row.interval_seconds * 1000), rules: [exportRule(row)] }],
    });
  });

  r.put(`${base}/:uid`, { action: "alert.provisioning:write" }, async (c) => {
    const body = await parseBody(c, RuleIn);
    const orgId = identityOf(c).orgId;
    await requireFolder(orgId, body.folderUID);
    const updated = await deps.rules.update(orgId, c.req.param("uid")!, body, provenanceOf(c));
    return updated ? c.json(updated) : c.body(null, 404);
  }, { body: RuleIn });

  r.delete(`${base}/:uid`, { action: "alert.provisioning:write" }, async (c) => {
    await deps.rules.delete(identityOf(c).orgId, c.req.param("uid")!, provenanceOf(c));
    return c.body(null, 204);
  });
}
