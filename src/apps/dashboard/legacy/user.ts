// The signed-in user: GET /api/user, PUT /api/user/password,
// POST /api/user/using/:orgId (user-only: a service account token gets 403).
import { type } from "arktype";
import { parseBody } from "../../../lib/http/validate.ts";
import { identityOf, type Router } from "../access/guard.ts";
import type { IdentityDeps } from "../core/identity-deps.ts";
import { parseId } from "../core/orgs.ts";
import { changePassword, profileOf, switchOrg } from "../core/users.ts";

const PasswordChange = type({ oldPassword: "string", newPassword: "string" });

export function registerUser(r: Router, deps: IdentityDeps): void {
  const self = { signedIn: true, usersOnly: true } as const;

  r.get("/api/user", self, (c) => {
    const id = identityOf(c);
    return c.json(profileOf(id.user, id.orgId));
  });

  r.put("/api/user/password", self, async (c) => {
    const body = await parseBody(c, PasswordChange);
    await changePassword(deps, identityOf(c).user, body.oldPassword, body.newPassword);
    return c.json({ message: "User password changed" });
  });

  r.post("/api/user/using/:orgId", self, async (c) => {
    const orgId = parseId(c.req.param("orgId"), "id is invalid");
    await switchOrg(deps, identityOf(c).user, orgId);
    return c.json({ message: "Active organization changed" });
  });
}
