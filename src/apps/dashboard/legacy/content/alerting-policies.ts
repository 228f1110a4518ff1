// /api/v1/provisioning/policies: the notification policy tree read, replaced
// (202 "policies updated") or reset to the default policy (202, the tree), as
// in the real product.
import { type } from "../../../../lib/arktype.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { PolicyStore } from "../../core/content/notification-policies.ts";
import { provenanceOf } from "./alerting-shared.ts";

const TreeIn = type("Record<string, unknown>");

export function registerNotificationPolicies(r: Router, deps: { policies: PolicyStore }): void {
  const path = "/api/v1/provisioning/policies";

  r.get(path, { action: "alert.notifications:read" }, async (c) => c.json(await deps.policies.get(identityOf(c).orgId)));

  r.put(path, { action: "alert.provisioning:write" }, async (c) => {
    await deps.policies.put(identityOf(c).orgId, await parseBody(c, TreeIn), provenanceOf(c));
    return c.json({ message: "policies updated" }, 202);
  }, { body: TreeIn });

  r.delete(path, { action: "alert.provisioning:write" }, async (c) => c.json(await deps.policies.reset(identityOf(c).orgId), 202));
}
