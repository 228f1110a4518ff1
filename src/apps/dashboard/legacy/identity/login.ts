// Password sign-in for the admin page: POST /login sets an HttpOnly,
// SameSite=Lax session cookie; GET /logout ends the session and clears it
// (then sends the browser to the OAuth provider's sign-out, when there is one).
// The cloud edition signs in with service account tokens only.
import { type } from "../../../../lib/arktype.ts";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { ApiError } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import type { Router } from "../../access/guard.ts";
import type { AccessModel } from "../../core/identity/access-model.ts";
import type { Authenticator } from "../../core/identity/authenticate.ts";
import type { PendingLogins } from "../../core/identity/second-factor.ts";
import { SESSION_COOKIE, type SessionStore } from "../../core/identity/sessions.ts";
import { PENDING_LOGIN_COOKIE, startSession } from "./session-cookie.ts";

const Login = type({ user: "string", password: "string" });

export interface LoginDeps {
  auth: Authenticator;
  sessions: SessionStore;
  passwordLoginEnabled: boolean;
  /** mark the cookie Secure when the listener serves HTTPS */
  secureCookie: boolean;
  model: AccessModel;
  /** sign-ins waiting for a second factor's code */
  pendingLogins: PendingLogins;
  /** where GET /logout sends the browser once the session ended (the OAuth provider's sign-out), given the session's token */
  signOutRedirect?: (sessionToken: string | undefined) => Promise<string | undefined>;
}

export function registerLogin(r: Router, deps: LoginDeps): void {
  r.post("/login", { public: true }, async (c) => {
    if (!deps.passwordLoginEnabled) {
      throw new ApiError(401, "password sign-in is disabled in this edition: use a service account token", { messageId: "password-auth.disabled" });
    }
    const body = await parseBody(c, Login);
    const user = await deps.auth.verifyLogin(body.user, body.password);
    if ((await deps.model.snapshot()).secondFactor.has(user.id)) {
      // no session yet: a short-lived pending sign-in that POST /login/2fa completes with a code
      const pending = await deps.pendingLogins.issue(user);
      setCookie(c, PENDING_LOGIN_COOKIE, pending.token, { path: "/login", httpOnly: true, sameSite: "Strict", secure: deps.secureCookie, expires: pending.expiresAt });
      throw new ApiError(401, "second factor required", { messageId: "login.second-factor-required", body: { mfaRequired: true } });
    }
    await startSession(c, deps.sessions, user.id, deps.secureCookie);
    return c.json({ message: "Logged in" });
  }, { body: Login, responses: { 401: "Invalid username or password (or password sign-in is disabled in this edition); for a user with a second factor, \"second factor required\" with mfaRequired: true and a pending sign-in for POST /login/2fa" } });

  r.get("/logout", { public: true }, async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (token) await deps.sessions.revoke(token);
    deleteCookie(c, SESSION_COOKIE, { path: "/", secure: deps.secureCookie });
    const away = await deps.signOutRedirect?.(token).catch(() => undefined);
    return c.redirect(away ?? "/", 302);
  });
}
