// The admin page's session cookie, set by POST /login, for a user with a
// second factor by POST /login/2fa, and by the OAuth callback: HttpOnly, SameSite=Lax, Secure when the
// listener serves HTTPS.
import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import { SESSION_COOKIE, type SessionStore } from "../../core/identity/sessions.ts";

/** the pending sign-in of a user with a second factor, between POST /login and POST /login/2fa (path /login) */
export const PENDING_LOGIN_COOKIE = "svc_login_2fa";

/** starts a session of the user and sets its cookie on the response; returns the session's token */
export async function startSession(c: Context, sessions: SessionStore, userId: number, secure: boolean): Promise<string> {
  const session = await sessions.create(userId, { userAgent: c.req.header("User-Agent") ?? "", clientIp: clientIp(c) });
  setCookie(c, SESSION_COOKIE, session.token, { path: "/", httpOnly: true, sameSite: "Lax", secure, expires: session.expiresAt });
  return session.token;
}

function clientIp(c: Context): string {
  return c.req.header("X-Forwarded-For")?.split(",")[0]?.trim() ?? "";
}
