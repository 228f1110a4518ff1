// OpenID Connect / OAuth2 sign-in on the admin page (docs/authentication.md,
// "OpenID Connect"), on the real product's path: GET /login/generic_oauth starts
// it (the browser goes to the provider, holding the flow's opaque id in an
// HttpOnly, SameSite=Lax cookie: Lax lets it come back with the provider's
// redirect), and the provider's redirect back to the same path with
// ?code=&state= completes it: a session, then the page. Any refusal sends the
// browser to /login?error=<message>, which the sign-in page shows; never a 500.
// GET /api/login/options tells the sign-in page what to offer.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { Logger } from "../../../../lib/logger.ts";
import type { Router } from "../../access/guard.ts";
import { OAuthRefusal, type OAuthService } from "../../core/identity/oauth.ts";
import type { SessionStore } from "../../core/identity/sessions.ts";
import { startSession } from "./session-cookie.ts";

/** the started sign-in's opaque id (the state, nonce and PKCE verifier stay on the server) */
export const OAUTH_FLOW_COOKIE = "svc_oauth_flow";
const CALLBACK_PATH = "/login/generic_oauth";

export interface OAuthRouteDeps {
  /** undefined: OAuth sign-in is off */
  oauth: OAuthService | undefined;
  sessions: SessionStore;
  secureCookie: boolean;
  passwordLoginEnabled: boolean;
  /** the dashboard's root URL ("https://outpost.example.com/"): the redirect URI is built on it */
  rootUrl: () => string;
  logger: Logger;
}

export function registerOAuth(r: Router, deps: OAuthRouteDeps): void {
  const log = deps.logger.child({ logger: "oauth.generic_oauth" });
  const redirectUri = () => new URL(CALLBACK_PATH.slice(1), deps.rootUrl().replace(/\/?$/, "/")).href;
  const refused = (c: Context, message: string) => c.redirect(`/login?error=${encodeURIComponent(message)}`, 302);

  r.get(CALLBACK_PATH, { public: true }, async (c) => {
    const oauth = deps.oauth;
    if (!oauth) return refused(c, "OAuth sign-in is not enabled on this server");
    const url = new URL(c.req.url);
    const returning = url.searchParams.has("code") || url.searchParams.has("state") || url.searchParams.has("error");
    try {
      if (!returning) {
        const started = await oauth.begin(redirectUri());
        setCookie(c, OAUTH_FLOW_COOKIE, started.flowId, {
          path: CALLBACK_PATH, httpOnly: true, sameSite: "Lax", secure: deps.secureCookie, expires: started.expiresAt,
        });
        return c.redirect(started.url, 302);
      }
      const flowId = getCookie(c, OAUTH_FLOW_COOKIE);
      deleteCookie(c, OAUTH_FLOW_COOKIE, { path: CALLBACK_PATH, secure: deps.secureCookie });
      const { user, idToken } = await oauth.complete(flowId, url);
      const token = await startSession(c, deps.sessions, user.id, deps.secureCookie);
      if (idToken) await oauth.rememberIdToken(token, idToken);
      return c.redirect("/", 302);
    } catch (err) {
      if (err instanceof OAuthRefusal) return refused(c, err.message);
      log.error("OAuth sign-in failed", { error: (err as Error).message });
      return refused(c, `Sign-in with ${oauth.name} failed: see the server's log`);
    }
  }, { responses: { 302: "to the provider (start), to the page (signed in), or to /login?error=<message> (refused)" } });

  // what the sign-in page offers before anyone is signed in (the real product's login page reads its boot data)
  r.get("/api/login/options", { public: true }, (c) =>
    c.json({
      passwordLogin: deps.passwordLoginEnabled,
      oauth: deps.oauth ? { generic_oauth: { name: deps.oauth.name, url: CALLBACK_PATH, autoLogin: deps.oauth.autoLogin } } : {},
    }),
  );
}
