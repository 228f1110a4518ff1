// The signed-in user: GET /api/user, PUT /api/user/password, GET /api/user/orgs, GET /api/user/teams,
// POST /api/user/using/:orgId (user-only: a service account token gets 403).
import { type } from "../../../../lib/arktype.ts";
import { getCookie } from "hono/cookie";
import { parseBody } from "../../../../lib/http/validate.ts";
import { SESSION_COOKIE } from "../../core/identity/sessions.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import type { PreferenceStore } from "../../core/content/preferences.ts";
import { parseId, userOrgs } from "../../core/identity/orgs.ts";
import { teamsOfUser } from "../../core/identity/teams.ts";
import { changePassword, profileOf, switchOrg } from "../../core/identity/users.ts";

const PasswordChange = type({ oldPassword: "string", newPassword: "string" });

export function registerUser(r: Router, deps: IdentityDeps, preferences: PreferenceStore): void {
  const self = { signedIn: true, usersOnly: true } as const;

  // answered too while an admin's page session must enrol a second factor first (the page reads who is signed in)
  r.get("/api/user", { ...self, duringEnrolment: true }, async (c) => {
    const id = identityOf(c);
    const teams = ((await deps.model.snapshot()).teamsOfUser.get(id.user.id) ?? []).filter((t) => t.orgId === id.orgId);
    // the theme in effect: the user's own, else a team's, else the organization's, else the default
    const { theme } = await preferences.effective(id.orgId, id.user.id, teams.map((t) => t.teamId).sort((a, b) => a - b));
    return c.json({ ...profileOf(id.user, id.orgId), theme });
  });

  // the real product's list of what the caller may do, {action: [scopes]}: the admin page hides what it cannot use
  r.get("/api/access-control/user/permissions", { signedIn: true }, (c) => c.json(Object.fromEntries(identityOf(c).permissions)));

  r.put("/api/user/password", self, async (c) => {
    const body = await parseBody(c, PasswordChange);
    const id = identityOf(c);
    // a password change from the admin page keeps that page signed in
    const session = id.method === "session" ? getCookie(c, SESSION_COOKIE) : undefined;
    await changePassword(deps, id.user, body.oldPassword, body.newPassword, session);
    return c.json({ message: "User password changed" });
  }, { body: PasswordChange });

  // the organizations the user may switch to (the real product's [{orgId, name, role}])
  r.get("/api/user/orgs", self, async (c) => c.json(await userOrgs(deps, identityOf(c).user.id)));

  // the caller's teams in its current organization
  r.get("/api/user/teams", self, async (c) => {
    const id = identityOf(c);
    return c.json(await teamsOfUser(deps, id.orgId, id.user.id));
  });

  r.post("/api/user/using/:orgId", self, async (c) => {
    const orgId = parseId(c.req.param("orgId"), "id is invalid");
    await switchOrg(deps, identityOf(c).user, orgId);
    return c.json({ message: "Active organization changed" });
  });
}
