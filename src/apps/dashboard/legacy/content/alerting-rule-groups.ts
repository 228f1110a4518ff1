// /api/v1/provisioning/folder/:folderUid/rule-groups/:group: a group of
// alert rules read, replaced (its interval in seconds and its rules: the
// rules not named go, the new ones come) or deleted, as in the real product.
import type { Context } from "hono";
import { type } from "../../../../lib/arktype.ts";
import { check, nullsAbsent, parseBody } from "../../../../lib/http/validate.ts";
import { accessDenied, identityOf, type Router } from "../../access/guard.ts";
import { exportRule, shapeRule } from "../../core/content/alert-rule-model.ts";
import { groupNotFound, type AlertRuleStore, type RuleGroup } from "../../core/content/alert-rules.ts";
import { formatPromDuration, invalidRule } from "../../core/content/alerting-common.ts";
import { exportResponse, folderTitle, mayReadRulesIn, provenanceOf, RuleIn, type FolderDeps } from "./alerting-shared.ts";

const GroupIn = type({
  "title?": "string",
  "folderUid?": "string",
  "interval?": "number.integer",
  // a group is evaluated as one: the real product has no cap, a thousand bounds one request's work
  "rules?": type("object[]").atMostLength(1000),
});

export interface AlertRuleGroupDeps extends FolderDeps {
  rules: AlertRuleStore;
}

const shapeGroup = (g: RuleGroup) => ({ title: g.title, folderUid: g.folderUid, interval: g.interval, rules: g.rules.map(shapeRule) });

export function registerAlertRuleGroups(r: Router, deps: AlertRuleGroupDeps): void {
  const path = "/api/v1/provisioning/folder/:folderUid/rule-groups/:group";
  const params = (c: Context) => ({ orgId: identityOf(c).orgId, folderUid: c.req.param("folderUid")!, group: c.req.param("group")! });
  // reading a group is reading rules of its folder (the real product's alert.rules:read and folders:read on it or above)
  const readAccess = { action: "alert.rules:read" };
  const requireReadable = async (c: Context) => {
    if (!(await mayReadRulesIn(c, deps, c.req.param("folderUid")!))) throw accessDenied("alert.rules:read");
  };

  r.get(path, readAccess, async (c) => {
    await requireReadable(c);
    const { orgId, folderUid, group } = params(c);
    const found = await deps.rules.group(orgId, folderUid, group);
    if (!found) throw groupNotFound();
    return c.json(shapeGroup(found));
  });

  r.get(`${path}/export`, readAccess, async (c) => {
    await requireReadable(c);
    const { orgId, folderUid, group } = params(c);
    const found = await deps.rules.group(orgId, folderUid, group);
    if (!found) throw groupNotFound();
    const folder = (await folderTitle(deps, orgId, folderUid)) ?? folderUid;
    return exportResponse(c, {
      apiVersion: 1,
      groups: [{ orgId, name: group, folder, interval: formatPromDuration(found.interval * 1000), rules: found.rules.map(exportRule) }],
    });
  });

  r.put(path, { action: "alert.provisioning:write" }, async (c) => {
    const { orgId, folderUid, group } = params(c);
    const body = await parseBody(c, GroupIn);
    // rules as clients read them back: their nulls are fields left out
    const rules = body.rules?.map((rule, i) => check(RuleIn, nullsAbsent(rule), `bad request data: rules[${i}]`));
    if ((await folderTitle(deps, orgId, folderUid)) === undefined) throw invalidRule("folder does not exist");
    return c.json(shapeGroup(await deps.rules.replaceGroup(orgId, folderUid, group, { interval: body.interval, rules }, provenanceOf(c))));
  }, { body: GroupIn });

  r.delete(path, { action: "alert.provisioning:write" }, async (c) => {
    const { orgId, folderUid, group } = params(c);
    if (!(await deps.rules.deleteGroup(orgId, folderUid, group, provenanceOf(c)))) throw groupNotFound();
    return c.body(null, 204);
  });
}
