// The second factor (TOTP) of local users (docs/authentication.md, "Second
// factor (TOTP)"). The real product has no such API; these routes follow its
// style: GET /api/user/2fa, POST /api/user/2fa/enrol and /confirm, DELETE
// /api/user/2fa for the signed-in user; DELETE /api/admin/users/:id/2fa for a
// server admin; POST /login/2fa completes a page sign-in that POST /login left
// waiting for a code.
import type { Context } from "hono";
import { deleteCookie, getCookie } from "hono/cookie";
import { renderSVG } from "uqr";
import { type } from "../../../../lib/arktype.ts";
import { ApiError, badRequest } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import type { IdentityDeps } from "../../core/identity/identity-deps.ts";
import { parseId } from "../../core/identity/orgs.ts";
import type { PendingLogins, SecondFactor } from "../../core/identity/second-factor.ts";
import type { SessionStore } from "../../core/identity/sessions.ts";
import { requireUser } from "../../core/identity/users.ts";
import { SESSION_COOKIE } from "../../core/identity/sessions.ts";
import { PENDING_LOGIN_COOKIE, startSession } from "./session-cookie.ts";

const Code = type({ code: "string" });
const Enrol = type({ password: "string" });
const Disable = type({ "password?": "string", "code?": "string" });

export interface SecondFactorRouteDeps {
  secondFactor: SecondFactor;
  pendingLogins: PendingLogins;
  sessions: SessionStore;
  secureCookie: boolean;
}

/** the secret and the recovery codes are never kept by a cache */
const NO_STORE = { "Cache-Control": "no-store" };
/** the session a request came with: it stays when the others end */
const currentSession = (c: Context) => (identityOf(c).method === "session" ? getCookie(c, SESSION_COOKIE) : undefined);

const invalidCode = () => new ApiError(401, "Invalid two-factor code", { messageId: "second-factor.invalid-code" });
const expired = () => new ApiError(401, "the sign-in has expired: sign in again", { messageId: "login.second-factor-expired" });

export function registerSecondFactor(r: Router, deps: IdentityDeps, o: SecondFactorRouteDeps): void {
  const { secondFactor } = o;
  // answered too while an admin's page session must enrol first (security.totp_required_for_admins)
  const enrolling = { signedIn: true, usersOnly: true, duringEnrolment: true } as const;

  r.post("/login/2fa", { public: true }, async (c) => {
    const body = await parseBody(c, Code);
    const token = getCookie(c, PENDING_LOGIN_COOKIE) ?? "";
    const user = await o.pendingLogins.open(token, await deps.model.snapshot());
    if (!user) throw expired();
    if (!(await secondFactor.verify(user, body.code))) throw invalidCode();
    // of two requests with the same token (on two nodes), one signs in
    if (!(await o.pendingLogins.consume(token))) throw expired();
    deleteCookie(c, PENDING_LOGIN_COOKIE, { path: "/login", secure: o.secureCookie });
    await startSession(c, o.sessions, user.id, o.secureCookie);
    return c.json({ message: "Logged in" });
  }, { body: Code, responses: { 401: "Invalid two-factor code, the pending sign-in expired or is missing, or the account is locked out" } });

  r.get("/api/user/2fa", enrolling, async (c) => c.json(await secondFactor.status(identityOf(c).user)));

  // the current password too: a stolen session alone must not be able to put a factor on the account and lock its owner out
  r.post("/api/user/2fa/enrol", enrolling, async (c) => {
    const body = await parseBody(c, Enrol);
    const user = identityOf(c).user;
    if (!(await deps.auth.checkOwnPassword(user, body.password))) throw badRequest("Invalid password", { messageId: "second-factor.invalid-password" });
    const { secret, otpauthUrl } = await secondFactor.enrol(user);
    return c.json({ secret, otpauthUrl, qrSvg: renderSVG(otpauthUrl, { border: 2 }) }, 200, NO_STORE);
  }, { body: Enrol, responses: { 400: "the password is wrong", 403: "two-factor authentication is turned off (security.totp_enabled)", 409: "already enabled" } });

  r.post("/api/user/2fa/confirm", enrolling, async (c) => {
    const body = await parseBody(c, Code);
    const recoveryCodes = await secondFactor.confirm(identityOf(c).user, body.code, currentSession(c));
    return c.json({ message: "Two-factor authentication enabled", recoveryCodes }, 200, NO_STORE);
  }, { body: Code, responses: { 400: "no enrolment pending, or the code is wrong", 409: "already enabled, or the enrolment changed meanwhile" } });

  r.delete("/api/user/2fa", { signedIn: true, usersOnly: true }, async (c) => {
    const body = await parseBody(c, Disable);
    const user = identityOf(c).user;
    if (body.password !== undefined) {
      if (!(await deps.auth.checkOwnPassword(user, body.password))) throw badRequest("Invalid password");
    } else if (body.code !== undefined) {
      if (!(await secondFactor.verify(user, body.code))) throw badRequest("Invalid two-factor code", { messageId: "second-factor.invalid-code" });
    } else {
      throw badRequest("the current password or a code is needed to turn two-factor authentication off");
    }
    await secondFactor.remove(user.id, currentSession(c));
    return c.json({ message: "Two-factor authentication disabled" });
  }, { body: Disable, responses: { 400: "the password or code is missing or wrong" } });

  // a server admin resets a user's second factor (a lost phone and lost recovery codes), as it sets a password
  r.delete("/api/admin/users/:id/2fa", { action: "users.password:write", scope: (c: Context) => `global.users:id:${c.req.param("id")}` }, async (c) => {
    const user = await requireUser(deps, parseId(c.req.param("id"), "id is invalid"));
    await secondFactor.remove(user.id);
    return c.json({ message: "Two-factor authentication reset" });
  });
}
