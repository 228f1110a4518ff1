// /api/licensing (enterprise): check, install, renew and remove the licence
// token (spec "Licensing"; reference §9.3). Only a server administrator
// signed in with a password (basic auth, or the admin page's session) may use
// it: service account tokens are refused with 403 even with the Admin role.
import { type } from "../../../../lib/arktype.ts";
import type { Context } from "hono";
import { ApiError, badRequest } from "../../../../lib/errors.ts";
import { parseBody } from "../../../../lib/http/validate.ts";
import { identityOf, type Router } from "../../access/guard.ts";
import { LicenceError, licenceView } from "../../core/admin/licence.ts";
import { sameInstance, type LicenceStore } from "../../core/admin/licence-store.ts";

const TokenIn = type({ token: "string" });
const RemoveIn = type({ "instance?": "string" });

export interface LicensingDeps {
  licences: LicenceStore;
  /** this server's root URL, which a removal must name */
  /** the dashboard's root URL (with the bound port when it was chosen with 0) */
  rootUrl: () => string;
  now: () => number;
}

export function registerLicensing(r: Router, deps: LicensingDeps): void {
  /** password sign-ins only: a token never reaches the licence */
  const passwordOnly = (c: Context) => {
    if (identityOf(c).method === "token") throw new ApiError(403, "licensing endpoints need basic authentication by a server administrator");
  };

  r.get("/api/licensing/check", { action: "licensing:read" }, async (c) => {
    passwordOnly(c);
    const current = await deps.licences.current(deps.now());
    return c.json(current !== undefined && !(current instanceof LicenceError));
  });

  r.post("/api/licensing/token", { action: "licensing:write" }, async (c) => {
    passwordOnly(c);
    const body = await parseBody(c, TokenIn);
    try {
      return c.json(licenceView(await deps.licences.install(body.token, deps.now())));
    } catch (err) {
      if (err instanceof LicenceError) throw badRequest(err.message, { messageId: `licensing.${err.reason}` });
      throw err;
    }
  }, { body: TokenIn });

  r.post("/api/licensing/token/renew", { action: "licensing:write" }, async (c) => {
    passwordOnly(c);
    // air-gapped: there is no licence server to renew from, so renewing re-checks the installed token
    const current = await deps.licences.current(deps.now());
    if (current === undefined) throw badRequest("no licence token is installed");
    if (current instanceof LicenceError) throw badRequest(current.message, { messageId: `licensing.${current.reason}` });
    return c.json({ ...licenceView(current), valid: true, checkedAt: new Date(deps.now()).toISOString() });
  });

  r.delete("/api/licensing/token", { action: "licensing:delete" }, async (c) => {
    passwordOnly(c);
    const body = await parseBody(c, RemoveIn);
    if (!body.instance || !sameInstance(body.instance, deps.rootUrl())) {
      throw new ApiError(422, "incorrect instance name provided");
    }
    await deps.licences.remove();
    return c.json({}, 202);
  }, { body: RemoveIn, responses: { 422: "incorrect instance name provided: the instance is not this server's root URL" } });
}
