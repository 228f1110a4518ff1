// The signed-in user: GET /api/user, PUT /api/user/password,
// POST /api/user/using/:orgId (user-only: a service account token gets 403).
import { type } from "arktype";
import { parseBody } from "../../../lib/http/validate.ts";
import { identityOf, type Router } from "../access/guard.ts";
import type { IdentityDeps } from "../core/identity-deps.ts";
import type { PreferenceStore } from "../core/preferences.ts";
import { parseId } from "../core/orgs.ts";
import { changePassword, profileOf, switchOrg } from "../core/users.ts";

const PasswordChange = type({ oldPassword: "string", newPassword: "string" });

export function registerUser(r: Router, deps: IdentityDeps, preferences: PreferenceStore): void {
  const self = { signedIn: true, usersOnly: true } as const;

  r.get("/api/user", self, async (c) => {
    const id = identityOf(c);
    const teams = ((await deps.model.snapshot()).teamsOfUser.get(id.user.id) ?? []).filter((t) => t.orgId === id.orgId);
    // the theme in effect: the user's own, else a team's, else the organization's, else the default
    const { theme } = await preferences.effective(id.orgId, id.user.id, teams.map((t) => t.teamId).sort((a, b) => a - b));
    return c.json({ ...profileOf(id.user, id.orgId), theme });
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
