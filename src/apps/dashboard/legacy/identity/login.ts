// Password sign-in for the admin page: POST /login sets an HttpOnly,
// SameSite=Lax session cookie; GET /logout ends the session and clears it.
// The cloud edition signs in with service account tokens only.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { ApiError } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import type { Router } from "../../access/guard.ts";
import type { Authenticator } from "../../core/identity/authenticate.ts";
import { SESSION_COOKIE, type SessionStore } from "../../core/identity/sessions.ts";

const Login = type({ user: "string", password: "string" });

export interface LoginDeps {
  auth: Authenticator;
  sessions: SessionStore;
  passwordLoginEnabled: boolean;
  /** mark the cookie Secure when the listener serves HTTPS */
  secureCookie: boolean;
}

export function registerLogin(r: Router, deps: LoginDeps): void {
  r.post("/login", { public: true }, async (c) => {
    if (!deps.passwordLoginEnabled) {
      throw new ApiError(401, "password sign-in is disabled in this edition: use a service account token", { messageId: "password-auth.disabled" });
    }
    const body = await parseBody(c, Login);
    const user = await deps.auth.verifyLogin(body.user, body.password);
    const session = await deps.sessions.create(user.id, { userAgent: c.req.header("User-Agent") ?? "", clientIp: clientIp(c) });
    setCookie(c, SESSION_COOKIE, session.token, {
      path: "/",
      httpOnly: true,
      sameSite: "Lax",
      secure: deps.secureCookie,
      expires: session.expiresAt,
    });
    return c.json({ message: "Logged in" });
  }, { body: Login, responses: { 401: "Invalid username or password (or password sign-in is disabled in this edition)" } });

  r.get("/logout", { public: true }, async (c) => {
    const token = getCookie(c, SESSION_COOKIE);
    if (token) await deps.sessions.revoke(token);
    deleteCookie(c, SESSION_COOKIE, { path: "/", secure: deps.secureCookie });
    return c.redirect("/", 302);
  });
}

function clientIp(c: Context): string {
  return c.req.header("X-Forwarded-For")?.split(",")[0]?.trim() ?? "";
}
