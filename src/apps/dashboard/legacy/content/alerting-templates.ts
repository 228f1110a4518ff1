// /api/v1/provisioning/templates: notification templates listed, read,
// created or replaced by name (202) and deleted (204), as in the real product.
import { type } from "../../../../lib/arktype.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { TemplateStore } from "../../core/content/notification-templates.ts";
import { provenanceOf, routeDeleteByName } from "./alerting-shared.ts";

const TemplateIn = type({ "template?": "string", "version?": "string" });

export function registerNotificationTemplates(r: Router, deps: { templates: TemplateStore }): void {
  const base = "/api/v1/provisioning/templates";

  r.get(base, { action: "alert.notifications:read" }, async (c) => c.json(await deps.templates.list(identityOf(c).orgId)));

  r.get(`${base}/:name`, { action: "alert.notifications:read" }, async (c) => c.json(await deps.templates.get(identityOf(c).orgId, c.req.param("name")!)));

  r.put(`${base}/:name`, { action: "alert.provisioning:write" }, async (c) => {
    const body = await parseBody(c, TemplateIn);
    return c.json(await deps.templates.put(identityOf(c).orgId, c.req.param("name")!, body, provenanceOf(c)), 202);
  }, { body: TemplateIn, responses: { 409: "alerting.notifications.conflict: the version given is not the current one" } });

  routeDeleteByName(r, base, deps.templates.delete);
}
