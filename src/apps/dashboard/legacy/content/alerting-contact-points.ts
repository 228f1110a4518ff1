// /api/v1/provisioning/contact-points: list (by name), create, update,
// delete and export, with the real product's status codes (202 on writes)
// and bodies. Secure settings read as "[REDACTED]"; the export shows them
// only with decrypt=true to callers holding alert.provisioning.secrets:read.
import { type } from "../../../../lib/arktype.ts";
import { ApiError } from "../../../../lib/errors.ts";
import { queryParams } from "../../../../lib/http/query.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { ContactPoint, ContactPointStore } from "../../core/content/contact-points.ts";
import { hasPermission } from "../../core/identity/permissions.ts";
import { exportResponse, provenanceOf } from "./alerting-shared.ts";

const ContactPointIn = type({
  "uid?": "string",
  name: "string > 0",
  "type?": "string",
  "settings?": "Record<string, unknown>",
  "disableResolveMessage?": "boolean",
});

/** the provisioning file format: contact points by name, each with its integrations */
function exportFile(orgId: number, list: ContactPoint[]) {
  const byName = new Map<string, Array<Record<string, unknown>>>();
  for (const cp of list) {
    byName.set(cp.name, [...(byName.get(cp.name) ?? []), { uid: cp.uid, type: cp.type, settings: cp.settings, disableResolveMessage: cp.disableResolveMessage }]);
  }
  return { apiVersion: 1, contactPoints: [...byName].map(([name, receivers]) => ({ orgId, name, receivers })) };
}

export function registerContactPoints(r: Router, deps: { contactPoints: ContactPointStore }): void {
  const base = "/api/v1/provisioning/contact-points";

  r.get(base, { action: "alert.notifications:read" }, async (c) => {
    const name = queryParams(c).one("name");
    return c.json(await deps.contactPoints.list(identityOf(c).orgId, name || undefined));
  });

  r.get(`${base}/export`, { action: "alert.provisioning:read" }, async (c) => {
    const id = identityOf(c);
    const q = queryParams(c);
    const decrypt = q.one("decrypt") === "true";
    if (decrypt && !hasPermission(id.permissions, "alert.provisioning.secrets:read")) throw new ApiError(403, "permission denied");
    let list = decrypt ? await deps.contactPoints.listDecrypted(id.orgId) : await deps.contactPoints.list(id.orgId);
    const name = q.one("name");
    if (name) list = list.filter((cp) => cp.name === name);
    return exportResponse(c, exportFile(id.orgId, list));
  });

  r.post(base, { action: "alert.provisioning:write" }, async (c) => {
    const body = await parseBody(c, ContactPointIn);
    return c.json(await deps.contactPoints.create(identityOf(c).orgId, body, provenanceOf(c)), 202);
  }, { body: ContactPointIn });

  r.put(`${base}/:uid`, { action: "alert.provisioning:write" }, async (c) => {
    const body = await parseBody(c, ContactPointIn);
    await deps.contactPoints.update(identityOf(c).orgId, c.req.param("uid")!, body, provenanceOf(c));
    return c.json({ message: "contactpoint updated" }, 202);
  }, { body: ContactPointIn });

  r.delete(`${base}/:uid`, { action: "alert.provisioning:write" }, async (c) => {
    await deps.contactPoints.delete(identityOf(c).orgId, c.req.param("uid")!);
    return c.json({ message: "contactpoint deleted" }, 202);
  });
}
